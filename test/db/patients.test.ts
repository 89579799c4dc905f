// The patients' table (clinic-public-api.md 2.1/2.2; clinic-api-1.2.md, "Versions"; decisions.md §3,
// human numbers): what an insert and an update store and give back, and what a notification reads.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { markPatientErased } from '../../src/db/erasure.js';
import type { Db } from '../../src/db/open-database.js';
import { findPatient, findPatientContact, insertPatient, patientExists, updatePatient } from '../../src/db/patients.js';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { PATIENT_STORED_FIELDS } from '../../src/fields/patient-fields.js';
import { createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/** The stored columns of a patient as the create use case makes them (builders' Ada Lovelace), with `overrides`. */
function storedColumns(db: Db, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const template = findPatient(db, createTestPatient(db).id)!;
  return { ...Object.fromEntries(PATIENT_STORED_FIELDS.map((spec) => [spec.name, template[spec.name]])), ...overrides };
}

const countPatients = (db: Db) => (db.prepare('SELECT count(*) AS n FROM patients').get() as { n: number }).n;

describe('patients (db)', () => {
  const data = useTestDatabase({ each: true });

  it('stores a new patient and gives back its row: the next number, version 1, active, not erased', () => {
    const columns = storedColumns(data.db, { first_name: 'Grace', last_name: 'Hopper', notes: 'prefers mornings' });
    const id = randomUUID();
    const row = insertPatient(data.db, { ...columns, id, created_at: '2026-11-30T08:00:00.000Z', updated_at: '2026-11-30T08:00:00.000Z' });
    assert.deepEqual(
      [row.id, row.seq, row.patient_number, row.version, row.is_active, row.erased_at, row.created_at, row.updated_at],
      [id, 2, 'P-000002', 1, 1, null, '2026-11-30T08:00:00.000Z', '2026-11-30T08:00:00.000Z'],
    );
    assert.deepEqual([row.first_name, row.last_name, row.notes, row.email], ['Grace', 'Hopper', 'prefers mornings', 'ada@example.org']);
    assert.deepEqual(findPatient(data.db, id), row);
  });

  it('reads a patient as the object of its columns, key for key what SELECT * names (a row read as an array and made into one)', () => {
    const patient = createTestPatient(data.db, { title: 'Dr.', notes: 'prefers mornings' });
    const selected = data.db.prepare<[string], Record<string, unknown>>('SELECT * FROM patients WHERE id = ?').get(patient.id)!;
    const row = findPatient(data.db, patient.id)!;
    assert.deepStrictEqual(Object.fromEntries(Object.entries(row).sort()), Object.fromEntries(Object.entries(selected).sort()));
    assert.equal(findPatient(data.db, randomUUID()), undefined);
  });

  it('refuses a second patient of an id and stores nothing of it', () => {
    const existing = createTestPatient(data.db);
    const columns = storedColumns(data.db, { last_name: 'Twice' });
    assert.throws(
      () => insertPatient(data.db, { ...columns, id: existing.id, created_at: 'now', updated_at: 'now' }),
      (error) => sqliteErrorCode(error) === 'SQLITE_CONSTRAINT_UNIQUE',
    );
    assert.equal(countPatients(data.db), 2);
    assert.equal(findPatient(data.db, existing.id)?.last_name, 'Lovelace');
  });

  it('counts the version up by one for each update and gives back the row as it now is; number and creation stay', () => {
    const created = findPatient(data.db, createTestPatient(data.db).id)!;
    const columns = storedColumns(data.db);
    const first = updatePatient(data.db, {
      ...columns,
      id: created.id,
      mobile: '+43 660 7654321',
      is_active: 1,
      updated_at: '2026-12-01T09:00:00.000Z',
    });
    const second = updatePatient(data.db, { ...columns, id: created.id, is_active: 0, updated_at: '2026-12-02T09:00:00.000Z' });
    assert.deepEqual([first.version, first.mobile, first.updated_at], [2, '+43 660 7654321', '2026-12-01T09:00:00.000Z']);
    assert.deepEqual(
      [second.version, second.is_active, second.mobile, second.updated_at],
      [3, 0, '+43 660 1234567', '2026-12-02T09:00:00.000Z'],
    );
    assert.deepEqual([second.patient_number, second.created_at, second.seq], [created.patient_number, created.created_at, created.seq]);
    assert.deepEqual(findPatient(data.db, created.id), second);
  });

  it("knows no patient by an id of none, and reads only a patient's email, mobile and whether erased for a notification", () => {
    const patient = createTestPatient(data.db, { email: 'grace@example.org', mobile: '+43 660 1111111' });
    const unknown = randomUUID();
    assert.equal(findPatient(data.db, unknown), undefined);
    assert.equal(patientExists(data.db, unknown), false);
    assert.equal(patientExists(data.db, patient.id), true);
    assert.equal(findPatientContact(data.db, unknown), undefined);
    assert.deepEqual(findPatientContact(data.db, patient.id), { email: 'grace@example.org', mobile: '+43 660 1111111', erased_at: null });
    markPatientErased(data.db, patient.id, '2026-12-01T10:00:00.000Z');
    assert.equal(findPatientContact(data.db, patient.id)?.erased_at, '2026-12-01T10:00:00.000Z');
  });
});
