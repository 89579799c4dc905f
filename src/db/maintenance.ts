import { preparedFor, type Db } from './open-database.js';

/** One row of PRAGMA foreign_key_check: a row of `table` whose reference into `parent` is dangling. */
export interface ForeignKeyViolation {
  table: string;
  rowid: number | null;
  parent: string;
  fkid: number;
}

/** What PRAGMA integrity_check reports, or an empty list when it says "ok". */
export function integrityProblems(db: Db): string[] {
  const messages = (db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check);
  return messages.length === 1 && messages[0] === 'ok' ? [] : messages;
}

/**
 * What PRAGMA quick_check reports (at most `limit` messages), or an empty list when it says "ok":
 * integrity_check without the comparison of every index with its table, which is most of its
 * cost. It reads every page, so a damaged page anywhere is found.
 */
export function quickCheckProblems(db: Db, limit = 10): string[] {
  const messages = (db.pragma(`quick_check(${Math.trunc(limit)})`) as { quick_check: string }[]).map((row) => row.quick_check);
  return messages.length === 1 && messages[0] === 'ok' ? [] : messages;
}

/** Every row PRAGMA foreign_key_check reports. */
export function foreignKeyViolations(db: Db): ForeignKeyViolation[] {
  return db.pragma('foreign_key_check') as ForeignKeyViolation[];
}

/**
 * Copies the database to `destination` with SQLite's online backup API: a consistent snapshot
 * even while the server or a CLI command writes. The whole copy is one step (one read
 * transaction), because a copy made in slices restarts whenever another connection writes in
 * between, and a busy server could keep it restarting.
 */
export async function backupDatabase(db: Db, destination: string): Promise<void> {
  await db.backup(destination);
}

/** Pages copied per step by backupDatabaseInSteps: 1 MiB of 4 KiB pages, a few milliseconds each. */
const PAGES_PER_STEP = 256;

/**
 * backupDatabase for the server, whose one thread answers every request: the copy is made 1 MiB
 * at a time with the event loop free in between (one step held it for 0.4–2.6 s on a 100 MB
 * database). `db` must be a connection of its own, idle otherwise: it holds one read
 * transaction from before the first step to after the last, so the copy is one snapshot, and in
 * WAL mode other connections' writes between steps neither enter it nor restart it. That read
 * spans awaits, unlike any other transaction here; it writes nothing and blocks no writer.
 */
export async function backupDatabaseInSteps(
  db: Db,
  destination: string,
  /** Told after each step the bytes copied and in all (pages times the page size). */
  onStep?: (copiedBytes: number, totalBytes: number) => void,
): Promise<void> {
  db.exec('BEGIN');
  try {
    // BEGIN is deferred: this first read is where the snapshot is taken.
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    const pageSize = Number(db.pragma('page_size', { simple: true }));
    await db.backup(destination, {
      pagesPerStep: PAGES_PER_STEP,
      ...(onStep === undefined ? {} : { onStep: (copied: number, total: number) => onStep(copied * pageSize, total * pageSize) }),
    });
  } finally {
    db.exec('COMMIT');
  }
}

const probeStatements = preparedFor((db) => ({
  // The schema's first page and a table's root: enough to find an unreadable file, cheap on any size.
  probe: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM (SELECT 1 FROM settings LIMIT 1)'),
}));

/** Reads a little of the database (GET /health): throws what SQLite throws when it cannot. */
export function probeDatabase(db: Db): void {
  probeStatements(db).probe.get();
}
