import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findAppointment } from '../../../src/db/appointments.js';
import type { Db } from '../../../src/db/open-database.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { answerForPatient, CONFIRM_APPOINTMENT } from '../../../src/domain/appointments/confirm-appointment.js';
import { presentStoredAppointment, type Appointment } from '../../../src/domain/appointments/present-appointment.js';
import type { Caller } from '../../../src/domain/use-case.js';
import { buildPatient, createTestPatient, insertBlockedTime } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';
import { describeScenarios, DESK_USER, type Outcome, type Scenario } from '../../helpers/use-case-scenarios.js';

/** POST /appointments/{id}/confirm and `clinic appointment confirm` (interface 1.3.0): the patient's yes, recorded once. */
describe('confirming an appointment for the patient', () => {
  const server = useTestServer();
  const book = async (start = '2030-03-05T10:00:00Z') => {
    const patient = (await server.request('POST', '/patients', { body: buildPatient() })).body.id;
    const booked = await server.request('POST', '/appointments', {
      body: { patient_id: patient, start_at: start, end_at: '2030-03-05T10:30:00Z' },
    });
    return booked.body as { id: string; appointment_number: string; patient_id: string };
  };
  const feedOf = async (appointmentId: string) =>
    ((await server.request('GET', '/events?limit=200')).body as { type: string; data: { appointment_id?: string; via?: string } }[])
      .filter((event) => event.data.appointment_id === appointmentId && event.type.startsWith('appointment.'))
      .map((event) => [event.type, event.data.via ?? null]);
  const trailOf = async (patientId: string) =>
    ((await server.request('GET', `/audit-events?patient_id=${patientId}`)).body as { action: string; actor_type: string }[])
      .filter((event) => event.action.startsWith('appointment.confirm') || event.action.startsWith('appointment.decline'))
      .map((event) => [event.action, event.actor_type]);

  it('sets patient_confirmed_at, answers the appointment, and records it once (appointment.confirm, appointment.confirmed via api)', async () => {
    const appointment = await book();
    const confirmed = await server.request('POST', `/appointments/${appointment.id}/confirm`);
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.equal(confirmed.body.confirmation_state, 'confirmed');
    assert.match(confirmed.body.patient_confirmed_at, /^\d{4}-\d\d-\d\dT/);
    assert.equal(confirmed.body.patient_declined_at, null);
    const again = await server.request('POST', `/appointments/${appointment.id}/confirm`);
    assert.deepEqual([again.status, again.body.patient_confirmed_at], [200, confirmed.body.patient_confirmed_at]);
    assert.deepEqual(await feedOf(appointment.id), [
      ['appointment.created', null],
      ['appointment.confirmed', 'api'],
    ]);
    assert.deepEqual(await trailOf(appointment.patient_id), [['appointment.confirm', 'api_key']]);
  });

  it('refuses an unknown appointment (404), a malformed id (422) and one that is cancelled (409)', async () => {
    const unknown = await server.request('POST', '/appointments/5b8d0f2a-4c6e-4a81-b3d5-7e9f1a2c4b6d/confirm');
    assert.deepEqual([unknown.status, unknown.body.detail.code], [404, 'APPOINTMENT_NOT_FOUND']);
    assert.equal((await server.request('POST', '/appointments/not-an-id/confirm')).status, 422);
    const appointment = await book();
    await server.request('PATCH', `/appointments/${appointment.id}`, { body: { status: 'cancelled' } });
    const refused = await server.request('POST', `/appointments/${appointment.id}/confirm`);
    assert.deepEqual([refused.status, refused.body.detail.code], [409, 'APPOINTMENT_TRANSITION_INVALID']);
    assert.deepEqual(await trailOf(appointment.patient_id), []);
  });

  it('shows a decline as declined until a confirmation or a reschedule asks again; the desk confirms via desk', async () => {
    const appointment = await book();
    answerForPatient(server.db, findAppointment(server.db, appointment.id)!, 'decline', 'sms');
    const declined = await server.request('GET', `/appointments/${appointment.id}`);
    assert.equal(declined.body.confirmation_state, 'declined');
    const desk = await runClinic(['appointment', 'confirm', appointment.appointment_number, '--json', '--data', server.dataDir]);
    assert.equal(desk.code, 0, desk.stderr);
    assert.deepEqual([JSON.parse(desk.stdout).confirmation_state, JSON.parse(desk.stdout).patient_declined_at], ['confirmed', null]);
    assert.deepEqual((await feedOf(appointment.id)).slice(1), [['appointment.confirmed', 'desk']]);
    answerForPatient(server.db, findAppointment(server.db, appointment.id)!, 'decline', 'sms');
    const moved = await server.request('PATCH', `/appointments/${appointment.id}`, {
      body: { start_at: '2030-03-06T10:00:00Z', end_at: '2030-03-06T10:30:00Z' },
    });
    assert.deepEqual(
      [moved.body.confirmation_state, moved.body.patient_declined_at, moved.body.patient_confirmed_at],
      ['awaiting_patient', null, null],
    );
  });
});

