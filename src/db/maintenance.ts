import { preparedFor, type Db } from './open-database.js';

/** One row of PRAGMA foreign_key_check: a row of `table` whose reference into `parent` is dangling. */
export interface ForeignKeyViolation {
  table: string;
  rowid: number | null;
  parent: string;
  fkid: number;
}

// Prepared once per connection, never as throwaway statements (open-database.ts, `connections`).
const statements = preparedFor((db) => ({
  integrityCheck: db.prepare<[], string>('PRAGMA integrity_check').pluck(),
  foreignKeyCheck: db.prepare<[], ForeignKeyViolation>('PRAGMA foreign_key_check'),
}));

/** What PRAGMA integrity_check reports, or an empty list when it says "ok". */
export function integrityProblems(db: Db): string[] {
  const messages = statements(db).integrityCheck.all();
  return messages.length === 1 && messages[0] === 'ok' ? [] : messages;
}

/** Every row PRAGMA foreign_key_check reports. */
export function foreignKeyViolations(db: Db): ForeignKeyViolation[] {
  return statements(db).foreignKeyCheck.all();
}

/**
 * Copies the database to `destination` with SQLite's online backup API: a consistent snapshot
 * even while the server or a CLI command writes. The whole copy is one step (one read
 * transaction), because a copy made in slices restarts whenever another connection writes in
 * between, and a busy server could keep it restarting.
 */
export async function backupDatabase(db: Db, destination: string): Promise<void> {
  await db.backup(destination, { progress: () => 0x7fffffff });
}
