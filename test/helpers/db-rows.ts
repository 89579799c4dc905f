import assert from 'node:assert/strict';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';

/** Asserts that the schema refuses `write` with the SQLite result code `code` (SQLITE_CONSTRAINT_UNIQUE, SQLITE_CONSTRAINT_CHECK, …). */
export function assertSchemaRefuses(write: () => unknown, code: string, message?: string): void {
  assert.throws(write, (error) => sqliteErrorCode(error) === code, message);
}

/** The columns a row's update never writes: its name, the name's key and when the row was added. */
type Identity = { name: string; name_key: string; created_at: string };

/** Another identity, which an update tries to write and must not. */
const ANOTHER_IDENTITY: Identity = { name: 'Renamed', name_key: 'renamed', created_at: '2030-01-01T00:00:00.000Z' };

/**
 * Asserts that an update of a table's only row to `changed`, tried with ANOTHER_IDENTITY too,
 * writes every column of `changed` but keeps the row's identity as it was inserted, `kept`:
 * `update` writes a row, `read` reads it back.
 */
export function assertUpdateKeepsIdentity<Row extends Identity>(
  changed: Row,
  update: (row: Row) => void,
  read: () => Row | undefined,
  kept: Identity,
): void {
  const written = { ...changed, ...ANOTHER_IDENTITY };
  update(written);
  assert.deepEqual(read(), { ...written, ...kept, seq: 1 });
}
