import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  lutimesSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openDatabase } from '../../src/db/open-database.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { buildPatient } from '../helpers/builders.js';
import { useDataDirs } from '../helpers/fixtures.js';
import {
  programPath,
  programPlatform,
  nobodySkipReason,
  runAsNobody,
  runClinic,
  startServeProcess,
  STOP_SIGNAL,
  type CliResult,
  unwrapped,
} from '../helpers/run-cli.js';

const tempDir = useDataDirs();
const posix = programPlatform !== 'win32';

/** Commands that read, write, check and serve a data directory: each must refuse alike. */
const COMMANDS: readonly (readonly string[])[] = [
  ['init'],
  ['patient', 'find', 'Ada'],
  ['check'],
  ['backup', '/nonexistent-dir/b.tar.gz'],
  ['serve', '--port', '0'],
];

function assertRefused(result: CliResult, code: string, detail: RegExp): void {
  assert.equal(result.code, 1, `${result.stdout}${result.stderr}`);
  assert.match(result.stderr, new RegExp(`^error: ${code}: `, 'm'));
  assert.match(unwrapped(result.stderr), detail);
  assert.doesNotMatch(result.stderr, /INTERNAL|NO_DATABASE|\n\s+at /);
}

const quote = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('hostile data directories', { timeout: 180_000 }, () => {
  const hostile: { title: string; make: () => string; reason: RegExp; skip?: boolean }[] = [
    {
      title: 'a regular file',
      make: () => {
        const file = join(tempDir(), 'a-file');
        writeFileSync(file, 'not a folder');
        return file;
      },
      reason: /it is a file, not a folder/,
    },
    { title: '/dev/null', make: () => '/dev/null', reason: /it is a device, not a folder/, skip: !posix },
    {
      title: 'a symbolic link loop',
      make: () => {
        const loop = join(tempDir(), 'loop');
        symlinkSync(loop, loop);
        return loop;
      },
      reason: /it is a symbolic link that leads round in a loop \(ELOOP\)/,
      skip: !posix,
    },
  ];
  for (const { title, make, reason, skip } of hostile) {
    it(`refuses --data naming ${title} with DATA_DIRECTORY_UNUSABLE and the reason, in every command`, { skip }, async () => {
      const dataDir = make();
      for (const command of COMMANDS) {
        const result = await runClinic([...command, '--data', dataDir]);
        assertRefused(result, 'DATA_DIRECTORY_UNUSABLE', new RegExp(`clinic cannot use ${quote(programPath(dataDir))}: ${reason.source}`));
      }
      const restore = await runClinic(['restore', join(tempDir(), 'none.tar.gz'), '--data', dataDir]);
      assert.equal(restore.code, 1);
      assert.doesNotMatch(restore.stderr, /INTERNAL/);
    });
  }

  it(
    'refuses a data directory this user may not enter, naming it (run as nobody)',
    {
      skip: nobodySkipReason,
    },
    async () => {
      const parent = tempDir();
      chmodSync(parent, 0o700);
      const dataDir = join(parent, 'data');
      openDatabase(dataDir).close();
      for (const command of [['init'], ['patient', 'find', 'Ada'], ['check']]) {
        const result = await runAsNobody([...command, '--data', dataDir]);
        assertRefused(
          result,
          'DATA_DIRECTORY_UNUSABLE',
          new RegExp(`clinic cannot use ${quote(dataDir)}: this user may not read and write it \\(EACCES\\)`),
        );
      }
    },
  );

  it(
    'refuses an unreadable clinic.db, naming it (run as nobody)',
    {
      skip: nobodySkipReason,
    },
    async () => {
      const dataDir = tempDir();
      openDatabase(dataDir).close();
      chmodSync(dataDir, 0o777);
      const result = await runAsNobody(['patient', 'find', 'Ada', '--data', dataDir]);
      assertRefused(
        result,
        'DATA_DIRECTORY_UNUSABLE',
        new RegExp(`clinic cannot use ${quote(join(dataDir, 'clinic.db'))}: this user may not read and write it \\(EACCES\\)`),
      );
    },
  );

  for (const name of ['clinic.db', 'clinic.db-wal', 'clinic.db-shm', 'clinic.db-journal', 'clinic.lock']) {
    it(`refuses ${name} planted as a link to another file, which keeps its mode and content`, { skip: !posix }, async () => {
      const dataDir = tempDir();
      openDatabase(dataDir).close();
      const victim = join(tempDir(), 'passwd');
      writeFileSync(victim, 'root:x:0:0::/root:/bin/bash\n', { mode: 0o644 });
      chmodSync(victim, 0o644);
      const path = join(dataDir, name);
      rmSync(path, { force: true });
      symlinkSync(victim, path);
      const commands = name === 'clinic.lock' ? [['serve', '--port', '0']] : COMMANDS.filter((command) => command[0] !== 'backup');
      for (const command of commands) {
        const result = await runClinic([...command, '--data', dataDir]);
        assertRefused(
          result,
          'DATA_DIRECTORY_UNSAFE',
          new RegExp(`${quote(path)} is a symbolic link \\(to ${quote(victim)}\\); clinic never follows`),
        );
      }
      assert.equal((statSync(victim).mode & 0o777).toString(8), '644');
      assert.equal(readFileSync(victim, 'utf8'), 'root:x:0:0::/root:/bin/bash\n');
    });
  }

  it('takes a data directory that is itself a link (IT pointing ./data at another disk)', { skip: !posix }, async () => {
    const real = tempDir();
    const db = openDatabase(real);
    createPatient(db, buildPatient({ last_name: 'Linked' }));
    db.close();
    const link = join(tempDir(), 'data');
    symlinkSync(real, link);
    const found = await runClinic(['patient', 'find', 'Linked', '--data', link]);
    assert.equal(found.code, 0, found.stderr);
    assert.match(found.stdout, /Linked/);
  });

  it('refuses a 0-byte clinic.db in every command but init, leaving it as it was; init gives it a schema', async () => {
    const dataDir = tempDir();
    const path = join(dataDir, 'clinic.db');
    writeFileSync(path, '');
    if (posix) chmodSync(path, 0o640);
    for (const command of COMMANDS.filter((command) => command[0] !== 'init')) {
      const result = await runClinic([...command, '--data', dataDir]);
      assertRefused(
        result,
        'DATABASE_EMPTY',
        new RegExp(`The database file ${quote(programPath(path))} is empty \\(0 bytes\\)[^]*\`clinic init\` sets it up`),
      );
      assert.equal(statSync(path).size, 0);
      if (posix) assert.equal((statSync(path).mode & 0o777).toString(8), '640');
    }
    assert.equal(existsSync(`${path}-wal`), false);
    const init = await runClinic(['init', '--data', dataDir]);
    assert.equal(init.code, 0, init.stderr);
    assert.equal((await runClinic(['patient', 'find', 'Ada', '--data', dataDir])).code, 0);
  });
  it('refuses tmp/ planted as a link, and never removes what a link in tmp/ points to', { skip: !posix }, async () => {
    const old = new Date(Date.now() - 3 * 24 * 3600 * 1000);
    const dataDir = tempDir();
    openDatabase(dataDir).close();
    const elsewhere = tempDir();
    const precious = join(elsewhere, 'precious.conf');
    writeFileSync(precious, 'keep');
    utimesSync(precious, old, old);
    symlinkSync(elsewhere, join(dataDir, 'tmp'));
    const refused = await runClinic(['serve', '--port', '0', '--data', dataDir]);
    assertRefused(
      refused,
      'DATA_DIRECTORY_UNSAFE',
      new RegExp(`${quote(join(dataDir, 'tmp'))} is a symbolic link \\(to ${quote(elsewhere)}\\)`),
    );
    assert.equal(readFileSync(precious, 'utf8'), 'keep');

    rmSync(join(dataDir, 'tmp'));
    mkdirSync(join(dataDir, 'tmp'));
    const link = join(dataDir, 'tmp', 'old.part');
    symlinkSync(precious, link);
    lutimesSync(link, old, old);
    const serve = await startServeProcess(['--data', dataDir]);
    serve.child.kill(STOP_SIGNAL);
    await serve.exited;
    assert.equal(readFileSync(precious, 'utf8'), 'keep');
  });
});
