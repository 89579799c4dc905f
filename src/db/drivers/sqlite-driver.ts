/**
 * The part of a SQLite connection this program uses, and the driver that makes one. Two drivers
 * implement it (src/db/drivers): better-sqlite3, the faster, wherever its addon can be built, and
 * Node's built-in node:sqlite, which needs no addon and so runs clinic.exe on Windows (docs/design-choices.md,
 * "Windows and the two SQLite drivers"). Nothing outside src/db/drivers knows which one runs.
 */
import { betterSqlite3Driver } from './better-sqlite3.js';
import { nodeSqliteDriver } from './node-sqlite.js';
import type { SqliteDriver, SqliteDriverName } from './connection-types.js';

export type {
  BackupStepOptions,
  BindParameters,
  Db,
  RunResult,
  SqliteDriver,
  SqliteDriverName,
  Statement,
  StatementPreparer,
  Transaction,
} from './connection-types.js';

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
