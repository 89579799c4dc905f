import type { Db } from '../../db/open-database.js';
import type { AuditRecord } from '../audit/audit-event.js';
import { findPatient } from '../../db/patients.js';
import { PATIENT_PATH_FIELDS } from '../../fields/patient-fields.js';
import { errors } from '../../errors.js';
import { outstandingBalance } from '../invoices/outstanding-balance.js';
import { defineUseCase, performUseCase } from '../use-case.js';
import { fieldsValidator } from '../validation/validate.js';
import { presentPatient, type Patient } from './present-patient.js';
import { balanceFor, ROLE_ROWS } from '../people/roles.js';

const patientPath = fieldsValidator(PATIENT_PATH_FIELDS, 'path');

/** The id in a patient path, checked (422 uuid_parsing at ["path","patient_id"]) and lowercased. */
export function patientIdOf(patientId: unknown): string {
  return patientPath.parse({ patient_id: patientId }, { timeZone: 'UTC' }).patient_id;
}

/** The patient as it stands now, with its current balance (GET /patients/{patient_id}); 404 PATIENT_NOT_FOUND. */
export const READ_PATIENT = defineUseCase({
  roles: ROLE_ROWS.readPatients,
  summary: 'Read a patient',
  input: { path: PATIENT_PATH_FIELDS },
  refusals: [errors.patientNotFound(404)],
  access: 'read',
  run(db, { path }, caller): Patient {
    const row = findPatient(db, path.patient_id);
    if (!row) throw errors.patientNotFound();
    return balanceFor(presentPatient(row, outstandingBalance(db, row.id)), caller.roles);
  },
  audit: (patient) => patientReadRecords(patient),
});

/** What showing a patient's record records: one patient.read, whatever else is shown beside it (`clinic patient show`). */
export function patientReadRecords(patient: Pick<Patient, 'id'>): AuditRecord[] {
  return [{ action: 'patient.read', patientId: patient.id, subjectId: patient.id }];
}

/** READ_PATIENT on a connection of its own. */
export function readPatient(db: Db, patientId: unknown): Patient {
  return performUseCase(READ_PATIENT, db, { path: { patient_id: patientId } }, { source: 'cli', actor: null });
}

/**
 * The version a patient is at now (what If-Match names), or undefined when no patient has this
 * id: the desk's `patient edit` applies a change to the version it read (docs/design-choices.md,
 * "Editing at the desk: patients and keys").
 */
export function patientVersion(db: Db, patientId: string): number | undefined {
  return findPatient(db, patientId)?.version;
}
