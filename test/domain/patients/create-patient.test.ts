import type { Db } from '../../../src/db/open-database.js';
import { CREATE_PATIENT } from '../../../src/domain/patients/create-patient.js';
import { setClinicContactRule } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { buildPatient, createTestPatient, idempotencyHeader, type PatientBody } from '../../helpers/builders.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * CREATE_PATIENT (POST /patients, `clinic create-patient`), rule by rule. Every field's limits and
 * the Patient as the API shows it: test/server/routes/patients.test.ts; the desk's options and printout:
 * test/cli/program.test.ts and test/cli/desk-frictions.test.ts.
 */

interface Given {
  /** The number of the patient made before, if any. */
  lastNumber: string | null;
}

const aClinic =
  (before: (db: Db) => string | null = () => null) =>
  (db: Db): Given => ({ lastNumber: before(db) });

/** A new patient's body: buildPatient with `overrides`, and the fields given as undefined left out. */
const body = (overrides: PatientBody = {}) =>
  Object.fromEntries(Object.entries(buildPatient(overrides)).filter(([, value]) => value !== undefined));

const request =
  (overrides: PatientBody = {}, key?: string) =>
  () => ({
    header: idempotencyHeader(key),
    body: body(overrides),
  });

/** patient.create of the patient made, and patient.created with its number only. */
const creationRecords = {
  audit: (patient: { id: string }) => [
    { action: 'patient.create', patient_id: patient.id, subject_type: 'patient', subject_id: patient.id, detail: null },
  ],
  changes: (patient: { id: string; patient_number: string }) => [
    { type: 'patient.created', patient_id: patient.id, data: { patient_number: patient.patient_number } },
  ],
};

const nextNumber = (number: string) => `P-${String(Number(number.slice(2)) + 1).padStart(6, '0')}`;

const scenarios: Scenario<Given>[] = [
  {
    title: 'creates an active patient of version 1 who owes nothing, with the defaults applied',
    given: aClinic(),
    request: request(),
    expect: () => ({
      result: {
        first_name: 'Ada',
        last_name: 'Lovelace',
        is_active: true,
        version: 1,
        outstanding_balance: '0',
        outstanding_currency: null,
        discount_percent: '0',
        recall_contact_count: 0,
        visit_address_same_as_main: true,
        gdpr_consent: false,
        portal_access: { invoices: false, xrays: false, scans: false },
      },
      ...creationRecords,
    }),
  },
  {
    title: 'gives the patient the next patient number',
    given: aClinic((db) => createTestPatient(db).patient_number),
    request: request({ first_name: 'Grace', last_name: 'Hopper' }),
    expect: (given) => ({ result: { patient_number: nextNumber(given.lastNumber!) }, ...creationRecords }),
  },
  ...(
    [
      ['email absent', { email: undefined }],
      ['mobile absent', { mobile: undefined }],
      ['email null', { email: null }],
      ['mobile null', { mobile: null }],
      ['email blank', { email: '' }],
      ['mobile spaces', { mobile: '   ' }],
      ['both absent', { email: undefined, mobile: undefined }],
    ] as const
  ).map(([name, overrides]): Scenario<Given> => ({
    title: `refuses a patient with ${name} under the default rule, an e-mail and a mobile (422 PATIENT_CONTACT_REQUIRED)`,
    given: aClinic(),
    request: request(overrides),
    expect: () => ({ refused: 'PATIENT_CONTACT_REQUIRED', status: 422 }),
  })),
  {
    title: 'takes a patient without any contact where the clinic asks for none',
    given: aClinic((db) => (setClinicContactRule(db, 'none'), null)),
    request: request({ email: undefined, mobile: null }),
    expect: () => ({ result: { email: null, mobile: null }, ...creationRecords }),
  },
  {
    title: 'checks the schema before the contact rule: every failing field at once',
    given: aClinic(),
    request: () => ({ header: {}, body: { first_name: '', last_name: 'x'.repeat(129) } }),
    expect: () => ({ invalid: ['body.first_name', 'body.last_name'], types: ['string_too_short', 'string_too_long'] }),
  },
  {
    title: 'answers a request repeated with its Idempotency-Key with the patient it made, and records nothing again',
    given: aClinic(
      (db) => performUseCase(CREATE_PATIENT, db, { header: { 'idempotency-key': 'new-ada' }, body: body() }, DESK_USER).patient_number,
    ),
    request: request({}, 'new-ada'),
    expect: (given) => ({ result: { patient_number: given.lastNumber }, audit: [], changes: [] }),
  },
  {
    title: 'refuses the key of an earlier patient for another request (422 IDEMPOTENCY_KEY_REUSED)',
    given: aClinic(
      (db) => performUseCase(CREATE_PATIENT, db, { header: { 'idempotency-key': 'new-ada' }, body: body() }, DESK_USER).patient_number,
    ),
    request: request({ first_name: 'Augusta' }, 'new-ada'),
    expect: () => ({ refused: 'IDEMPOTENCY_KEY_REUSED', status: 422 }),
  },
  {
    title: 'refuses a person of billing: admin, reception, practitioners and schedulers create patients (403 ROLE_FORBIDDEN)',
    given: aClinic(),
    request: request(),
    caller: { ...DESK_USER, roles: ['billing'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

describeScenarios('creating a patient (CREATE_PATIENT)', CREATE_PATIENT, scenarios);
