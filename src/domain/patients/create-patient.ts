import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import type { Db } from '../../db/open-database.js';
import { insertPatientSearchTerms } from '../../db/patient-search.js';
import { insertPatient } from '../../db/patients.js';
import { toColumn } from '../../fields/columns.js';
import { PATIENT_INPUT_FIELDS, PATIENT_STORED_FIELDS } from '../../fields/patient-fields.js';
import { newId, nowIso } from '../clock.js';
import { errors } from '../../errors.js';
import { NOTHING_OWED } from '../invoices/outstanding-balance.js';
import { defineUseCase, performUseCase } from '../use-case.js';
import { presentPatient, type Patient } from './present-patient.js';
import { patientPhoneDigits, patientSearchTerms } from '../../fields/search-terms.js';
import { requireContactByRule } from './contact-rule.js';
import { ROLE_ROWS } from '../people/roles.js';

/**
 * Creates a patient (POST /patients, `clinic create-patient`). Schema first, every failing
 * field at once; then the clinic's contact rule (contact-rule.ts: by default both an email and a
 * mobile number; absent, null and blank all count as missing). The patient and its search terms
 * are one transaction: stored together or not at all.
 */
export const CREATE_PATIENT = defineUseCase({
  roles: ROLE_ROWS.createPatients,
  summary: 'Create a patient',
  input: { header: IDEMPOTENCY_HEADER_FIELDS, body: PATIENT_INPUT_FIELDS },
  answersOnce: { operation: 'createPatient', status: 201, what: 'patient' },
  refusals: [errors.patientContactRequired(), errors.idempotencyKeyReused()],
  access: 'write',
  run(db, { body: values }): Patient {
    requireContactByRule(db, values);
    const now = nowIso();
    const columns: Record<string, unknown> = { id: newId(), created_at: now, updated_at: now };
    const byName: Readonly<Record<string, unknown>> = values;
    for (const spec of PATIENT_STORED_FIELDS) columns[spec.name] = toColumn(spec, byName[spec.name]);
    const row = insertPatient(db, columns);
    insertPatientSearchTerms(
      db,
      { seq: row.seq, last_name: values.last_name, first_name: values.first_name },
      patientSearchTerms(values),
      patientPhoneDigits(values),
    );
    // A patient created a moment ago has no invoices: not asked of the database (7–11 µs of an
    // answer's CPU, docs/benchmarks.md).
    return presentPatient(row, NOTHING_OWED);
  },
  changes: (patient) => [{ type: 'patient.created', patientId: patient.id, data: { patient_number: patient.patient_number } }],
  audit: (patient) => [{ action: 'patient.create', patientId: patient.id, subjectId: patient.id }],
});

/** CREATE_PATIENT on a connection of its own (performUseCase). */
export function createPatient(db: Db, body: unknown): Patient {
  return performUseCase(CREATE_PATIENT, db, { body }, { source: 'cli', actor: null });
}
