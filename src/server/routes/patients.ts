import { errors } from '../../domain/errors.js';
import { createPatient } from '../../domain/patients/create-patient.js';
import * as examples from '../openapi/examples.js';
import type { Operation } from '../operation.js';

/** POST /patients. */
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
];
