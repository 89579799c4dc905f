import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findAppointment } from '../../src/db/appointments.js';
import { answerForPatient } from '../../src/domain/appointments/confirm-appointment.js';
import { buildPatient } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';
import { runClinic } from '../helpers/run-cli.js';

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
