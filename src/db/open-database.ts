import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { groupCommits } from './commit-groups.js';
import { migrate } from './migrations.js';
import { sqliteDriver, type Db } from './sqlite-driver.js';

export type { Db } from './sqlite-driver.js';

/** Where a data directory keeps its database file. */
export const DATABASE_FILE = 'clinic.db';

/** How long a statement waits for another process's write lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/** SQLite's companions of the database file in WAL mode; they hold patient data too. */
const COMPANION_SUFFIXES = ['-wal', '-shm'];

export interface OpenDatabaseOptions {
  /**
   * How a statement meets another process's write lock. `block` (default): SQLite waits up to
   * BUSY_TIMEOUT_MS inside the call, right for a one-shot command. `fail`: SQLITE_BUSY at once,
   * so that the server waits with timers (busy-wait.ts) and keeps answering other requests; the
   * schema migration at open still waits as `block` does.
   */
  busyWait?: 'block' | 'fail';
  /**
   * `each` (default): every transaction commits itself. `grouped`: the write transactions of one
   * turn of the event loop share a COMMIT (commit-groups.ts); for the server's connection, whose
   * callers wait for Db.afterCommit before they answer.
   */
  commits?: 'each' | 'grouped';
}

/**
 * Creates `path` readable and writable by this user only (0600), or takes an existing file down
 * to 0600. SQLite creates the -wal and -shm files with the mode of the database file, so they
 * follow; an existing one from an older program is narrowed here too. Windows has no such modes
 * (chmod there only sets the read-only flag): the data directory's access list does this work
 * (README, "Install on a Windows PC").
 *
 * An existing file is changed by its path, never opened: closing any descriptor of a database
 * file drops every POSIX lock this process holds on it, so a second connection opened in a
 * process (a test beside its in-process server) would strip the first of its locks, and a
 * command in another process could then checkpoint and remove the WAL under it (SQLite's "How To
 * Corrupt", 2.2). A new file has no connection yet, so creating it through a descriptor is safe.
 */
export function makePrivateFile(path: string): void {
  if (!existsSync(path)) {
    try {
      closeSync(openSync(path, 'wx', 0o600));
      return;
    } catch (error) {
      // Made meanwhile by another process: narrow it as an existing one.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
}

/**
 * Opens (creating if needed) the database of a data directory, sets every connection pragma,
 * and brings the schema up to date. The one place a connection is made.
 *
 * Writes in src/db never use `INSERT/UPDATE ... RETURNING` read with `.get()`: outside a
 * transaction the autocommit happens when better-sqlite3 resets the statement after its first
 * row, and an error there (SQLITE_FULL, an I/O error) is not thrown: the caller would
 * acknowledge a row that was never stored. A write is `.run()` (which throws whatever fails,
 * the commit included) followed by a read where the caller needs the row back
 * (test/db/no-returning.test.ts keeps it so).
 */
export function openDatabase(dataDir: string, options: OpenDatabaseOptions = {}): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, DATABASE_FILE);
  makePrivateFile(path);
  for (const suffix of COMPANION_SUFFIXES) if (existsSync(path + suffix)) makePrivateFile(path + suffix);
  const db = sqliteDriver().open(path);
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
    // The server waits asynchronously instead (untilCommitted): a synchronous wait would stop
    // every other request for as long.
    if (options.busyWait === 'fail') db.pragma('busy_timeout = 0');
  } catch (error) {
    db.close();
    throw error;
  }
  return options.commits === 'grouped' ? groupCommits(db) : db;
}

/** The version of the SQLite library the driver runs (asks a throwaway in-memory database). */
export function sqliteVersion(): string {
  const db = sqliteDriver().open(':memory:');
  try {
    return (db.prepare<[], { version: string }>('SELECT sqlite_version() AS version').get() as { version: string }).version;
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
