import { after, before, describe, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import type { Appointment } from '../../../src/domain/appointments/present-appointment.js';
import { CREATE_PATIENT_AT_DESK, SET_APPOINTMENT_STATUS_AT_DESK } from '../../../src/domain/desk/desk-rules.js';
import { CREATE_PATIENT } from '../../../src/domain/patients/create-patient.js';
import type { Patient } from '../../../src/domain/patients/present-patient.js';
import { UPDATE_PATIENT } from '../../../src/domain/patients/update-patient.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { buildPatient, createTestPatient, idempotencyHeader, type PatientBody } from '../../helpers/builders.js';
import { appointmentEventData } from '../../helpers/change-feed.js';
import { describeScenarios, DESK_USER, type Outcome, type Scenario } from '../../helpers/use-case-scenarios.js';

// The desk's own rules (issue 42): refusals the desk makes and the API does not, each waived by
// a word of the request (`--allow-duplicate`, `--force`).

interface PatientGiven {
  /** Maria Müller, born 2 March 1985: P-000001. */
  maria: Patient;
}

/** A clinic with Maria Müller, born 2 March 1985; `first` runs next. */
const aClinicWithMaria =
  (first: (db: Db, maria: Patient) => void = () => {}) =>
  (db: Db): PatientGiven => {
    const maria = createTestPatient(db, { first_name: 'Maria', last_name: 'Müller', date_of_birth: '1985-03-02' });
    first(db, maria);
    return { maria };
  };

/** A new patient as the desk sends one: Maria Müller born 2 March 1985, with `fields` over her, under `key` if one is given. */
const newPatient =
  (fields: PatientBody & { duplicate?: string } = {}, key?: string) =>
  () => ({
    header: idempotencyHeader(key),
    body: buildPatient({ first_name: 'Maria', last_name: 'Müller', date_of_birth: '1985-03-02', ...fields }),
  });

/** Created, with `result`'s fields: patient.create and patient.created, as CREATE_PATIENT records them. */
const created = (result: Record<string, unknown>): Outcome => ({
  result: { is_active: true, ...result },
  audit: (patient: Patient) => [
    { action: 'patient.create', patient_id: patient.id, subject_type: 'patient', subject_id: patient.id, detail: null },
  ],
  changes: (patient: Patient) => [{ type: 'patient.created', patient_id: patient.id, data: { patient_number: patient.patient_number } }],
});

/** Refused as a second Maria Müller born 2 March 1985, naming those there are. */
const duplicateOf = (named: string): Outcome => ({
  refused: 'PATIENT_DUPLICATE',
  status: 409,
  message: new RegExp(`^${named}, born 02\\.03\\.1985, (is|are) already a patient of this name and date of birth: nothing was created\\.$`),
});

/**
 * CREATE_PATIENT_AT_DESK (`clinic create-patient`): CREATE_PATIENT (its own table,
 * test/domain/patients/create-patient.test.ts) and one rule more, a second active patient of one
 * name and date of birth refused unless `--allow-duplicate`. The desk's printout and its option:
 * test/cli/desk-second-day.test.ts; the API, which creates the duplicate, the test beside it.
 */
const creatingPatients: Scenario<PatientGiven>[] = [
  {
    title: 'creates a patient of another name, as POST /patients does',
    given: aClinicWithMaria(),
    request: newPatient({ first_name: 'Anna', last_name: 'Huber' }),
    expect: () => created({ patient_number: 'P-000002', first_name: 'Anna', date_of_birth: '1985-03-02' }),
  },
  {
    title: 'refuses a second Maria Müller of that date of birth, naming the first (409 PATIENT_DUPLICATE)',
    given: aClinicWithMaria(),
    request: newPatient(),
    expect: () => duplicateOf('P-000001 Maria Müller'),
  },
  {
    title: 'compares the names without case, accents and spacing around or between words',
    given: aClinicWithMaria(),
    request: newPatient({ first_name: ' MARIA ', last_name: 'muller' }),
    expect: () => duplicateOf('P-000001 Maria Müller'),
  },
  {
    title: 'names every active patient of that name and date of birth',
    given: aClinicWithMaria((db) => performUseCase(CREATE_PATIENT_AT_DESK, db, newPatient({ duplicate: 'allow' })(), DESK_USER)),
    request: newPatient(),
    expect: () => duplicateOf('P-000001 Maria Müller, P-000002 Maria Müller'),
  },
  {
    title: 'creates the second Maria Müller when asked to (duplicate allow, `--allow-duplicate`)',
    given: aClinicWithMaria(),
    request: newPatient({ duplicate: 'allow' }),
    expect: () => created({ patient_number: 'P-000002', first_name: 'Maria', last_name: 'Müller' }),
  },
  ...(
    [
      ['another date of birth', { date_of_birth: '1985-03-03' }],
      ['no date of birth: nothing tells two people of one name apart', { date_of_birth: null }],
      ['the same first name and another last name', { last_name: 'Müllner' }],
      ['another first name and the same last name', { first_name: 'Marie' }],
    ] as const
  ).map(([what, fields]): Scenario<PatientGiven> => ({
    title: `creates a patient of ${what}`,
    given: aClinicWithMaria(),
    request: newPatient(fields),
    expect: () => created({ patient_number: 'P-000002' }),
  })),
  {
    title: 'creates a Maria Müller of that date of birth while the first is inactive',
    given: aClinicWithMaria(
      (db, maria) =>
        void performUseCase(UPDATE_PATIENT, db, { path: { patient_id: maria.id }, header: {}, body: { is_active: false } }, DESK_USER),
    ),
    request: newPatient(),
    expect: () => created({ patient_number: 'P-000002' }),
  },
  {
    title: 'refuses as POST /patients does once the name is free: contact by the clinic’s rule (422 PATIENT_CONTACT_REQUIRED)',
    given: aClinicWithMaria(),
    request: newPatient({ first_name: 'Anna', mobile: null }),
    expect: () => ({ refused: 'PATIENT_CONTACT_REQUIRED', status: 422 }),
  },
  {
    title: 'refuses a waiver other than allow or reject (literal_error)',
    given: aClinicWithMaria(),
    request: newPatient({ duplicate: 'yes' }),
    expect: () => ({ invalid: ['body.duplicate'], types: ['literal_error'] }),
  },
  {
    title: 'answers a request repeated with its Idempotency-Key with the patient it made, not as a duplicate of it',
    given: aClinicWithMaria(
      (db) => void performUseCase(CREATE_PATIENT_AT_DESK, db, newPatient({ first_name: 'Anna' }, 'desk-anna')(), DESK_USER),
    ),
    request: newPatient({ first_name: 'Anna' }, 'desk-anna'),
    expect: () => ({ result: { patient_number: 'P-000002', first_name: 'Anna' }, audit: [], changes: [] }),
  },
  {
    // The desk's request holds its waiver (duplicate: reject) beside the patient's fields, so it is
    // never the request POST /patients made, though desk-rules.ts says the key answers both alike.
    title: 'refuses a key POST /patients took for the same patient: one key space (422 IDEMPOTENCY_KEY_REUSED)',
    given: aClinicWithMaria(
      (db) =>
        void performUseCase(
          CREATE_PATIENT,
          db,
          { header: { 'idempotency-key': 'api-anna' }, body: newPatient({ first_name: 'Anna' })().body },
          DESK_USER,
        ),
    ),
    request: newPatient({ first_name: 'Anna' }, 'api-anna'),
    expect: () => ({ refused: 'IDEMPOTENCY_KEY_REUSED', status: 422 }),
  },
  {
    title: 'refuses a person of billing, as POST /patients does (403 ROLE_FORBIDDEN)',
    given: aClinicWithMaria(),
    request: newPatient({ first_name: 'Anna' }),
    caller: { ...DESK_USER, roles: ['billing'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

describeScenarios('creating a patient at the desk (CREATE_PATIENT_AT_DESK)', CREATE_PATIENT_AT_DESK, creatingPatients);

/** The desk's clock in this table: Wednesday 2 December 2026, 08:00 in Vienna. */
const NOW = '2026-12-02T07:00:00.000Z';

/** When appointments start, in Vienna's wall-clock time, as the desk types them (each lasts 30 minutes). */
const STARTS = {
  halfAnHourAgo: ['2026-12-02T07:30', '2026-12-02T08:00'],
  now: ['2026-12-02T08:00', '2026-12-02T08:30'],
  laterToday: ['2026-12-02T14:00', '2026-12-02T14:30'],
  /** Tomorrow in Vienna, still today in UTC (23:30Z). */
  justAfterMidnight: ['2026-12-03T00:30', '2026-12-03T01:00'],
  inTwoDays: ['2026-12-04T14:00', '2026-12-04T14:30'],
} as const;

interface StatusGiven {
  appointment: Appointment;
}

/** A clinic in Vienna with a patient booked at `when`, in `status`. */
const aBooking =
  (when: keyof typeof STARTS, status = 'booked') =>
  (db: Db): StatusGiven => {
    setClinicTimeZone(db, 'Europe/Vienna');
    const [start_at, end_at] = STARTS[when];
    return { appointment: bookAppointment(db, { patient_id: createTestPatient(db).id, start_at, end_at, status }, 'cli') };
  };

const setStatus = (status: string, waiver?: string) => (given: StatusGiven) => ({
  path: { appointment_id: given.appointment.id },
  body: { status, ...(waiver === undefined ? {} : { before_start: waiver }) },
});

/** Set to `status` now: appointment.update and appointment.updated, each naming the status changed. */
const statusSet =
  (status: string) =>
  ({ appointment }: StatusGiven): Outcome => ({
    result: { changed: ['status'], appointment: { id: appointment.id, status, status_changed_at: NOW } },
    audit: [
      {
        action: 'appointment.update',
        patient_id: appointment.patient_id,
        subject_type: 'appointment',
        subject_id: appointment.id,
        detail: { changed: ['status'] },
      },
    ],
    changes: [
      {
        type: 'appointment.updated',
        patient_id: appointment.patient_id,
        data: { ...appointmentEventData(appointment), status, resource_id: null, changed: ['status'] },
      },
    ],
  });

/** Refused as too early: the appointment's number, when it starts in clinic time, and why. */
const tooEarly = (startsOn: string, why: string): Outcome => ({
  refused: 'APPOINTMENT_NOT_STARTED',
  status: 409,
  message: new RegExp(`^A-000001 starts on ${startsOn} \\(Europe/Vienna\\): ${why}\\. Its status was left as it is\\.$`),
});

/**
 * SET_APPOINTMENT_STATUS_AT_DESK (`clinic appointment arrived|completed|no-show`): the status
 * move of UPDATE_APPOINTMENT (its own table, test/domain/appointments/update-appointment.test.ts)
 * and one rule more, no arrival or completion before the appointment's clinic day and no no-show
 * before its start, unless `--force`. The desk's printout and its option:
 * test/cli/desk-second-day.test.ts and test/cli/commands/appointment.test.ts.
 */
const settingStatuses: Scenario<StatusGiven>[] = [
  {
    title: 'marks an appointment that started half an hour ago arrived',
    given: aBooking('halfAnHourAgo'),
    request: setStatus('arrived'),
    expect: statusSet('arrived'),
  },
  {
    title: 'marks a patient arrived earlier on the day of the appointment',
    given: aBooking('laterToday'),
    request: setStatus('arrived'),
    expect: statusSet('arrived'),
  },
  {
    title: 'completes an arrived appointment earlier on its day',
    given: aBooking('laterToday', 'arrived'),
    request: setStatus('completed'),
    expect: statusSet('completed'),
  },
  {
    title: 'marks a no-show once the start has come',
    given: aBooking('now'),
    request: setStatus('no_show'),
    expect: statusSet('no_show'),
  },
  {
    title: 'refuses a no-show before the start, even on its day: the patient may still come (409 APPOINTMENT_NOT_STARTED)',
    given: aBooking('laterToday'),
    request: setStatus('no_show'),
    expect: () => tooEarly('Wed 02\\.12\\.2026 at 14:00', 'it cannot be a no-show before it has started'),
  },
  {
    title: 'refuses an arrival two days ahead, saying when it starts in clinic time (409 APPOINTMENT_NOT_STARTED)',
    given: aBooking('inTwoDays'),
    request: setStatus('arrived'),
    expect: () => tooEarly('Fri 04\\.12\\.2026 at 14:00', 'a patient cannot arrive for it before its day'),
  },
  {
    title: 'refuses a completion before its day (409 APPOINTMENT_NOT_STARTED)',
    given: aBooking('inTwoDays', 'arrived'),
    request: setStatus('completed'),
    expect: () => tooEarly('Fri 04\\.12\\.2026 at 14:00', 'it cannot be completed before its day'),
  },
  {
    title: "refuses an arrival for tomorrow's clinic day that is still today in UTC: days are the clinic's",
    given: aBooking('justAfterMidnight'),
    request: setStatus('arrived'),
    expect: () => tooEarly('Thu 03\\.12\\.2026 at 00:30', 'a patient cannot arrive for it before its day'),
  },
  {
    title: 'refuses an appointment in a 1.0.0 free status alike, since it may become any',
    given: aBooking('inTwoDays', 'waiting list'),
    request: setStatus('arrived'),
    expect: () => tooEarly('Fri 04\\.12\\.2026 at 14:00', 'a patient cannot arrive for it before its day'),
  },
  {
    title: 'sets a status ahead of its time when asked to (before_start allow, `--force`)',
    given: aBooking('inTwoDays'),
    request: setStatus('no_show', 'allow'),
    expect: statusSet('no_show'),
  },
  {
    title: 'refuses a move the status table forbids as the API does, before asking the time (409 APPOINTMENT_TRANSITION_INVALID)',
    given: aBooking('inTwoDays', 'cancelled'),
    request: setStatus('arrived'),
    expect: () => ({ refused: 'APPOINTMENT_TRANSITION_INVALID', status: 409, message: /cancelled cannot become arrived/ }),
  },
  {
    title: 'sets a status the appointment has as nothing changed, whenever it starts: recorded with changed [], no change event',
    given: aBooking('inTwoDays', 'no_show'),
    request: setStatus('no_show'),
    expect: ({ appointment }) => ({
      result: { changed: [], appointment: { status: 'no_show', updated_at: appointment.updated_at } },
      audit: [{ action: 'appointment.update', subject_id: appointment.id, detail: { changed: [] } }],
      changes: [],
    }),
  },
  {
    title: 'refuses a status the desk sets by another command (literal_error)',
    given: aBooking('halfAnHourAgo'),
    request: setStatus('cancelled'),
    expect: () => ({ invalid: ['body.status'], types: ['literal_error'] }),
  },
  {
    title: 'refuses an unknown appointment (404 APPOINTMENT_NOT_FOUND)',
    given: aBooking('halfAnHourAgo'),
    request: () => ({ path: { appointment_id: '5b8d0f2a-4c6e-4a81-b3d5-7e9f1a2c4b6d' }, body: { status: 'arrived' } }),
    expect: () => ({ refused: 'APPOINTMENT_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses a person of billing, as PATCH /appointments does (403 ROLE_FORBIDDEN)',
    given: aBooking('halfAnHourAgo'),
    request: setStatus('arrived'),
    caller: { ...DESK_USER, roles: ['billing'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

describe(`at ${NOW}`, () => {
  // One clock for the table: whether the time has come is asked of the program's clock (Date).
  before(() => mock.timers.enable({ apis: ['Date'], now: Date.parse(NOW) }));
  after(() => mock.timers.reset());
  describeScenarios('setting a status at the desk (SET_APPOINTMENT_STATUS_AT_DESK)', SET_APPOINTMENT_STATUS_AT_DESK, settingStatuses);
});
