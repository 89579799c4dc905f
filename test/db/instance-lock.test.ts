// The data directory's instance lock (clinic-api-1.3.md, row 20: one `clinic serve` per data
// directory): taken by one process at a time, and never left stale by a process that died.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { acquireInstanceLock, LOCK_FILE } from '../../src/db/instance-lock.js';
import { AppError } from '../../src/errors.js';
import { useDataDirs } from '../helpers/fixtures.js';

/** A server in another process: it takes the lock of `dataDir`, says so, and holds it until it is killed. */
async function lockInAnotherProcess(dataDir: string) {
  const module = pathToFileURL(join(import.meta.dirname, '../../src/db/instance-lock.ts')).href;
  const script = `import { acquireInstanceLock } from ${JSON.stringify(module)};
    const lock = acquireInstanceLock(process.argv[1]);
    process.stdout.write(lock === undefined ? 'busy\\n' : 'locked\\n');
    setInterval(() => {}, 60_000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  assert.equal(line.toString(), 'locked\n');
  return child;
}

describe('the instance lock (db)', () => {
  const newDataDir = useDataDirs();

  it('is held by one taker at a time, and free again once released (a second release changes nothing)', () => {
    const dataDir = newDataDir();
    const first = acquireInstanceLock(dataDir);
    assert.ok(first !== undefined, 'the first taker gets it');
    assert.equal(acquireInstanceLock(dataDir), undefined);
    first.release();
    first.release();
    const second = acquireInstanceLock(dataDir);
    assert.ok(second !== undefined, 'free once released');
    second.release();
  });

  it('keeps out every other process while held, and is free the moment its holder is killed (kill -9 leaves nothing stale)', async () => {
    const dataDir = newDataDir();
    const holder = await lockInAnotherProcess(dataDir);
    try {
      assert.equal(acquireInstanceLock(dataDir), undefined);
    } finally {
      holder.kill('SIGKILL');
      await once(holder, 'exit');
    }
    const lock = acquireInstanceLock(dataDir);
    assert.ok(lock !== undefined, 'the next start takes it');
    lock.release();
  });

  it('leaves one empty clinic.lock, shared with the group, and no journal beside it', () => {
    const dataDir = newDataDir();
    const umask = process.umask(0o077);
    try {
      acquireInstanceLock(dataDir)!.release();
    } finally {
      process.umask(umask);
    }
    assert.deepEqual(readdirSync(dataDir), [LOCK_FILE]);
    const info = statSync(join(dataDir, LOCK_FILE));
    assert.equal(info.size, 0);
    if (process.platform !== 'win32') assert.equal(info.mode & 0o777, 0o660);
  });

  it('takes no lock through a clinic.lock that is a link, and leaves the file it points at as it was', () => {
    const dataDir = newDataDir();
    const elsewhere = join(newDataDir(), 'important.txt');
    writeFileSync(elsewhere, 'not a lock');
    symlinkSync(elsewhere, join(dataDir, LOCK_FILE));
    assert.throws(
      () => acquireInstanceLock(dataDir),
      (error) => error instanceof AppError && error.code === 'DATA_DIRECTORY_UNSAFE',
    );
    assert.equal(existsSync(`${elsewhere}-journal`), false);
    assert.equal(statSync(elsewhere).size, 'not a lock'.length);
  });
});