/**
 * CONFIRM_APPOINTMENT (POST /appointments/{appointment_id}/confirm, `clinic appointment confirm`),
 * rule by rule (clinic-api-1.3.md, "Channels and replies"): the patient's yes, given otherwise
 * than by a reply, recorded as a reply is. The wiring of each front end (the 200 and its body,
 * the desk's REF and printout, the actor each gives): the tests above.
 */

interface ConfirmGiven {
  /** The appointment to confirm, as `first` left it. */
  appointment: Appointment;
}

/**
 * A clinic with a patient booked 10:00-10:30 UTC on 5 March 2030, with `fields` over that; `first`
 * runs next (a decline by SMS, a confirmation) and may give another appointment to confirm.
 */
const aBooking =
  (fields: Record<string, unknown> = {}, first: (db: Db, appointment: Appointment) => Appointment | void = () => {}) =>
  (db: Db): ConfirmGiven => {
    const patientId = createTestPatient(db).id;
    const booked = bookAppointment(
      db,
      { patient_id: patientId, start_at: '2030-03-05T10:00:00Z', end_at: '2030-03-05T10:30:00Z', ...fields },
      'api',
    );
    const changed = first(db, booked);
    return { appointment: changed ?? findStored(db, booked.id) };
  };

/** The appointment `id` as stored now, in its API shape. */
const findStored = (db: Db, id: string) => presentStoredAppointment(db, findAppointment(db, id)!);

/** The patient's `reply` to a reminder, as `serve` writes it on the appointment. */
const answer = (reply: 'confirm' | 'decline') => (db: Db, appointment: Appointment) =>
  void answerForPatient(db, findAppointment(db, appointment.id)!, reply, 'sms');

const confirmRequest = (given: ConfirmGiven) => ({ path: { appointment_id: given.appointment.id } });

/** appointment.confirm of the patient's appointment, and appointment.confirmed with `via`. */
const confirmRecords = (given: ConfirmGiven, via: 'desk' | 'api') => ({
  audit: [
    {
      action: 'appointment.confirm',
      patient_id: given.appointment.patient_id,
      subject_type: 'appointment',
      subject_id: given.appointment.id,
      detail: null,
    },
  ],
  changes: [
    {
      type: 'appointment.confirmed',
      patient_id: given.appointment.patient_id,
      data: {
        appointment_id: given.appointment.id,
        appointment_number: given.appointment.appointment_number,
        start_at: given.appointment.start_at,
        end_at: given.appointment.end_at,
        status: given.appointment.status,
        resource_id: null,
        via,
      },
    },
  ],
});

/** Confirmed now, the decline cleared, and recorded with `via`. */
const confirmed =
  (via: 'desk' | 'api' = 'desk') =>
  (given: ConfirmGiven): Outcome => ({
    result: {
      answer: 'confirm',
      changed: true,
      via,
      appointment: {
        id: given.appointment.id,
        status: given.appointment.status,
        patient_confirmed_at: /^\d{4}-\d\d-\d\dT/,
        patient_declined_at: null,
        confirmation_state: 'confirmed',
      },
    },
    ...confirmRecords(given, via),
  });

