import assert from 'node:assert/strict';
import type { Db } from '../../src/db/drivers/sqlite-driver.js';
import { columnsOf, rowsOf } from './release-database.js';

// An upgrade keeps every row an old release wrote: the tables as they were, compared with what
// the same columns hold after this program opened the data directory.

/**
 * The clinic's tables in a data directory of release 1.2 (schemas 5 and 6: the change feed and
 * webhooks) but for api_keys and audit_events, which each upgrade test names as it needs them.
 */
export const RELEASE_1_2_TABLES = [
  'settings',
  'doctors',
  'services',
  'patients',
  'appointments',
  'invoices',
  'payments',
  'refunds',
  'documents',
  'change_events',
  'webhook_endpoints',
];

/** Tables by name: the columns each had and every row of them. */
export type TableContents = Record<string, { columns: string[]; rows: unknown[] }>;

/** Every row of each of `tables` of `db`, with the columns it has. */
export function contentsOf(db: Db, tables: readonly string[]): TableContents {
  return Object.fromEntries(
    tables.map((table) => {
      const columns = columnsOf(db, table);
      return [table, { columns, rows: rowsOf(db, table, columns) }];
    }),
  );
}

/** Asserts that `db` holds every row of `before` as it was, in the columns it had then. */
export function assertKeptEveryRow(db: Db, before: TableContents): void {
  for (const [table, { columns, rows }] of Object.entries(before)) {
    const now = rowsOf(db, table, columns);
    // The test server has made its own key ('test') after the old ones.
    assert.deepEqual(table === 'api_keys' ? now.slice(0, rows.length) : now, rows, table);
  }
}
