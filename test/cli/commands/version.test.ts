import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { INTERFACE_VERSION } from '../../../src/server/openapi/info.js';
import { runClinic, testingExecutable } from '../../helpers/run-cli.js';

const packageVersion = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('clinic version', () => {
  it('prints {"version", "node", "sqlite"} with --json', async () => {
    const result = await runClinic(['version', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const printed = JSON.parse(result.stdout) as Record<string, string>;
    assert.deepEqual(Object.keys(printed), ['version', 'node', 'sqlite']);
    assert.equal(printed.version, packageVersion);
    assert.match(printed.sqlite ?? '', /^3\.\d+\.\d+$/);
    if (testingExecutable) {
      // The executable embeds its own runtime: a Node 24 LTS, whatever runs the tests.
      assert.match(printed.node ?? '', /^v24\.\d+\.\d+$/);
    } else {
      assert.equal(printed.node, process.version);
    }
  });

  it('is the version of the interface the program serves, up to its patch (clinic-api-1.3.md: the program says what it serves)', async () => {
    const printed = JSON.parse((await runClinic(['version', '--json'])).stdout) as { version: string };
    const minor = (version: string) => version.split('.').slice(0, 2).join('.');
    assert.equal(minor(printed.version), minor(INTERFACE_VERSION));
  });

  it('takes --data like every command, and reads nothing there', async () => {
    const result = await runClinic(['version', '--json', '--data', '/nonexistent/clinic-data']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal((JSON.parse(result.stdout) as { version: string }).version, packageVersion);
  });

  it('prints one line for a person without --json', async () => {
    const result = await runClinic(['version']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^clinic \d+\.\d+\.\d+ \(Node v\d+\.\d+\.\d+, SQLite 3\.\d+\.\d+\)\n$/);
  });

  it('refuses a CLINIC_SQLITE_DRIVER that names no driver, saying which it may name', async () => {
    const result = await runClinic(['version'], { env: { CLINIC_SQLITE_DRIVER: 'sqlite3' } });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /CLINIC_SQLITE_DRIVER is "sqlite3"; it may be better-sqlite3 or node:sqlite/);
  });
});
