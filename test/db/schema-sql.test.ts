import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { join } from 'node:path';
import { openDatabase } from '../../src/db/open-database.js';
import { DATABASE_FILE } from '../../src/db/data-directory.js';
import { sqliteDriver } from '../../src/db/drivers/sqlite-driver.js';
import { SCHEMA_VERSION } from '../../src/db/migrations.js';
import { PATIENT_READ_ONLY_FIELDS, PATIENT_STORED_FIELDS } from '../../src/fields/patient-fields.js';
import { useDataDirs } from '../helpers/fixtures.js';

const newDir = useDataDirs();

describe('database', () => {
  it('has one patients column per stored patient field, and no other field columns', () => {
    const db = openDatabase(newDir());
    const columns = (db.prepare("SELECT name FROM pragma_table_xinfo('patients')").all() as { name: string }[]).map((c) => c.name);
    const bookkeeping = ['seq', 'id', 'patient_number', 'is_active', 'created_at', 'updated_at', 'version', 'erased_at'];
    const fields = [...PATIENT_STORED_FIELDS, ...PATIENT_READ_ONLY_FIELDS].map((f) => f.name);
    // In any order: a field added later (1.3.0's reminders_opt_out) is a column added at the end.
    assert.deepEqual(columns.filter((c) => !bookkeeping.includes(c)).sort(), fields.sort());
    db.close();
  });

  it('sets WAL, FULL sync, foreign keys, a busy timeout and a page cache of 4 MB on every connection, whichever the driver', () => {
    const db = openDatabase(newDir());
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(db.pragma('synchronous', { simple: true }), 2);
    assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
    assert.ok((db.pragma('busy_timeout', { simple: true }) as number) >= 1000);
    assert.equal(db.pragma('cache_size', { simple: true }), -4000);
    db.close();
  });

  it('marks a new database with the current schema version and reopens it unchanged', () => {
    const dir = newDir();
    openDatabase(dir).close();
    const db = openDatabase(dir);
    assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    db.close();
  });

  it('refuses a database written by a newer program', () => {
    const dir = newDir();
    openDatabase(dir).close();
    const raw = sqliteDriver().open(join(dir, DATABASE_FILE));
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    assert.throws(() => openDatabase(dir), /newer than this program/);
  });
});
