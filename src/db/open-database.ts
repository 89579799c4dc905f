import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrations.js';

export type Db = Database.Database;

/** Where a data directory keeps its database file. */
export const DATABASE_FILE = 'clinic.db';

/** How long a statement waits for another process's write lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

export interface OpenDatabaseOptions {
  /** A preloaded better-sqlite3 addon (the single executable ships its own); default: resolve from node_modules. */
  nativeBinding?: string | object;
}

/** better-sqlite3's constructor options for `options`: every connection this program makes uses them. */
export function driverOptions(options: OpenDatabaseOptions): Database.Options {
  return options.nativeBinding === undefined ? {} : { nativeBinding: options.nativeBinding as string };
}

/**
 * Opens (creating if needed) the database of a data directory, sets every connection pragma,
 * and brings the schema up to date. The one place a connection is made.
 */
export function openDatabase(dataDir: string, options: OpenDatabaseOptions = {}): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, DATABASE_FILE), driverOptions(options));
  try {
    // WAL lets the server read while a CLI command writes, and survives crashes with no
    // half-written pages.
    db.pragma('journal_mode = WAL');
    // FULL fsyncs the WAL on every commit: an acknowledged payment or patient must survive a
    // power cut, which NORMAL does not promise in WAL mode.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // The server and CLI commands share the file; wait for the other's write lock instead of
    // failing at once. Past this the request is answered 503 DATABASE_BUSY.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** The version of the SQLite library better-sqlite3 was built with (asks a throwaway in-memory database). */
export function sqliteVersion(options: OpenDatabaseOptions = {}): string {
  const db = new Database(':memory:', driverOptions(options));
  try {
    return (db.prepare('SELECT sqlite_version() AS version').get() as { version: string }).version;
  } finally {
    db.close();
  }
}

/**
 * Memoises a set of prepared statements per connection, so each SQL text is prepared once per
 * process instead of once per call.
 */
export function preparedFor<T>(prepare: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let statements = cache.get(db);
    if (statements === undefined) {
      statements = prepare(db);
      cache.set(db, statements);
    }
    return statements;
  };
}

/** SQLite result codes meaning another connection held the lock past busy_timeout. */
const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_LOCKED']);

/** Whether `error` is SQLite giving up on a lock another process holds (classified by code, not text). */
export function isDatabaseBusy(error: unknown): boolean {
  return error instanceof Database.SqliteError && BUSY_CODES.has(error.code);
}
