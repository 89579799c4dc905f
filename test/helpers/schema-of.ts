import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { openDatabase } from '../../src/db/open-database.js';
import { copyReleaseFixture } from './fixtures.js';
import { makeDataDir } from './fixtures.js';

/**
 * Every table, index and trigger of the database in `dataDir` with its SQL, comments dropped,
 * white space collapsed and quoted names unquoted (SQLite quotes a table's name when a migration
 * renames it into place): equal for two databases whose schemas are the same.
 */
export function schemaOf(dataDir: string): string[] {
  const db = openDatabase(dataDir);
  try {
    const rows = db
      .prepare<[], { type: string; name: string; sql: string | null }>(
        "SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'",
      )
      .all();
    const normal = (sql: string | null) =>
      (sql ?? '')
        .replace(/--[^\n]*/g, '')
        .replace(/"(\w+)"/g, '$1')
        .replace(/\s+/g, ' ')
        .replace(/\s*([(),])\s*/g, '$1')
        .trim();
    return rows.map((row) => `${row.type} ${row.name}: ${normal(row.sql)}`).sort();
  } finally {
    db.close();
  }
}

/** Throws unless a copy of the release fixture `fixture`, upgraded by opening it, has exactly the schema of a new database. */
export function assertUpgradesToNewSchema(fixture: string): void {
  const upgraded = copyReleaseFixture(fixture);
  const fresh = makeDataDir();
  try {
    assert.deepEqual(schemaOf(upgraded), schemaOf(fresh));
  } finally {
    rmSync(upgraded, { recursive: true, force: true });
    rmSync(fresh, { recursive: true, force: true });
  }
}
