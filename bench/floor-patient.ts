/**
 * A patient's columns with every default applied, computed once, for the benches that make the
 * program's INSERT without its validation (the same-SQL floor, the change event's in-process
 * measure): per patient only the id, times, names and contact fields change.
 */
import type { Db } from '../src/db/open-database.js';
import { insertPatient, type PatientRow } from '../src/db/patients.js';
import { newId, nowIso } from '../src/domain/clock.js';
import { normalizeFields } from '../src/domain/validation/values.js';
import { toColumn } from '../src/fields/columns.js';
import { PATIENT_INPUT_FIELDS, PATIENT_STORED_FIELDS } from '../src/fields/patient-fields.js';

const template: Record<string, unknown> = {};
const defaults = normalizeFields(PATIENT_INPUT_FIELDS, { first_name: 'A', last_name: 'B', email: 'a@b', mobile: '1' }, { timeZone: 'UTC' });
for (const spec of PATIENT_STORED_FIELDS) template[spec.name] = toColumn(spec, (defaults as Record<string, unknown>)[spec.name]);

/** The program's INSERT of a patient (insertPatient, with its read-back) with `body`'s names and contact fields. */
export function insertFloorPatient(db: Db, body: Record<string, unknown>): PatientRow {
  const now = nowIso();
  return insertPatient(db, {
    ...template,
    id: newId(),
    created_at: now,
    updated_at: now,
    first_name: String(body.first_name),
    last_name: String(body.last_name),
    email: String(body.email),
    mobile: String(body.mobile),
  });
}
