import type { Db } from '../../db/open-database.js';
import { insertPatientSearchTerms } from '../../db/patient-search.js';
import { insertPatient } from '../../db/patients.js';
import { toColumn } from '../../fields/columns.js';
import { PATIENT_INPUT_FIELDS, PATIENT_STORED_FIELDS } from '../../fields/patient-fields.js';
import { newId, nowIso } from '../clock.js';
import { errors } from '../errors.js';
import { NOTHING_OWED } from '../invoices/outstanding-balance.js';
import { clinicTimeZone } from '../settings.js';
import { fieldsValidator } from '../validation/validate.js';
import { presentPatient, type Patient } from './present-patient.js';
import { patientPhoneDigits, patientSearchTerms } from '../../fields/search-terms.js';

const patientInput = fieldsValidator(PATIENT_INPUT_FIELDS, 'body');

const isBlank = (value: string | null) => value === null || value.trim() === '';

/** How a patient must be reachable (PATIENT_CONTACT_REQUIRED): fields the schema lets be absent. */
export const PATIENT_CONTACT_FIELDS = ['email', 'mobile'] as const;

/**
 * Creates a patient (POST /patients, `clinic create-patient`). Schema first, every failing
 * field at once; then the rule that a patient needs both an email and a mobile number
 * (absent, null and blank all count as missing).
 */
export function createPatient(db: Db, input: unknown): Patient {
  const values = patientInput.parse(input, { timeZone: clinicTimeZone(db) });
  if (PATIENT_CONTACT_FIELDS.some((name) => isBlank(values[name]))) throw errors.patientContactRequired();

  const now = nowIso();
  const columns: Record<string, unknown> = { id: newId(), created_at: now, updated_at: now };
  const byName: Readonly<Record<string, unknown>> = values;
  for (const spec of PATIENT_STORED_FIELDS) columns[spec.name] = toColumn(spec, byName[spec.name]);
  // The patient and its search terms are stored together or not at all.
  const row = db
    .transaction(() => {
      const inserted = insertPatient(db, columns);
      insertPatientSearchTerms(
        db,
        { seq: inserted.seq, last_name: values.last_name, first_name: values.first_name },
        patientSearchTerms(values),
        patientPhoneDigits(values),
      );
      return inserted;
    })
    .immediate();
  // A patient created a moment ago has no invoices: not asked of the database (7–11 µs of an
  // answer's CPU, bench/README.md).
  return presentPatient(row, NOTHING_OWED);
}
