import { dirname, join } from 'node:path';
import { errors } from '../errors.js';
import { migrate, schemaVersionOf, SCHEMA_VERSION, SchemaTooNewError } from './migrations.js';
import { sqliteDriver, type Db, type StatementPreparer } from './drivers/sqlite-driver.js';
import { PreparingWhenRun } from './statements-when-run.js';
import {
  DATABASE_FILE,
  COMPANION_SUFFIXES,
  SQLITE_SUFFIXES,
  lstatIfPresent,
  refuseUnlessRegularFile,
  ensureDataDirectory,
  makeSharedFile,
} from './data-directory.js';

export type { Db } from './drivers/sqlite-driver.js';

/** How long a statement waits for another process's write lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/** Each connection's page cache, in KiB (`cache_size`; openDatabase says why this size). */
const PAGE_CACHE_KIB = 4000;

export interface OpenDatabaseOptions {
  /**
   * How a statement meets another process's write lock. `block` (default): SQLite waits up to
   * BUSY_TIMEOUT_MS inside the call, right for a one-shot command. `fail`: SQLITE_BUSY at once,
   * so that the server waits with timers (src/server/writes/commit-groups.ts) and keeps answering other
   * requests; the schema migration at open still waits as `block` does.
   */
  busyWait?: 'block' | 'fail';
  /**
   * Whether a 0-byte clinic.db is given a schema (`clinic init` only). Otherwise it is refused
   * (DATABASE_EMPTY) and left as it is: an empty file is no clinic database, and a read command
   * that quietly made it one would hide that the clinic's data is gone.
   */
  initialiseEmpty?: boolean;
  /**
   * What a database of an older schema (made by an older program) meets. `migrate` (default):
   * brought up to date at once, as `serve`, `init` and `restore` do. `refuse`:
   * SCHEMA_UPGRADE_REQUIRED before anything is written, as every other desk command does, so
   * that a `patient find` never changes the file under an older program that may still run it.
   * `keep`: opened as it is, for `clinic upgrade` and `serve`, which back it up before they
   * migrate (a new database is still given its schema).
   */
  olderSchema?: 'migrate' | 'refuse' | 'keep';
  /**
   * When the statements a module of src/db declares (preparedFor) are prepared. `when-run`
   * (default): each at its first run, right for a one-shot command, which runs a few of the
   * dozens its modules declare (statements-when-run.ts). `ahead`: all of a module's at its first
   * use, and the driver's own statements run with nothing between: the server, which runs each
   * thousands of times.
   */
  statements?: 'when-run' | 'ahead';
}

/** The connections whose modules' statements are prepared ahead (OpenDatabaseOptions.statements). */
const preparingAhead = new WeakSet<Db>();

/** The data directory `db` was opened from: the folder of its main file, as SQLite names it. */
export function dataDirectoryOf(db: Db): string {
  const files = db.pragma('database_list') as { name: string; file: string }[];
  return dirname(files.find((file) => file.name === 'main')!.file);
}

/**
 * Opens (creating if needed) the database of a data directory, sets every connection pragma,
 * and brings the schema up to date. The one place a connection is made. The directory is
 * checked first (inspectDataDirectory): a hostile `--data` or a link planted in it is a coded
 * refusal naming the path, and a 0-byte clinic.db is refused unless `initialiseEmpty`.
 *
 * Writes in src/db never use `INSERT/UPDATE ... RETURNING` read with `.get()`: outside a
 * transaction the autocommit happens when better-sqlite3 resets the statement after its first
 * row, and an error there (SQLITE_FULL, an I/O error) is not thrown: the caller would
 * acknowledge a row that was never stored. A write is `.run()` (which throws whatever fails,
 * the commit included) followed by a read where the caller needs the row back
 * (test/db/no-returning.test.ts keeps it so).
 */
