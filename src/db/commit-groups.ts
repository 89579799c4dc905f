import type { BindParameters, Db, Statement, Transaction } from './sqlite-driver.js';

/**
 * Group commit for the server's connection: the write transactions of requests that arrive
 * together share one COMMIT, and so one fsync of the WAL, instead of one each (docs/decisions.md,
 * "Storage faults": group commit; bench/README.md for the figures).
 *
 * The first `db.transaction(fn).immediate()` opens a group: BEGIN IMMEDIATE, and a COMMIT
 * scheduled with setImmediate, which runs once the event loop has handled every request that was
 * waiting on a socket. Each transaction of a request then runs as a SAVEPOINT inside the group,
 * so a request that fails still undoes its own writes and only those. Nothing is acknowledged
 * before the COMMIT: `afterCommit` holds back the outcome of whatever ran while a group was open
 * (its value, its refusal, or its read of rows the group wrote) until the group is committed, and
 * when the COMMIT fails every one of them gets that failure (507 STORAGE_FULL, 500) instead, as a
 * lone transaction's failed COMMIT would. The group holds the write lock from its first write to
 * its COMMIT, one turn of the event loop, so a CLI command waits no longer than for one request.
 *
 * A transaction outside a group that is not `.immediate` (a read that wants one snapshot) runs on
 * its own, as it would without groups; inside an open group it becomes a SAVEPOINT like the rest.
 */
class CommitGroup {
  readonly committed: Promise<void>;
  resolve!: () => void;
  reject!: (error: unknown) => void;
  /** The error that made SQLite roll the group's transaction back before its COMMIT. */
  failure: unknown;

  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // A group nobody waits for (every member failed on its own) must not end the process.
    this.committed.catch(() => {});
  }
}

/** Thrown to the members of a group whose transaction SQLite rolled back without saying why. */
class CommitGroupLost extends Error {
  constructor() {
    super('the transaction of this commit group was rolled back by SQLite before it could be committed');
  }
}

class GroupCommitConnection implements Db {
  private group: CommitGroup | undefined;

  constructor(private readonly db: Db) {}

  prepare<P extends BindParameters = unknown[], R = unknown>(sql: string): Statement<P, R> {
    return this.db.prepare<P, R>(sql);
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  pragma(source: string, options?: { simple?: boolean }): unknown {
    return this.db.pragma(source, options);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as Transaction's
  transaction<F extends (...args: any[]) => unknown>(fn: F): Transaction<F> {
    // Inside the group's BEGIN, the driver makes this a SAVEPOINT (better-sqlite3's semantics).
    const own = this.db.transaction(fn);
    const grouped = ((...args: Parameters<F>) => {
      this.joinGroup();
      return own(...args);
    }) as F;
    return Object.assign(((...args: Parameters<F>) => own(...args)) as F, { immediate: grouped });
  }

  /** Opens a group unless one is open; a group SQLite rolled back is failed first. */
  private joinGroup(): void {
    const open = this.group;
    if (open !== undefined) {
      if (this.db.inTransaction) return;
      this.group = undefined;
      open.reject(open.failure ?? new CommitGroupLost());
    }
    // SQLITE_BUSY here (another process writes) joins nothing: the caller's retry opens the group.
    this.db.exec('BEGIN IMMEDIATE');
    const group = new CommitGroup();
    this.group = group;
    setImmediate(() => this.commit(group));
  }

  private commit(group: CommitGroup): void {
    if (this.group !== group) return;
    this.group = undefined;
    if (!this.db.inTransaction) {
      group.reject(group.failure ?? new CommitGroupLost());
      return;
    }
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      // A COMMIT that fails (SQLITE_FULL, an I/O error) may leave the transaction open: undo it.
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      group.reject(error);
      return;
    }
    group.resolve();
  }

  afterCommit<T>(work: () => T): T | Promise<T> {
    let value: T;
    try {
      value = work();
    } catch (error) {
      const group = this.group;
      if (group === undefined) throw error;
      // An error that ended the group's transaction (SQLITE_FULL, an I/O error) is every member's.
      if (!this.db.inTransaction) group.failure ??= error;
      return group.committed.then(() => Promise.reject(error as Error));
    }
    const group = this.group;
    return group === undefined ? value : group.committed.then(() => value);
  }

  backup(destination: string): Promise<void> {
    return this.db.backup(destination);
  }

  close(): void {
    // A group still open is committed first: its members are waiting to be answered.
    if (this.group !== undefined) this.commit(this.group);
    this.db.close();
  }

  get open(): boolean {
    return this.db.open;
  }

  get inTransaction(): boolean {
    return this.db.inTransaction;
  }
}

/** `db` with group commit (see above): for the server's connection, which many requests share. */
export function groupCommits(db: Db): Db {
  return new GroupCommitConnection(db);
}
