import { setTimeout as sleep } from 'node:timers/promises';
import { BUSY_TIMEOUT_MS, type Db } from './open-database.js';
import { isDatabaseBusy } from './storage-errors.js';

/**
 * Pauses between attempts, as SQLite's own busy handler spaces them: short at first, so a lock
 * held for a moment costs a moment, then every 100 ms.
 */
const PAUSES_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/**
 * Runs `attempt` (synchronous database calls on `db`) for the server, and resolves with its
 * outcome once what it wrote, or read of others' writes, is committed (Db.afterCommit: the
 * server's connection groups commits). While the attempt fails because another process holds the
 * write lock, it runs again after a pause, for up to `waitMs` in all; then the SQLITE_BUSY of the
 * last attempt is thrown (503 DATABASE_BUSY). The pauses are timers, not sleeps: the event loop
 * keeps serving other requests while this one waits.
 *
 * Only for calls that change nothing when they fail with SQLITE_BUSY, which holds for every use
 * case here: a write is one autocommit statement or one `db.transaction()`, whose BEGIN
 * IMMEDIATE is where the lock is taken (so the retry repeats the whole of it), and reads change
 * nothing. The server's connection has busy_timeout 0 (openDatabase's `busyWait: 'fail'`), so an
 * attempt never blocks.
 */
export async function untilCommitted<T>(db: Db, attempt: () => T, waitMs = BUSY_TIMEOUT_MS): Promise<T> {
  const deadline = performance.now() + waitMs;
  for (let tries = 0; ; tries++) {
    try {
      return await db.afterCommit(attempt);
    } catch (error) {
      const remaining = deadline - performance.now();
      if (!isDatabaseBusy(error) || remaining <= 0) throw error;
      await sleep(Math.min(PAUSES_MS[tries] ?? 100, remaining));
    }
  }
}