export function openDatabase(dataDir: string, options: OpenDatabaseOptions = {}): Db {
  const path = join(dataDir, DATABASE_FILE);
  if (ensureDataDirectory(dataDir) === 'empty' && options.initialiseEmpty !== true) throw errors.databaseEmpty(path);
  makeSharedFile(path);
  for (const suffix of COMPANION_SUFFIXES) if (lstatIfPresent(path + suffix) !== undefined) makeSharedFile(path + suffix);
  const db = sqliteDriver().open(path);
  try {
    // Read before any pragma that writes (journal_mode): a refused database is left byte for byte as it was.
    if (options.olderSchema === 'refuse') refuseOlderSchema(db, dataDir);
    // WAL lets the server read while a CLI command writes, and survives crashes with no
    // half-written pages.
    db.pragma('journal_mode = WAL');
    // A link planted between the checks above and SQLite's own opens is caught here, before
    // anything is written through it.
    for (const file of [path, ...SQLITE_SUFFIXES.map((suffix) => path + suffix)]) refuseUnlessRegularFile(file);
    // The connection's settings, in one call: each pragma on its own was a statement prepared and
    // run, which every desk command paid for again at its start.
    // - synchronous FULL fsyncs the WAL on every commit: an acknowledged payment or patient must
    //   survive a power cut, which NORMAL does not promise in WAL mode.
    // - temp_store MEMORY: the server runs each request's writes in a SAVEPOINT of its commit group;
    //   the pages a savepoint changes are journaled, to a temporary file past 64 KiB unless temporary
    //   storage is memory, and a booking with its reminders crossed that line (docs/design-choices.md,
    //   "What planning costs").
    // - cache_size: 4 MB of cached pages, not better-sqlite3's 16 (node:sqlite's SQLite has 2). When
    //   an insert splits a B-tree page, SQLite renumbers the new pages through the number of the page
    //   at 1 GiB, and a COMMIT then drops from the cache every page past the database's end by walking
    //   the cache's whole hash table while the database is smaller than that: at 16 MB, 4,096 slots
    //   and about 3,900 pages for each commit group with a split, 3 % of the server's CPU under POST
    //   /patients. At 4 MB the server spent 0.87-1.00x the CPU per answer on the writes and the
    //   audited read and held 12 MiB less memory (docs/benchmarks.md, issue 43).
    // - busy_timeout: the server and CLI commands share the file; wait for the other's write lock
    //   instead of failing at once. Past this the request is answered 503 DATABASE_BUSY.
    db.exec(
      `PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; ` +
        `PRAGMA cache_size = -${PAGE_CACHE_KIB}; PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS};`,
    );
    // `keep` leaves an older schema as it is, but a new file (version 0) still gets its schema.
    if (options.olderSchema === 'keep' && schemaVersionOf(db) > 0) refuseNewerSchema(db);
    else migrate(db);
    // The server waits asynchronously instead (src/server/writes/commit-groups.ts): a synchronous wait would stop
    // every other request for as long.
    if (options.busyWait === 'fail') db.pragma('busy_timeout = 0');
    if (options.statements === 'ahead') preparingAhead.add(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** SCHEMA_UPGRADE_REQUIRED for a database an older program made (a schema, older than this program's). */
function refuseOlderSchema(db: Db, dataDir: string): void {
  const found = schemaVersionOf(db);
  if (found > 0 && found < SCHEMA_VERSION) throw errors.schemaUpgradeRequired(found, SCHEMA_VERSION, dataDir);
}

/** DATABASE_TOO_NEW (through SchemaTooNewError) for a database a newer program made, which no command of this one may open. */
function refuseNewerSchema(db: Db): void {
  const found = schemaVersionOf(db);
  if (found > SCHEMA_VERSION) throw new SchemaTooNewError(found, SCHEMA_VERSION);
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
 * connection instead of once per call: when each first runs, or all at once on a connection
 * opened to prepare them ahead (OpenDatabaseOptions.statements).
 */
export function preparedFor<T>(prepare: (db: StatementPreparer) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let statements = cache.get(db);
    if (statements === undefined) {
      statements = prepare(preparingAhead.has(db) ? db : new PreparingWhenRun(db));
      cache.set(db, statements);
    }
    return statements;
  };
}
