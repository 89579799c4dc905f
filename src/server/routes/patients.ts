import { CREATE_PATIENT } from '../../domain/patients/create-patient.js';
import { FIND_PATIENTS } from '../../domain/patients/find-patients.js';
import { READ_PATIENT } from '../../domain/patients/read-patient.js';
import * as examples from '../openapi/examples.js';
import { useCaseOperation, type Operation } from '../operation.js';

/** POST /patients; GET /patients and GET /patients/{patient_id} (1.1.0). */
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
    result: { kind: 'model', status: 200, model: 'Patient', description: 'The patient', example: examples.patientExample },
  }),
];
