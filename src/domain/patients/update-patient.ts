import { replacePatientSearchTerms } from '../../db/patient-search.js';
import { findPatient, updatePatient, type PatientRow } from '../../db/patients.js';
import { fromColumn, toColumn } from '../../fields/columns.js';
import { IF_MATCH_HEADER_FIELDS, PATIENT_PATCH_FIELDS, PATIENT_PATH_FIELDS, PATIENT_STORED_FIELDS } from '../../fields/patient-fields.js';
import { patientPhoneDigits, patientSearchTerms } from '../../fields/search-terms.js';
import { nowIso } from '../clock.js';
import { errors } from '../../errors.js';
import { outstandingBalance } from '../invoices/outstanding-balance.js';
import { defineUseCase } from '../use-case.js';
import { requireContactAfterPatch } from './contact-rule.js';
import { matchesIfMatch, namesNoEntityTag } from '../if-match.js';
import { presentPatient, type Patient } from './present-patient.js';
import { balanceFor, ROLE_ROWS } from '../people/roles.js';

/** A patient after a patch, and the names of the fields whose stored value changed (sorted). */
export interface UpdatedPatient {
  patient: Patient;
  changed: string[];
}

/** What a patient is found by: a change to one of these rewrites its search terms. */
const SEARCHED_FIELDS = new Set(['first_name', 'last_name', 'date_of_birth', 'email', 'phone', 'mobile']);

/** The stored columns of `row` with `patch` merged in (RFC 7396), and the names of the fields whose value changes. */
function mergedColumns(row: PatientRow, patch: Readonly<Record<string, unknown>>): { columns: Record<string, unknown>; changed: string[] } {
  const columns: Record<string, unknown> = { id: row.id, is_active: row.is_active };
  const changed: string[] = [];
  for (const spec of PATIENT_STORED_FIELDS) {
    const stored = row[spec.name];
    columns[spec.name] = stored;
    if (!(spec.name in patch)) continue;
    let value = patch[spec.name];
    // An object is a patch of its own: the keys it names over those stored.
    if (spec.kind === 'object') value = { ...(fromColumn(spec, stored) as object), ...(value as object) };
    const column = toColumn(spec, value);
    if (column !== stored) {
      columns[spec.name] = column;
      changed.push(spec.name);
    }
  }
  if (patch.is_active !== undefined) {
    const active = patch.is_active ? 1 : 0;
    if (active !== row.is_active) {
      columns.is_active = active;
      changed.push('is_active');
    }
  }
  return { columns, changed };
}

/**
 * Changes a patient (PATCH /patients/{patient_id}, `clinic patient edit`): a JSON merge patch of
 * its fields and `is_active`, checked as a new patient's are. In one IMMEDIATE transaction: the
 * patient (404), the version If-Match names (412), the clinic's contact rule (an email or mobile
 * cleared so that the patient breaks it: PATIENT_CONTACT_REQUIRED), then the write, which counts the version up and
 * rewrites what the patient is found by. A patch that changes no value writes nothing and keeps
 * version and updated_at.
 */
export const UPDATE_PATIENT = defineUseCase({
  roles: ROLE_ROWS.editPatients,
  summary: 'Change a patient',
  input: { path: PATIENT_PATH_FIELDS, header: IF_MATCH_HEADER_FIELDS, body: PATIENT_PATCH_FIELDS },
  mergePatch: true,
  refusals: [errors.patientNotFound(404), errors.preconditionFailed(2), errors.patientContactRequired()],
  access: 'read-then-write',
  run(db, { path, header, body }, caller): UpdatedPatient {
    const row = findPatient(db, path.patient_id);
    if (row === undefined) throw errors.patientNotFound();
    const ifMatch = header['if-match'];
    if (!matchesIfMatch(ifMatch, row.version))
      throw errors.preconditionFailed(row.version, ifMatch !== undefined && namesNoEntityTag(ifMatch) ? ifMatch : undefined);
    const patch: Readonly<Record<string, unknown>> = body;
    requireContactAfterPatch(db, row, patch);
    const { columns, changed } = mergedColumns(row, patch);
    if (changed.length === 0) return { patient: balanceFor(presentPatient(row, outstandingBalance(db, row.id)), caller.roles), changed };
    const updated = updatePatient(db, { ...columns, updated_at: nowIso() });
    if (changed.some((name) => SEARCHED_FIELDS.has(name))) {
      replacePatientSearchTerms(
        db,
        { seq: updated.seq, last_name: updated.last_name as string, first_name: updated.first_name as string },
        patientSearchTerms(updated),
        patientPhoneDigits(updated),
      );
    }
    return { patient: balanceFor(presentPatient(updated, outstandingBalance(db, updated.id)), caller.roles), changed: changed.sort() };
  },
  // A patch that changes nothing commits no change, so no event; its audit record is kept.
  changes: ({ patient, changed }) =>
    changed.length === 0
      ? []
      : [{ type: 'patient.updated', patientId: patient.id, data: { patient_number: patient.patient_number, changed } }],
  // A patch that changes nothing is recorded too, with `changed: []` (clinic-api-1.2.md).
  audit: ({ patient, changed }) => [{ action: 'patient.update', patientId: patient.id, subjectId: patient.id, detail: { changed } }],
});
