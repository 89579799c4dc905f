/**
 * The part of a SQLite connection this program uses, and what a driver that makes one offers
 * (sqlite-driver.ts chooses the driver; better-sqlite3.ts and node-sqlite.ts implement these).
 */
/** Positional parameters as an array, or named ones (`@name`) as an object. */
export type BindParameters = unknown[] | object;
/** A statement's parameters as its methods take them: positional ones spread, named ones as one object. */
export type ArgumentsOf<P> = P extends unknown[] ? P : [P];

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/** A prepared statement: `P` its parameters, `R` the shape of a row it reads. */
export interface Statement<P extends BindParameters = unknown[], R = unknown> {
  run(...params: ArgumentsOf<P>): RunResult;
  get(...params: ArgumentsOf<P>): R | undefined;
  all(...params: ArgumentsOf<P>): R[];
  /** Rows one at a time; no other statement may run on the connection until it is finished. */
  iterate(...params: ArgumentsOf<P>): IterableIterator<R>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a transaction passes on whatever its function takes
type AnyFunction = (...args: any[]) => unknown;

/**
 * `fn` run in a transaction: BEGIN (or BEGIN IMMEDIATE with `.immediate`) before, COMMIT after,
 * ROLLBACK if it throws; inside another transaction a SAVEPOINT instead. better-sqlite3's
 * semantics, which the node:sqlite driver reproduces.
 */
export type Transaction<F extends AnyFunction> = F & { immediate: F };

/** How Db.backup copies: one step unless `pagesPerStep`; `onStep` is told the pages copied and in all after each step. */
export interface BackupStepOptions {
  pagesPerStep?: number;
  onStep?: (copiedPages: number, totalPages: number) => void;
}

/** What prepares statements: a connection, or one that prepares each when it first runs (statements-when-run.ts). */
export interface StatementPreparer {
  prepare<P extends BindParameters = unknown[], R = unknown>(sql: string): Statement<P, R>;
  /**
   * A statement that reads each row as the array of its columns' values in the SELECT's order,
   * not as an object (row-builder.ts makes a wide row's object from it).
   */
  prepareArrays<P extends BindParameters = unknown[]>(sql: string): Statement<P, unknown[]>;
}

export interface Db extends StatementPreparer {
  exec(sql: string): void;
  /** `PRAGMA <source>`: its rows, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<F extends AnyFunction>(fn: F): Transaction<F>;
  /**
   * Copies the database to `destination` with SQLite's online backup API: in one step, or
   * `pagesPerStep` pages at a time with the event loop free in between; `onStep` is told after
   * each step how many pages are copied of how many.
   */
  backup(destination: string, options?: BackupStepOptions): Promise<void>;
  close(): void;
  readonly open: boolean;
  readonly inTransaction: boolean;
}

export type SqliteDriverName = 'better-sqlite3' | 'node:sqlite';

export interface SqliteDriver {
  readonly name: SqliteDriverName;
  /**
   * Opens (creating if needed) the database file at `path`; `busyTimeoutMs` is SQLite's wait for
   * a lock. `readOnly`: opens an existing file only, and never writes to it.
   */
  open(path: string, options?: { busyTimeoutMs?: number; readOnly?: boolean }): Db;
}

/** The variable that picks the driver where the program does not pick it itself (docs/design-choices.md, "Windows and the two SQLite drivers"). */
