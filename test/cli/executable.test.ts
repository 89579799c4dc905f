import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { programPlatform, runClinic, testingExecutable } from '../helpers/run-cli.js';
import { commandGroupsOf } from '../../scripts/command-groups.mjs';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

// Only the single executable carries its own SQLite addon; from source there is nothing to test.
// clinic.exe has none: it uses node:sqlite (docs/install.md, "Install on a Windows PC").
describe(
  'the single executable',
  {
    skip: (!testingExecutable && 'needs CLINIC_BIN (npm run test:dist)') || (programPlatform === 'win32' && 'clinic.exe carries no addon'),
  },
  () => {
    let cache: string;
    beforeEach(() => {
      cache = mkdtempSync(join(tmpdir(), 'clinic-addon-cache-'));
    });
    afterEach(() => rmSync(cache, { recursive: true, force: true }));
    const clinic = (...args: string[]) => runClinic(args, { env: { XDG_CACHE_HOME: cache } });

    it('writes its SQLite addon to a private cache directory, only readable by its user', async () => {
      assert.equal((await clinic('version')).code, 0);
      const dir = join(cache, 'clinic');
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      const files = readdirSync(dir).sort();
      assert.equal(files.length, 2);
      assert.match(files[0] ?? '', /^better_sqlite3-[0-9a-f]{16}\.node$/);
      // What was verified, so that the next start need not hash the addon again.
      assert.equal(files[1], `${files[0]}.verified`);
      assert.equal(statSync(join(dir, files[1]!)).mode & 0o077, 0);
    });

    it('replaces a cached addon whose SHA-256 does not match before loading it', async () => {
      assert.equal((await clinic('version')).code, 0);
      const file = join(cache, 'clinic', readdirSync(join(cache, 'clinic')).find((name) => name.endsWith('.node')) ?? '');
      const original = sha256(readFileSync(file));
      writeFileSync(file, 'not the addon');
      const result = await clinic('version', '--json');
      assert.equal(result.code, 0, result.stderr);
      assert.equal(sha256(readFileSync(file)), original);
    });

    it('hashes the cached addon again when its bytes changed, even with its size and time kept', async () => {
      assert.equal((await clinic('version')).code, 0);
      const file = join(cache, 'clinic', readdirSync(join(cache, 'clinic')).find((name) => name.endsWith('.node')) ?? '');
      const bytes = readFileSync(file);
      const original = sha256(bytes);
      // One byte changed in place, the size and the modification time (to the nanosecond, by
      // touch -r) put back: only the ctime tells.
      const times = join(cache, 'times');
      writeFileSync(times, '');
      execFileSync('/usr/bin/touch', ['-r', file, times]);
      bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
      writeFileSync(file, bytes);
      execFileSync('/usr/bin/touch', ['-r', times, file]);
      assert.equal(statSync(file, { bigint: true }).mtimeNs, statSync(times, { bigint: true }).mtimeNs);
      const result = await clinic('version', '--json');
      assert.equal(result.code, 0, result.stderr);
      assert.equal(sha256(readFileSync(file)), original);
    });
  },
);

// A command of a receptionist's day runs from its group's own bundle, every other from the desk's
// whole one, `serve` from the server's (src/sea/program-script.ts, programFor; scripts/package.mjs
// builds them): each top-level name must reach a bundle that holds its commands.
describe(
  'the single executable, each command from the bundle its first word chooses',
  { skip: !testingExecutable && 'needs CLINIC_BIN (npm run test:dist)' },
  () => {
    const names = commandGroupsOf(readFileSync(new URL('../../src/cli/program.ts', import.meta.url), 'utf8')).flatMap(
      (group) => group.names,
    );

    it('prints the help of every top-level command', async () => {
      for (const name of names) {
        const result = await runClinic([name, '--help']);
        assert.equal(result.code, 0, `clinic ${name} --help: ${result.stderr}`);
        assert.match(result.stdout, new RegExp(`^Usage: clinic ${name}\\b`), `clinic ${name} --help`);
      }
    });

    it('refuses a first word that names a property of every object as an unknown command, as any other', async () => {
      for (const word of ['constructor', '__proto__', 'toString']) {
        const result = await runClinic([word]);
        assert.equal(result.code, 2, `clinic ${word}: ${result.stderr}`);
        assert.match(result.stderr, new RegExp(`^error: unknown command '${word}'`), `clinic ${word}`);
      }
    });
  },
);
