import { CREATE_PATIENT } from '../../domain/patients/create-patient.js';
import { FIND_PATIENTS } from '../../domain/patients/find-patients.js';
import { READ_PATIENT } from '../../domain/patients/read-patient.js';
import { UPDATE_PATIENT } from '../../domain/patients/update-patient.js';
import { EXPORT_PATIENT, openPatientExport } from '../../domain/patient-export/export-patient.js';
import { versionTag } from '../../domain/if-match.js';
import type { Patient } from '../../domain/patients/present-patient.js';
import * as examples from '../openapi/examples.js';
import { useCaseOperation, type Operation } from '../api/operation.js';

/** The patient's version as its ETag, which a PATCH may name in If-Match. */
const ETAG_HEADER = {
  ETag: { description: 'The patient\'s version, `"<version>"`: send it as If-Match with a PATCH', schema: { type: 'string' } },
};

/** The answer of a single patient: its version as the ETag, and the patient. */
function withVersionTag(ctx: { set(name: string, value: string): void }, patient: Patient): Patient {
  ctx.set('ETag', versionTag(patient.version));
  return patient;
}

/** POST /patients; GET /patients and GET /patients/{patient_id} (1.1.0); PATCH /patients/{patient_id} (1.2.0); GET /patients/{patient_id}/export (1.3.0). */
export const patientOperations: readonly Operation[] = [
  useCaseOperation(CREATE_PATIENT, {
    method: 'post',
    path: '/patients',
    operationId: 'createPatient',
    description: 'The returned `id` is used to book appointments and upload documents.',
    tag: 'patients',
    scope: 'patients:write',
    bodyExample: examples.patientInputExample,
    result: { kind: 'model', status: 201, model: 'Patient', description: 'The patient was created', example: examples.patientExample },
  }),
  useCaseOperation(FIND_PATIENTS, {
    method: 'get',
    path: '/patients',
    operationId: 'findPatients',
    description:
      'Every word of `q` must match. Ordered by last name, first name and patient number; without `q`, every patient in that order.',
    tag: 'patients',
    scope: 'patients:read',
    result: {
      kind: 'model',
      status: 200,
      model: 'PatientSummary',
      paged: true,
      description: 'One page of the matching patients',
      example: examples.patientSummaryListExample,
    },
  }),
  useCaseOperation(READ_PATIENT, {
    method: 'get',
    path: '/patients/{patient_id}',
    operationId: 'getPatient',
    description: 'The patient as it stands now, with the current outstanding balance.',
    tag: 'patients',
    scope: 'patients:read',
    result: {
      kind: 'model',
      status: 200,
      model: 'Patient',
      description: 'The patient',
      example: examples.patientExample,
      headers: ETAG_HEADER,
    },
    answer: withVersionTag,
  }),
  useCaseOperation(UPDATE_PATIENT, {
    method: 'patch',
    path: '/patients/{patient_id}',
    operationId: 'updatePatient',
    description:
      'A JSON merge patch (RFC 7396): a field present sets its value, `null` clears a nullable one, an absent one stays. ' +
      'A patch that changes a value counts `version` up by one; one that changes nothing answers the patient as it is. ' +
      'With If-Match naming another version than the stored one: 412, nothing changed.',
    tag: 'patients',
    scope: 'patients:write',
    bodyExample: examples.patientPatchExample,
    result: {
      kind: 'model',
      status: 200,
      model: 'Patient',
      description: 'The patient as it now stands',
      example: examples.patientExample,
      headers: ETAG_HEADER,
    },
    answer: (ctx, { patient }) => withVersionTag(ctx, patient),
  }),
  useCaseOperation(EXPORT_PATIENT, {
    method: 'get',
    path: '/patients/{patient_id}/export',
    operationId: 'exportPatient',
    description:
      "The patient's copy of their data (GDPR Art. 15, 20): a ZIP streamed as it is made, so no Content-Length. " +
      "It holds `README.txt`, `bundle.json` (a FHIR R4 Bundle), `records/` (every record in this API's shapes), the original documents under `documents/`, " +
      '`access-log.json`, `recipients.json`, `summary.html` and, last, `manifest.json` with the SHA-256 of every file. ' +
      'Before the first byte every document file is checked (a missing one: 500 `STORAGE_FAILED`) and `patient.export` is recorded. ' +
      'A document whose bytes no longer match their SHA-256 cuts the archive before its end: a ZIP without its central directory is no copy.',
    tag: 'patients',
    scope: 'patients:export',
    result: {
      kind: 'download',
      description: 'The ZIP, named `attachment; filename="P-000042-2026-11-30.zip"`',
      made: { mediaType: 'application/zip', example: '(the ZIP archive)' },
    },
    answer: async (ctx, exported, { config }, delivered) => {
      const archive = await openPatientExport(config.dataDir, exported, delivered);
      ctx.status = 200;
      ctx.set('Content-Type', 'application/zip');
      ctx.set('Content-Disposition', `attachment; filename="${exported.filename}"`);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = archive;
    },
  }),
];
