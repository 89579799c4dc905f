import type { Db } from './open-database.js';

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
