import { setTimeout as sleep } from 'node:timers/promises';
import { BUSY_TIMEOUT_MS, type Db } from '../../db/open-database.js';
import { isDatabaseBusy } from '../../db/storage-errors.js';
import { closeOpenTransactionsWith, type Access, type WorkRunner } from '../../domain/use-case.js';

/**
 * Pauses between attempts while another process holds the write lock, as SQLite's own busy
 * handler spaces them: short at first, so a lock held for a moment costs a moment, then every 100 ms.
 */
const PAUSES_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/** Thrown to the members of a group whose transaction SQLite rolled back without saying why. */
class CommitGroupLost extends Error {
  constructor() {
    super('the transaction of this commit group was rolled back by SQLite before it could be committed');
  }
}

/** The writes of one turn of the event loop, and the promise of their one COMMIT. */
class CommitGroup {
  /** Settles when the group's COMMIT has succeeded, or with why it failed. */
  readonly committed: Promise<void>;
  readonly #settle: { resolve(): void; reject(error: unknown): void };
  /** The error that made SQLite roll the group's transaction back before its COMMIT. */
  #failure: unknown;

  constructor() {
    let settle: { resolve(): void; reject(error: unknown): void } | undefined;
    this.committed = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    this.#settle = settle!;
    // A group nobody waits for (every member failed on its own) must not end the process.
    this.committed.catch(() => {});
  }

  /** Records the first error that ended the group's transaction: every member is told it. */
  ended(error: unknown): void {
    this.#failure ??= error;
  }

  succeed(): void {
    this.#settle.resolve();
  }

  /** Fails the group with why its transaction ended, or with `error` (a failed COMMIT). */
  fail(error?: unknown): void {
    this.#settle.reject(this.#failure ?? error ?? new CommitGroupLost());
  }

  /** The outcome of one member, given once the group is committed; the group's failure instead if it is not. */
  answer<T>(outcome: { value: T } | { error: unknown }): Promise<T> {
    return this.committed.then(() => ('error' in outcome ? Promise.reject(outcome.error as Error) : outcome.value));
  }
}

/**
 * How the server runs the database work of its requests: group commit, and waiting out another
 * process's write lock by timer (docs/design-choices.md, "Commits, locks and fault statuses"; docs/benchmarks.md for the
 * figures).
 *
 * The write of a use case that declares one (`write`, `read-then-write`) joins the group of its
 * turn of the event loop: the first opens it with BEGIN IMMEDIATE and schedules its COMMIT with
 * setImmediate, which runs once the event loop has handled every request that was waiting on a
 * socket; each write then runs as a SAVEPOINT inside it, so a refused request undoes its own
 * writes and only those. The group's BEGIN IMMEDIATE holds the write lock until its COMMIT, so a
 * read-then-write sees no other connection's write between its read and its commit. Nothing is
 * answered before the COMMIT: each member's value or refusal is held back until then, and when
 * the COMMIT fails every member gets that failure (507 STORAGE_FULL, 500) instead. A read while a
 * group is open may have seen its uncommitted rows, so it is held back too.
 *
 * While an attempt fails with SQLITE_BUSY (the connection has busy_timeout 0), it runs again after
 * a pause, for up to `busyWaitMs` in all, then the last SQLITE_BUSY is thrown (503 DATABASE_BUSY);
 * the pauses are timers, so the event loop serves other requests meanwhile. An attempt that meets
 * SQLITE_BUSY has changed nothing: the lock is taken by BEGIN IMMEDIATE, before any write.
 */
export class CommitGroups implements WorkRunner {
  private group: CommitGroup | undefined;
  private readonly committedListeners: (() => void)[] = [];
  /** How many members' works are running now (inside the group's transaction; one may run another's). */
  private working = 0;

  constructor(
    private readonly db: Db,
    private readonly busyWaitMs = BUSY_TIMEOUT_MS,
  ) {
    // Work outside the groups that runs its own transaction (a login, a desk PC's command) commits
    // the open group first, so that it commits alone and durably before it answers.
    closeOpenTransactionsWith(db, () => {
      if (this.working === 0) this.flush();
    });
  }

  async run<T>(access: Access, work: () => T): Promise<T> {
    const deadline = performance.now() + this.busyWaitMs;
    for (let tries = 0; ; tries++) {
      try {
        return await (access === 'read' ? this.read(work) : this.write(work));
      } catch (error) {
        const remaining = deadline - performance.now();
        if (!isDatabaseBusy(error) || remaining <= 0) throw error;
        await sleep(Math.min(PAUSES_MS[tries] ?? 100, remaining));
      }
    }
  }

  /** Calls `listener` after each successful COMMIT, before the group's members are answered (the change feed's waiters). */
  onCommit(listener: () => void): void {
    this.committedListeners.push(listener);
  }

  /** Commits a group still open (its members are waiting to be answered); for the server's stop. */
  flush(): void {
    if (this.group !== undefined) this.commit(this.group);
  }

  private read<T>(work: () => T): T | Promise<T> {
    const outcome = this.attemptWork(work);
    const group = this.group;
    if (group === undefined) {
      if ('error' in outcome) throw outcome.error;
      return outcome.value;
    }
    if ('error' in outcome && !this.db.inTransaction) group.ended(outcome.error);
    return group.answer(outcome);
  }

  private write<T>(work: () => T): Promise<T> {
    const group = this.joinGroup();
    // Inside the group's BEGIN, the driver makes this a SAVEPOINT (better-sqlite3's semantics).
    const outcome = this.attemptWork(this.db.transaction(work));
    // An error that ended the group's transaction (SQLITE_FULL, an I/O error) is every member's.
    if ('error' in outcome && !this.db.inTransaction) group.ended(outcome.error);
    return group.answer(outcome);
  }

  /** `work` run as a member's (attempt), known to be inside the group's transaction meanwhile. */
  private attemptWork<T>(work: () => T): { value: T } | { error: unknown } {
    this.working++;
    try {
      return attempt(work);
    } finally {
      this.working--;
    }
  }

  /** The open group, or a new one; a group SQLite rolled back is failed first. */
  private joinGroup(): CommitGroup {
    const open = this.group;
    if (open !== undefined) {
      if (this.db.inTransaction) return open;
      this.group = undefined;
      open.fail();
    }
    // SQLITE_BUSY here (another process writes) opens nothing: run() tries again.
    this.db.exec('BEGIN IMMEDIATE');
    const group = new CommitGroup();
    this.group = group;
    setImmediate(() => this.commit(group));
    return group;
  }

  private commit(group: CommitGroup): void {
    if (this.group !== group) return;
    this.group = undefined;
    if (!this.db.inTransaction) {
      group.fail();
      return;
    }
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      // A COMMIT that fails (SQLITE_FULL, an I/O error) may leave the transaction open: undo it.
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      group.fail(error);
      return;
    }
    group.succeed();
    for (const listener of this.committedListeners) listener();
  }
}

/** What `work` gave: its value or what it threw. */
function attempt<T>(work: () => T): { value: T } | { error: unknown } {
  try {
    return { value: work() };
  } catch (error) {
    return { error };
  }
}
