import { randomUUID } from 'node:crypto';
import type { Db } from '../../../src/db/open-database.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { CONFIRM_APPOINTMENT } from '../../../src/domain/appointments/confirm-appointment.js';
import type { Appointment } from '../../../src/domain/appointments/present-appointment.js';
import {
  RESCHEDULE_APPOINTMENT,
  UPDATE_APPOINTMENT,
  type UpdatedAppointment,
} from '../../../src/domain/appointments/update-appointment.js';
import { addDoctor, addService, RETIRE_DOCTOR, RETIRE_SERVICE } from '../../../src/domain/catalog.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { createTestPatient } from '../../helpers/builders.js';
import { appointmentEventData } from '../../helpers/change-feed.js';
import { describeScenarios, DESK_USER, type Outcome, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * UPDATE_APPOINTMENT (PATCH /appointments/{appointment_id}, `clinic appointment
 * cancel|arrived|completed|no-show`) and RESCHEDULE_APPOINTMENT (`clinic appointment
 * reschedule`), rule by rule (clinic-api-1.2.md, "Appointments"). The wiring of each front end:
 * test/server/routes/appointments.test.ts and test/cli/commands/appointment.test.ts.
 */

interface Given {
  doctorId: string;
  otherDoctorId: string;
  /** A service of 30 minutes, and one of 45. */
  check: string;
  cleaning: string;
  /** The appointment the request changes: 09:00-09:30 UTC on 4 January 2027, with the doctor. */
  appointment: Appointment;
  /** Another appointment `before` booked, if any. */
  other?: Appointment;
}

const DAY = '2027-01-04';

/**
 * A clinic in UTC with a doctor, another doctor and two services, and the appointment to change
 * (with `fields` over its defaults); `before` runs next, and may book the other appointment.
 */
const aBooking =
  (
    fields: (given: Omit<Given, 'appointment'>) => Record<string, unknown> = () => ({}),
    before: (db: Db, given: Given) => Appointment | void = () => {},
  ) =>
  (db: Db): Given => {
    setClinicTimeZone(db, 'UTC');
    const patientId = createTestPatient(db).id;
    const catalog = {
      doctorId: addDoctor(db, { name: 'Dr. Slot', color: '#123456' }).id,
      otherDoctorId: addDoctor(db, { name: 'Dr. Other', color: '#654321' }).id,
      check: addService(db, { name: 'Check', duration_min: 30, price: '50', color: '#00ff00' }).id,
      cleaning: addService(db, { name: 'Cleaning', duration_min: 45, price: '80', color: '#0000ff' }).id,
    };
    const appointment = bookAppointment(
      db,
      { patient_id: patientId, start_at: `${DAY}T09:00Z`, end_at: `${DAY}T09:30Z`, resource_id: catalog.doctorId, ...fields(catalog) },
      'api',
    );
    const given: Given = { ...catalog, appointment };
    const other = before(db, given);
    return other === undefined ? given : { ...given, other };
  };

/** Books another appointment of the same patient, with `fields` over the given one's. */
const bookAnother = (db: Db, given: Given, fields: Record<string, unknown>) =>
  bookAppointment(
    db,
    {
      patient_id: given.appointment.patient_id,
      start_at: `${DAY}T09:00Z`,
      end_at: `${DAY}T09:30Z`,
      resource_id: given.doctorId,
      ...fields,
    },
    'api',
  );

const change = (body: (given: Given) => Record<string, unknown>) => (given: Given) => ({
  path: { appointment_id: given.appointment.id },
  body: body(given),
});

const patchIt = (db: Db, id: string, body: Record<string, unknown>) =>
  performUseCase(UPDATE_APPOINTMENT, db, { path: { appointment_id: id }, body }, DESK_USER);

/** Changed, with `result`'s fields of the appointment, and the request fields named `changed` in both records. */
const changed =
  (result: Record<string, unknown>, ...names: string[]) =>
  (given: Given): Outcome => ({
    result: { appointment: result, changed: names },
    audit: [
      {
        action: 'appointment.update',
        patient_id: given.appointment.patient_id,
        subject_type: 'appointment',
        subject_id: given.appointment.id,
        detail: { changed: names },
      },
    ],
    changes: ({ appointment }: UpdatedAppointment) => [
      {
        type: 'appointment.updated',
        patient_id: given.appointment.patient_id,
        data: { ...appointmentEventData(appointment), changed: names },
      },
    ],
  });

/** Nothing changed: the appointment as it was, the request recorded with nothing changed, no change event. */
const unchanged = (given: Given): Outcome => ({
  result: { appointment: { updated_at: given.appointment.updated_at, status_changed_at: null }, changed: [] },
  audit: [{ action: 'appointment.update', subject_id: given.appointment.id, detail: { changed: [] } }],
  changes: [],
});

const unknown = '00000000-0000-4000-8000-000000000000';

/** A change of aBooking() that names what no row is (`unknown`): refused with 422 `code`. */
const namingUnknown = (title: string, body: (given: Given) => Record<string, unknown>, code: string): Scenario<Given> => ({
  title,
  given: aBooking(),
  request: change(body),
  expect: () => ({ refused: code, status: 422 }),
});

const ALLOWED: [from: string, to: string][] = [
  ['booked', 'arrived'],
  ['booked', 'no_show'],
  ['booked', 'cancelled'],
  ['arrived', 'completed'],
  ['arrived', 'cancelled'],
  ['no_show', 'arrived'],
  // A free status of 1.0.0 may become any of the five.
  ['wartend', 'completed'],
];
const FORBIDDEN: [from: string, to: string][] = [
  ['booked', 'completed'],
  ['arrived', 'booked'],
  ['completed', 'cancelled'],
  ['cancelled', 'booked'],
  ['no_show', 'completed'],
];

const scenarios: Scenario<Given>[] = [
  // Status.
  ...ALLOWED.map(([from, to]): Scenario<Given> => ({
    title: `moves ${from} → ${to}, stamping status_changed_at`,
    given: aBooking(() => ({ status: from })),
    request: change(() => ({ status: to, status_reason: 'desk' })),
    expect: changed({ status: to, status_reason: 'desk', status_changed_at: /^\d{4}-/ }, 'status', 'status_reason'),
  })),
  ...FORBIDDEN.map(([from, to]): Scenario<Given> => ({
    title: `refuses ${from} → ${to}, naming both (409 APPOINTMENT_TRANSITION_INVALID)`,
    given: aBooking(() => ({ status: from })),
    request: change(() => ({ status: to })),
    expect: () => ({ refused: 'APPOINTMENT_TRANSITION_INVALID', status: 409, message: new RegExp(`${from}.*${to}`) }),
  })),
  {
    title: 'answers the status it already has as no change: nothing written, the request recorded',
    given: aBooking(),
    request: change(() => ({ status: 'booked' })),
    expect: unchanged,
  },
  {
    title: 'names only the request fields whose value changed: not an end given as it was, nor what follows (status_changed_at)',
    given: aBooking(),
    request: change((given) => ({ status: 'arrived', notes: 'Came early', end_at: given.appointment.end_at })),
    expect: changed({ status: 'arrived', notes: 'Came early' }, 'notes', 'status'),
  },
  ...[{ notes: 'Came early' }, {}, { overlap: 'reject' }].map((body): Scenario<Given> => ({
    title: `changes nothing with ${JSON.stringify(body)}: no change event`,
    given: aBooking(() => ({ notes: 'Came early' })),
    request: change(() => body),
    expect: unchanged,
  })),
  {
    title: 'refuses a status outside the five (literal_error)',
    given: aBooking(),
    request: change(() => ({ status: 'wartend' })),
    expect: () => ({ invalid: ['body.status'], types: ['literal_error'] }),
  },
  // Times.
  {
    title: 'reschedules: keeps where it came from, by the clinic, and asks the patient to confirm again',
    given: aBooking(),
    request: change(() => ({ start_at: '2027-02-01T10:00Z', end_at: '2027-02-01T10:45Z' })),
    expect: (given) =>
      changed(
        {
          start_at: '2027-02-01T10:00:00.000Z',
          end_at: '2027-02-01T10:45:00.000Z',
          reschedule_from_start_at: given.appointment.start_at,
          reschedule_from_end_at: given.appointment.end_at,
          reschedule_by_role: 'clinic',
          reschedule_at: /^\d{4}-/,
          patient_confirmed_at: null,
          confirmation_state: 'awaiting_patient',
        },
        'end_at',
        'start_at',
      )(given),
  },
  {
    title: 'asks again a patient who had confirmed the old time',
    given: aBooking(
      undefined,
      (db, given) => void performUseCase(CONFIRM_APPOINTMENT, db, { path: { appointment_id: given.appointment.id } }, DESK_USER),
    ),
    request: change(() => ({ start_at: `${DAY}T14:00Z`, end_at: `${DAY}T14:30Z` })),
    expect: changed({ patient_confirmed_at: null, confirmation_state: 'awaiting_patient' }, 'end_at', 'start_at'),
  },
  {
    title: 'takes the same instant written another way as no move',
    given: aBooking(),
    request: change(() => ({ start_at: `${DAY}T10:00+01:00` })),
    expect: unchanged,
  },
  {
    title: 'refuses new times once the patient arrived (409 APPOINTMENT_TRANSITION_INVALID)',
    given: aBooking(() => ({ status: 'arrived' })),
    request: change(() => ({ start_at: '2027-03-01T10:00Z', end_at: '2027-03-01T10:30Z' })),
    expect: () => ({ refused: 'APPOINTMENT_TRANSITION_INVALID', status: 409, message: /rescheduled/ }),
  },
  {
    title: 'refuses an end at the start (value_error at end_at)',
    given: aBooking(),
    request: change(() => ({ end_at: `${DAY}T09:00Z` })),
    expect: () => ({ invalid: ['body.end_at'], types: ['value_error'] }),
  },
  {
    title: 'refuses an end not after the start, the stored start included (value_error at end_at)',
    given: aBooking(),
    request: change(() => ({ end_at: `${DAY}T08:00Z` })),
    expect: () => ({ invalid: ['body.end_at'], types: ['value_error'] }),
  },
  // What the patch names.
  {
    title: 'refuses an unknown appointment (404 APPOINTMENT_NOT_FOUND)',
    given: aBooking(),
    request: () => ({ path: { appointment_id: unknown }, body: { title: 'x' } }),
    expect: () => ({ refused: 'APPOINTMENT_NOT_FOUND', status: 404 }),
  },
  namingUnknown('refuses an unknown doctor (422 DOCTOR_NOT_FOUND)', () => ({ resource_id: unknown }), 'DOCTOR_NOT_FOUND'),
  namingUnknown(
    'refuses an unknown service among service_ids (422 SERVICE_NOT_FOUND)',
    () => ({ service_ids: [unknown] }),
    'SERVICE_NOT_FOUND',
  ),
  {
    title: 'changes the doctor, the services and the title at once, naming each changed',
    given: aBooking(),
    request: change((given) => ({ resource_id: given.otherDoctorId, service_ids: [given.check], title: 'Kontrolle' })),
    expect: (given) =>
      changed(
        { resource_id: given.otherDoctorId, service_ids: [given.check], title: 'Kontrolle' },
        'resource_id',
        'service_ids',
        'title',
      )(given),
  },
  {
    title: 'clears the doctor with null (a merge patch)',
    given: aBooking(),
    request: change(() => ({ resource_id: null })),
    expect: changed({ resource_id: null }, 'resource_id'),
  },
  // Services.
  {
    title: 'replaces the list when service_id alone changes the one service it was',
    given: aBooking((catalog) => ({ service_id: catalog.check })),
    request: change((given) => ({ service_id: given.cleaning })),
    expect: (given) =>
      changed({ service_id: given.cleaning, service_ids: [given.cleaning], service_name: 'Cleaning' }, 'service_id')(given),
  },
  {
    title: 'keeps a list of several when service_id alone changes',
    given: aBooking((catalog) => ({ service_ids: [catalog.check, catalog.cleaning] })),
    request: change((given) => ({ service_id: given.cleaning })),
    expect: (given) => changed({ service_id: given.cleaning, service_ids: [given.check, given.cleaning] }, 'service_id')(given),
  },
  {
    title: 'reads an empty service_ids as [service_id]',
    given: aBooking((catalog) => ({ service_ids: [catalog.check, catalog.cleaning] })),
    request: change((given) => ({ service_id: given.check, service_ids: [] })),
    expect: (given) => changed({ service_ids: [given.check] }, 'service_id', 'service_ids')(given),
  },
  // Retired doctors and services (1.3.0).
  {
    title: 'refuses to move an appointment whose doctor retired (422 DOCTOR_RETIRED)',
    given: aBooking(undefined, (db, given) => void performUseCase(RETIRE_DOCTOR, db, { path: { doctor_id: given.doctorId } }, DESK_USER)),
    request: change(() => ({ start_at: `${DAY}T11:00Z`, end_at: `${DAY}T11:30Z` })),
    expect: () => ({ refused: 'DOCTOR_RETIRED', status: 422, message: /Dr\. Slot/ }),
  },
  {
    title: 'lets an appointment keep its retired doctor through a change of status and notes',
    given: aBooking(undefined, (db, given) => void performUseCase(RETIRE_DOCTOR, db, { path: { doctor_id: given.doctorId } }, DESK_USER)),
    request: change(() => ({ status: 'arrived', notes: 'came early' })),
    expect: changed({ status: 'arrived', notes: 'came early' }, 'notes', 'status'),
  },
  {
    title: 'refuses a retired service newly named (422 SERVICE_RETIRED)',
    given: aBooking(undefined, (db, given) => void performUseCase(RETIRE_SERVICE, db, { path: { service_id: given.cleaning } }, DESK_USER)),
    request: change((given) => ({ service_ids: [given.cleaning] })),
    expect: () => ({ refused: 'SERVICE_RETIRED', status: 422, message: /Cleaning/ }),
  },
  {
    title: 'lets an appointment keep its retired service through a change of notes',
    given: aBooking(
      (catalog) => ({ service_ids: [catalog.cleaning] }),
      (db, given) => void performUseCase(RETIRE_SERVICE, db, { path: { service_id: given.cleaning } }, DESK_USER),
    ),
    request: change(() => ({ notes: 'bring the x-ray' })),
    expect: (given) => changed({ notes: 'bring the x-ray', service_ids: [given.cleaning] }, 'notes')(given),
  },
  // Overlaps (1.2.0).
  {
    title: "refuses with overlap reject a move into the doctor's other appointment, naming it (409 APPOINTMENT_OVERLAP)",
    given: aBooking(undefined, (db, given) => bookAnother(db, given, { start_at: `${DAY}T11:00Z`, end_at: `${DAY}T11:30Z` })),
    request: change(() => ({ start_at: `${DAY}T11:15Z`, end_at: `${DAY}T11:45Z`, overlap: 'reject' })),
    expect: (given) => ({ refused: 'APPOINTMENT_OVERLAP', status: 409, message: new RegExp(given.other!.appointment_number) }),
  },
  {
    title: 'moves into another appointment by default (overlap allow, as 1.0.0)',
    given: aBooking(undefined, (db, given) => bookAnother(db, given, { start_at: `${DAY}T11:00Z`, end_at: `${DAY}T11:30Z` })),
    request: change(() => ({ start_at: `${DAY}T11:15Z`, end_at: `${DAY}T11:45Z` })),
    expect: changed({ start_at: `${DAY}T11:15:00.000Z` }, 'end_at', 'start_at'),
  },
  {
    title: 'moves with overlap reject up to where the other begins: touching ends do not overlap',
    given: aBooking(undefined, (db, given) => bookAnother(db, given, { start_at: `${DAY}T11:00Z`, end_at: `${DAY}T11:30Z` })),
    request: change(() => ({ start_at: `${DAY}T10:30Z`, end_at: `${DAY}T11:00Z`, overlap: 'reject' })),
    expect: changed({ end_at: `${DAY}T11:00:00.000Z` }, 'end_at', 'start_at'),
  },
  {
    title: "moves with overlap reject into a cancelled appointment's slot, or another doctor's",
    given: aBooking(undefined, (db, given) => {
      bookAnother(db, given, { start_at: `${DAY}T11:00Z`, end_at: `${DAY}T11:30Z`, status: 'cancelled' });
      return bookAnother(db, given, { start_at: `${DAY}T11:00Z`, end_at: `${DAY}T11:30Z`, resource_id: given.otherDoctorId });
    }),
    request: change(() => ({ start_at: `${DAY}T11:00Z`, end_at: `${DAY}T11:30Z`, overlap: 'reject' })),
    expect: changed({ start_at: `${DAY}T11:00:00.000Z` }, 'end_at', 'start_at'),
  },
  {
    title: 'refuses with overlap reject to revive a no-show into a slot booked since (409 APPOINTMENT_OVERLAP)',
    given: aBooking(
      () => ({ status: 'no_show' }),
      (db, given) => bookAnother(db, given, {}),
    ),
    request: change(() => ({ status: 'arrived', overlap: 'reject' })),
    expect: () => ({ refused: 'APPOINTMENT_OVERLAP', status: 409 }),
  },
];

const rescheduleScenarios: Scenario<Given>[] = [
  {
    title: 'moves to a new start keeping the length when no end is given',
    given: aBooking((catalog) => ({ end_at: `${DAY}T09:45Z`, service_id: catalog.cleaning })),
    request: change(() => ({ start_at: `${DAY}T14:00Z` })),
    expect: changed({ start_at: `${DAY}T14:00:00.000Z`, end_at: `${DAY}T14:45:00.000Z` }, 'end_at', 'start_at'),
  },
  {
    title: 'takes the end given',
    given: aBooking(),
    request: change(() => ({ start_at: `${DAY}T14:00Z`, end_at: `${DAY}T15:00Z` })),
    expect: changed({ end_at: `${DAY}T15:00:00.000Z` }, 'end_at', 'start_at'),
  },
  {
    title: 'refuses an unknown appointment (404 APPOINTMENT_NOT_FOUND)',
    given: aBooking(),
    request: () => ({ path: { appointment_id: randomUUID() }, body: { start_at: `${DAY}T14:00Z` } }),
    expect: () => ({ refused: 'APPOINTMENT_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses to move a cancelled appointment (409 APPOINTMENT_TRANSITION_INVALID)',
    given: aBooking(undefined, (db, given) => void patchIt(db, given.appointment.id, { status: 'cancelled' })),
    request: change(() => ({ start_at: `${DAY}T14:00Z` })),
    expect: () => ({ refused: 'APPOINTMENT_TRANSITION_INVALID', status: 409 }),
  },
];

describeScenarios('UPDATE_APPOINTMENT', UPDATE_APPOINTMENT, scenarios);
describeScenarios('RESCHEDULE_APPOINTMENT', RESCHEDULE_APPOINTMENT, rescheduleScenarios);
