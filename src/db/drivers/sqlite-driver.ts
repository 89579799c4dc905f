/**
 * The part of a SQLite connection this program uses, and the driver that makes one. Two drivers
 * implement it (src/db/drivers): better-sqlite3, the faster, wherever its addon can be built, and
 * Node's built-in node:sqlite, which needs no addon and so runs clinic.exe on Windows (docs/design-choices.md,
 * "Windows and the two SQLite drivers"). Nothing outside src/db/drivers knows which one runs.
 */
import { betterSqlite3Driver } from './better-sqlite3.js';
import { nodeSqliteDriver } from './node-sqlite.js';

/** Positional parameters as an array, or named ones (`@name`) as an object. */
export type BindParameters = unknown[] | object;
type ArgumentsOf<P> = P extends unknown[] ? P : [P];

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

export interface Db {
  prepare<P extends BindParameters = unknown[], R = unknown>(sql: string): Statement<P, R>;
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
export const DRIVER_VARIABLE = 'CLINIC_SQLITE_DRIVER';

let chosen: SqliteDriver | undefined;

/** The driver CLINIC_SQLITE_DRIVER names, or undefined where it is unset or empty; any other name is refused. */
export function driverNamedInEnvironment(env: NodeJS.ProcessEnv = process.env): SqliteDriverName | undefined {
  const name = env[DRIVER_VARIABLE];
  if (name === undefined || name === '') return undefined;
  if (name === 'better-sqlite3' || name === 'node:sqlite') return name;
  throw new Error(`${DRIVER_VARIABLE} is "${name}"; it may be better-sqlite3 or node:sqlite`);
}

/** The driver named by CLINIC_SQLITE_DRIVER, or better-sqlite3 (from node_modules) by default. */
export function driverFromEnvironment(env: NodeJS.ProcessEnv = process.env): SqliteDriver {
  return driverNamedInEnvironment(env) === 'node:sqlite' ? nodeSqliteDriver() : betterSqlite3Driver();
}

/** Chooses the process's driver, once, at start-up (the single executable brings its own). */
export function useSqliteDriver(driver: SqliteDriver): void {
  chosen = driver;
}

/** The driver every connection of this process is made with. */
export function sqliteDriver(): SqliteDriver {
  chosen ??= driverFromEnvironment();
  return chosen;
}
