import { errors } from '../../domain/errors.js';
import { createPatient } from '../../domain/patients/create-patient.js';
import { findPatients, PATIENT_LIST_QUERY_FIELDS } from '../../domain/patients/find-patients.js';
import { readPatient } from '../../domain/patients/read-patient.js';
import { PATIENT_PATH_FIELDS } from '../../fields/patient-fields.js';
import * as examples from '../openapi/examples.js';
import type { Operation } from '../operation.js';

/** POST /patients; GET /patients and GET /patients/{patient_id} (1.1.0). */
export const patientOperations: readonly Operation[] = [
  {
    method: 'post',
    path: '/patients',
    operationId: 'createPatient',
    summary: 'Create a patient',
    description: 'The returned `id` is used to book appointments and upload documents.',
    tag: 'patients',
    scope: 'patients:write',
    body: { kind: 'json', model: 'PatientInput', example: examples.patientInputExample },
    refusals: [errors.patientContactRequired()],
    result: { kind: 'model', status: 201, model: 'Patient', description: 'The patient was created', example: examples.patientExample },
    handler:
      ({ db }) =>
      (ctx) =>
        createPatient(db, ctx.state.body),
  },
  {
    method: 'get',
    path: '/patients',
    operationId: 'findPatients',
    summary: 'Find patients by name, number, date of birth, email or phone',
    description:
      'Every word of `q` must match. Ordered by last name, first name and patient number; without `q`, every patient in that order.',
    tag: 'patients',
    scope: 'patients:read',
    queryFields: PATIENT_LIST_QUERY_FIELDS,
    result: {
      kind: 'model',
      status: 200,
      model: 'PatientSummary',
      paged: true,
      description: 'One page of the matching patients',
      example: examples.patientSummaryListExample,
    },
    handler:
      ({ db }) =>
      (ctx) =>
        findPatients(db, ctx.query),
  },
  {
    method: 'get',
    path: '/patients/{patient_id}',
    operationId: 'getPatient',
    summary: 'Read a patient',
    description: 'The patient as it stands now, with the current outstanding balance.',
    tag: 'patients',
    scope: 'patients:read',
    pathFields: PATIENT_PATH_FIELDS,
    refusals: [errors.patientNotFound(404)],
    result: { kind: 'model', status: 200, model: 'Patient', description: 'The patient', example: examples.patientExample },
    handler:
      ({ db }) =>
      (ctx) =>
        readPatient(db, ctx.params.patient_id),
  },
];
