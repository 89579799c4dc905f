import { preparedFor, type Db } from './open-database.js';
import type { Statement } from './drivers/connection-types.js';
import { rowBuilder } from './row-builder.js';
import { PATIENT_READ_ONLY_FIELDS, PATIENT_STORED_FIELDS } from '../fields/patient-fields.js';

/** A `patients` row as SQLite returns it: the stored fields by name plus the bookkeeping columns. */
export interface PatientRow extends Record<string, unknown> {
  /** The row's key: creation order, and the number of patient_number. */
  seq: number;
  id: string;
  patient_number: string;
  is_active: number;
  created_at: string;
  updated_at: string;
  /** 1 at creation, +1 for each change (clinic-api-1.2.md). */
  version: number;
  /** When the patient was erased (1.3.0); null otherwise. */
  erased_at: string | null;
}

const STORED_COLUMNS = PATIENT_STORED_FIELDS.map((spec) => spec.name);
const SELECT_COLUMNS = [
  'seq',
  'id',
  'patient_number',
  'is_active',
  'created_at',
  'updated_at',
  'version',
  'erased_at',
  ...STORED_COLUMNS,
  ...PATIENT_READ_ONLY_FIELDS.map((spec) => spec.name),
];

const patientRowOf = rowBuilder<PatientRow>(SELECT_COLUMNS);

/** The patient read by `id` through byId, as its row object; undefined for no such patient. */
function readPatient(byId: Statement<[string], unknown[]>, id: string): PatientRow | undefined {
  const values = byId.get(id);
  return values === undefined ? undefined : patientRowOf(values);
}

// The column lists come from the field descriptions (constants), never from a request.
const statements = preparedFor((db) => ({
  insert: db.prepare<Record<string, unknown>>(
    `INSERT INTO patients (id, created_at, updated_at, ${STORED_COLUMNS.join(', ')})
     VALUES (@id, @created_at, @updated_at, ${STORED_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  ),
  // Read as arrays and made into objects by patientRowOf: a row of 95 columns (row-builder.ts says why).
  byId: db.prepareArrays<[string]>(`SELECT ${SELECT_COLUMNS.join(', ')} FROM patients WHERE id = ?`),
  exists: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM patients WHERE id = ?'),
  update: db.prepare<Record<string, unknown>>(
    `UPDATE patients SET is_active = @is_active, updated_at = @updated_at, version = version + 1,
       ${STORED_COLUMNS.map((c) => `${c} = @${c}`).join(', ')}
     WHERE id = @id`,
  ),
}));

/**
 * Stores a patient's changed columns (every stored column and is_active, keyed by name, with its
 * id and updated_at), counting its version up by one; returns the row as it now is.
 */
export function updatePatient(db: Db, columns: Record<string, unknown>): PatientRow {
  const { update, byId } = statements(db);
  update.run(columns);
  return readPatient(byId, columns.id as string)!;
}

/**
 * Inserts a patient from column values keyed by column name; returns the stored row. The insert
 * is `.run()` (which throws when its commit fails) and the row is read afterwards: see
 * open-database.ts on why this file never writes with RETURNING.
 */
export function insertPatient(db: Db, columns: Record<string, unknown>): PatientRow {
  const { insert, byId } = statements(db);
  insert.run(columns);
  return readPatient(byId, columns.id as string)!;
}

/** The patient with this id, or undefined. */
export function findPatient(db: Db, id: string): PatientRow | undefined {
  return readPatient(statements(db).byId, id);
}

/** Whether a patient with this id exists. */
export function patientExists(db: Db, id: string): boolean {
  return statements(db).exists.get(id) !== undefined;
}

// What a notification needs of a patient: read at a payment, beside the statements above.
const contactStatements = preparedFor((db) => ({
  contact: db.prepare<[string], PatientContactRow>('SELECT email, mobile, erased_at FROM patients WHERE id = ?'),
}));

/** How a patient can be reached. */
export interface PatientContactRow {
  email: string | null;
  mobile: string | null;
  /** An erased patient (1.3.0) is sent nothing. */
  erased_at: string | null;
}

/** A patient's email and mobile only: notifying needs no more than that (and no 2 MB avatar). */
export function findPatientContact(db: Db, id: string): PatientContactRow | undefined {
  return contactStatements(db).contact.get(id);
}
