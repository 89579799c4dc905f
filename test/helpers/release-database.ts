import { join } from 'node:path';
import { sqliteDriver, type Db } from '../../src/db/drivers/sqlite-driver.js';

// The upgrade tests read a release's data directory as it is, before and after this program opens it.

/** The database of `dataDir` through a connection of its own, as the driver under test opens it (no migration). */
export function readDatabase<T>(dataDir: string, read: (db: Db) => T): T {
  const db = sqliteDriver().open(join(dataDir, 'clinic.db'));
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** The columns of `table`, in their order. */
export const columnsOf = (db: Db, table: string) =>
  (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[]).map((column) => column.name);

/** Every row of `table`, in rowid order (the audit trail, a view since schema 7, by seq), with only `columns` (those the old release had). */
export const rowsOf = (db: Db, table: string, columns: readonly string[]) =>
  db.prepare(`SELECT ${columns.join(', ')} FROM ${table} ORDER BY ${table === 'audit_events' ? 'seq' : 'rowid'}`).all();
