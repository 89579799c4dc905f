import type { Db } from '../../../src/db/open-database.js';
import { UPDATE_PATIENT } from '../../../src/domain/patients/update-patient.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { createTestPatient, type PatientBody } from '../../helpers/builders.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * UPDATE_PATIENT (PATCH /patients/{patient_id}, `clinic patient edit`), rule by rule. The wiring of
 * each front end: test/server/routes/patients.test.ts (ETag, media types, what a search finds
 * after) and test/cli/commands/patient.test.ts.
 */

interface Given {
  patientId: string;
  patientNumber: string;
  updatedAt: string;
}

/** A patient made with `fields`, and what `before` does next to it. */
const aPatient =
  (fields: PatientBody = {}, before: (db: Db, given: Given) => void = () => {}) =>
  (db: Db): Given => {
    const patient = createTestPatient(db, fields);
    const given = { patientId: patient.id, patientNumber: patient.patient_number, updatedAt: patient.updated_at };
    before(db, given);
    return given;
  };

const request = (body: Record<string, unknown>, ifMatch?: string) => (given: Given) => ({
  path: { patient_id: given.patientId },
  header: ifMatch === undefined ? {} : { 'if-match': ifMatch },
  body,
});

const edit = (db: Db, patientId: string, body: Record<string, unknown>) =>
  performUseCase(UPDATE_PATIENT, db, { path: { patient_id: patientId }, header: {}, body }, DESK_USER);

/** The records of a patch that changed `changed` (sorted): patient.update, and patient.updated unless nothing changed. */
const updateRecords = (given: Given, changed: string[]) => ({
  audit: [
    { action: 'patient.update', patient_id: given.patientId, subject_type: 'patient', subject_id: given.patientId, detail: { changed } },
  ],
  changes:
    changed.length === 0
      ? []
      : [{ type: 'patient.updated', patient_id: given.patientId, data: { patient_number: given.patientNumber, changed } }],
});

const UNKNOWN_PATIENT = '00000000-0000-4000-8000-000000000000';

const scenarios: Scenario<Given>[] = [
  {
    title:
      'sets the fields it names and counts the version up; an absent field stays; changed names the fields, sorted, never their values',
    given: aPatient({ mobile: '+43 660 1111111', notes: 'old note' }),
    // Four fields change, in neither alphabetical nor the model's order; email is sent with the value it has.
    request: request({ title: 'Dr.', mobile: '+43 699 0000000', gender: 'female', notes: null, email: 'ada@example.org' }),
    expect: (given) => ({
      result: {
        changed: ['gender', 'mobile', 'notes', 'title'],
        patient: {
          id: given.patientId,
          version: 2,
          title: 'Dr.',
          mobile: '+43 699 0000000',
          gender: 'female',
          notes: null,
          first_name: 'Ada',
        },
      },
      ...updateRecords(given, ['gender', 'mobile', 'notes', 'title']),
    }),
  },
  ...[
    {},
    { first_name: 'Ada', mobile: '+43 660 1234567' },
    { unknown_field: 1, id: 'x', patient_number: 'P-9' },
    { title: null, is_active: true },
    { portal_access: { xrays: false } },
  ].map((body): Scenario<Given> => ({
    title: `answers ${JSON.stringify(body)}, which changes nothing, with the patient as it is: same version and updated_at, recorded with changed []`,
    given: aPatient(),
    request: request(body),
    expect: (given) => ({
      result: {
        changed: [],
        patient: { id: given.patientId, patient_number: given.patientNumber, version: 1, updated_at: given.updatedAt },
      },
      ...updateRecords(given, []),
    }),
  })),
  {
    title: 'merges portal_access key by key',
    given: aPatient({ portal_access: { invoices: true } }),
    request: request({ portal_access: { xrays: true } }),
    expect: (given) => ({
      result: { patient: { portal_access: { invoices: true, xrays: true, scans: false } } },
      ...updateRecords(given, ['portal_access']),
    }),
  },
  {
    title: 'keeps a patient made inactive',
    given: aPatient(),
    request: request({ is_active: false }),
    expect: (given) => ({ result: { patient: { is_active: false, version: 2 } }, ...updateRecords(given, ['is_active']) }),
  },
  {
    title: 'refuses null for a field that may not be null and a date that is none, every failing field at once',
    given: aPatient(),
    request: request({ last_name: null, portal_access: null, date_of_birth: '1985-13-01', first_name: 'Ok' }),
    expect: () => ({ invalid: ['body.last_name', 'body.date_of_birth', 'body.portal_access'] }),
  },
  ...[{ email: null }, { mobile: '   ' }, { email: '' }].map((body): Scenario<Given> => ({
    title: `refuses ${JSON.stringify(body)}: the patient would break the clinic's contact rule (422 PATIENT_CONTACT_REQUIRED)`,
    given: aPatient(),
    request: request(body),
    expect: () => ({ refused: 'PATIENT_CONTACT_REQUIRED', status: 422 }),
  })),
  ...['"1"', '*', '"1", "2"'].map((tag): Scenario<Given> => ({
    title: `applies a patch whose If-Match ${tag} names the stored version`,
    given: aPatient(),
    request: request({ title: 'A' }, tag),
    expect: (given) => ({ result: { patient: { title: 'A', version: 2 } }, ...updateRecords(given, ['title']) }),
  })),
  ...['"1"', 'W/"2"', '2', '"3"'].map((tag): Scenario<Given> => ({
    title: `refuses a patch whose If-Match ${tag} names another version than 2 (412 PRECONDITION_FAILED)`,
    given: aPatient({}, (db, given) => edit(db, given.patientId, { title: 'first' })),
    request: request({ title: 'B' }, tag),
    expect: () => ({ refused: 'PRECONDITION_FAILED', status: 412 }),
  })),
  {
    title: 'refuses an unknown patient (404 PATIENT_NOT_FOUND), before its If-Match',
    given: aPatient(),
    request: () => ({ path: { patient_id: UNKNOWN_PATIENT }, header: { 'if-match': '"9"' }, body: { title: 'x' } }),
    expect: () => ({ refused: 'PATIENT_NOT_FOUND', status: 404 }),
  },
  {
    title: 'checks the body before the patient: an unknown patient with an invalid body is invalid',
    given: aPatient(),
    request: () => ({ path: { patient_id: UNKNOWN_PATIENT }, header: {}, body: { last_name: null } }),
    expect: () => ({ invalid: ['body.last_name'] }),
  },
  {
    title: 'refuses an id that is no UUID as invalid',
    given: aPatient(),
    request: () => ({ path: { patient_id: 'not-a-uuid' }, header: {}, body: {} }),
    expect: () => ({ invalid: ['path.patient_id'] }),
  },
  {
    title: 'checks If-Match before the contact rule',
    given: aPatient(),
    request: request({ email: null }, '"9"'),
    expect: () => ({ refused: 'PRECONDITION_FAILED', status: 412 }),
  },
  {
    title: 'takes every role: a person of any role may correct a patient',
    given: aPatient(),
    request: request({ title: 'Mag.' }),
    caller: { ...DESK_USER, roles: ['scheduler'] },
    expect: (given) => ({ result: { patient: { title: 'Mag.' } }, ...updateRecords(given, ['title']) }),
  },
];

describeScenarios('changing a patient (UPDATE_PATIENT)', UPDATE_PATIENT, scenarios);