const API_KEY: Caller = {
  source: 'api',
  actor: { type: 'api_key', id: 'k1', name: 'Praxis-Software', source: '127.0.0.1', requestId: null },
};

const confirmScenarios: Scenario<ConfirmGiven>[] = [
  {
    title: 'confirms a booked appointment at the desk: patient_confirmed_at now, confirmed, via desk',
    given: aBooking(),
    request: confirmRequest,
    expect: confirmed('desk'),
  },
  {
    title: 'confirms through the API via api',
    given: aBooking(),
    request: confirmRequest,
    caller: API_KEY,
    expect: confirmed('api'),
  },
  {
    title: 'confirms an appointment in a 1.0.0 free status, which stays',
    given: aBooking({ status: 'waiting list' }),
    request: confirmRequest,
    expect: confirmed(),
  },
  {
    title: 'confirms a booked appointment whose time has passed: only its status decides',
    given: aBooking({ start_at: '2020-03-05T10:00:00Z', end_at: '2020-03-05T10:30:00Z' }),
    request: confirmRequest,
    expect: confirmed(),
  },
  {
    title: 'clears a decline the patient sent before: confirmed, not declined',
    given: aBooking({}, answer('decline')),
    request: confirmRequest,
    expect: confirmed(),
  },
  {
    title: 'answers a confirmed appointment as it stands, its first confirmation kept, and records nothing',
    given: aBooking({}, answer('confirm')),
    request: confirmRequest,
    expect: (given) => ({
      result: {
        changed: false,
        appointment: { patient_confirmed_at: given.appointment.patient_confirmed_at, confirmation_state: 'confirmed' },
      },
      audit: [],
      changes: [],
    }),
  },
  {
    title: "confirms a blocked time of no patient with no audit record: it shows no patient's data",
    given: aBooking({}, (db, appointment) => findStored(db, insertBlockedTime(db, appointment.id))),
    request: confirmRequest,
    expect: (given) => ({
      result: { changed: true, appointment: { patient_id: null, confirmation_state: 'confirmed' } },
      audit: [],
      changes: [{ type: 'appointment.confirmed', patient_id: null, dataIncludes: { appointment_id: given.appointment.id, via: 'desk' } }],
    }),
  },
  ...['cancelled', 'no_show', 'arrived', 'completed'].map((status): Scenario<ConfirmGiven> => ({
    title: `refuses an appointment that is ${status} (409 APPOINTMENT_TRANSITION_INVALID)`,
    given: aBooking({ status }),
    request: confirmRequest,
    expect: () => ({ refused: 'APPOINTMENT_TRANSITION_INVALID', status: 409, message: new RegExp(`is ${status} cannot become confirmed`) }),
  })),
  {
    title: 'refuses an unknown appointment (404 APPOINTMENT_NOT_FOUND)',
    given: aBooking(),
    request: () => ({ path: { appointment_id: '5b8d0f2a-4c6e-4a81-b3d5-7e9f1a2c4b6d' } }),
    expect: () => ({ refused: 'APPOINTMENT_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses a malformed id (uuid_parsing)',
    given: aBooking(),
    request: () => ({ path: { appointment_id: 'A-000001' } }),
    expect: () => ({ invalid: ['path.appointment_id'], types: ['uuid_parsing'] }),
  },
  {
    title: 'refuses a person of billing: admin, reception, practitioners and schedulers confirm (403 ROLE_FORBIDDEN)',
    given: aBooking(),
    request: confirmRequest,
    caller: { ...DESK_USER, roles: ['billing'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

describeScenarios('confirming an appointment for the patient (CONFIRM_APPOINTMENT)', CONFIRM_APPOINTMENT, confirmScenarios);
