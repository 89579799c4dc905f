import { join } from 'node:path';
import { makeSharedFile, refuseUnlessRegularFile } from './data-directory.js';
import { sqliteDriver } from './drivers/sqlite-driver.js';
import { isDatabaseBusy } from './storage-errors.js';

/** The file in a data directory that a running server holds locked. */
export const LOCK_FILE = 'clinic.lock';

/** A held instance lock; `release` gives it up (process exit does too). */
export interface InstanceLock {
  release(): void;
}

/**
 * Takes the data directory's instance lock, or returns undefined while another process holds it.
 * The lock is SQLite's own exclusive file lock (fcntl) on a small side database, held by a
 * transaction that is never committed. Unlike a pid file it cannot go stale: the kernel drops it
 * when the process dies, so a power cut or kill -9 never keeps the next start out.
 */
export function acquireInstanceLock(dataDir: string): InstanceLock | undefined {
  const path = join(dataDir, LOCK_FILE);
  makeSharedFile(path);
  // Fail at once instead of waiting: the other holder keeps the lock for as long as it runs.
  const lockDb = sqliteDriver().open(path, { busyTimeoutMs: 0 });
  try {
    // EXCLUSIVE locking mode keeps the lock until the connection closes, not only per transaction;
    // no journal, since nothing is ever written (and no clinic.lock-journal file is left behind).
    // A link planted after makeSharedFile's check is caught before the lock is taken through it.
    refuseUnlessRegularFile(path);
    lockDb.pragma('locking_mode = EXCLUSIVE');
    lockDb.pragma('journal_mode = OFF');
    lockDb.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lockDb.close();
    if (isDatabaseBusy(error)) return undefined;
    throw error;
  }
  return {
    release() {
      if (!lockDb.open) return;
      lockDb.exec('ROLLBACK');
      lockDb.close();
    },
  };
}
