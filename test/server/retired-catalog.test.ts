import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { bookAppointment } from '../../src/domain/appointments/book-appointment.js';
import type { Appointment } from '../../src/domain/appointments/present-appointment.js';
import { addDoctor, addService, RETIRE_DOCTOR, RETIRE_SERVICE, type Doctor, type Service } from '../../src/domain/catalog.js';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import { setClinicTimeZone } from '../../src/domain/settings.js';
import { performUseCase } from '../../src/domain/use-case.js';
import { createTestPatient } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';

/**
 * Booking and changing appointments with a retired doctor or service over the API
 * (clinic-api-1.3.md, "Doctors and services"): a new booking or a move needs them bookable; an
 * appointment that already names one keeps it.
 */
describe('a retired doctor or service on the API', () => {
  const server = useTestServer();
  let patient: Patient;
  let gone: Doctor;
  let active: Doctor;
  let oldService: Service;
  let service: Service;
  /** Booked before the retirements. */
  let withGone: Appointment;
  let withOldService: Appointment;
  let day = 0;

  const body = (fields: Record<string, unknown> = {}) => {
    day += 1;
    const date = `2027-02-${String(day).padStart(2, '0')}`;
    return { patient_id: patient.id, start_at: `${date}T09:00Z`, end_at: `${date}T09:30Z`, ...fields };
  };
  const patch = (id: string, changes: unknown) => server.request('PATCH', `/appointments/${id}`, { body: changes });
  const refusal = (answer: { status: number; body: { detail: { code: string; id?: string } } }) => [
    answer.status,
    answer.body.detail.code,
    answer.body.detail.id,
  ];

  before(() => {
    setClinicTimeZone(server.db, 'UTC');
    patient = createTestPatient(server.db);
    gone = addDoctor(server.db, { name: 'Dr. Gone', color: 'grey' });
    active = addDoctor(server.db, { name: 'Dr. Here', color: 'green' });
    oldService = addService(server.db, { name: 'Old Check', duration_min: 30, price: 40, color: 'brown' });
    service = addService(server.db, { name: 'Check', duration_min: 30, price: 50, color: 'teal' });
    withGone = bookAppointment(server.db, body({ resource_id: gone.id, service_id: service.id }), 'api');
    withOldService = bookAppointment(server.db, body({ resource_id: active.id, service_id: oldService.id }), 'api');
    const asked = { source: 'cli', actor: null } as const;
    performUseCase(RETIRE_DOCTOR, server.db, { path: { doctor_id: gone.id } }, asked);
    performUseCase(RETIRE_SERVICE, server.db, { path: { service_id: oldService.id } }, asked);
  });

  it('refuses a booking with either: 422 DOCTOR_RETIRED or SERVICE_RETIRED naming its id, after the 1.2.0 checks', async () => {
    assert.deepEqual(refusal(await server.request('POST', '/appointments', { body: body({ resource_id: gone.id }) })), [
      422,
      'DOCTOR_RETIRED',
      gone.id,
    ]);
    assert.deepEqual(refusal(await server.request('POST', '/appointments', { body: body({ service_ids: [service.id, oldService.id] }) })), [
      422,
      'SERVICE_RETIRED',
      oldService.id,
    ]);
    // An unknown service is still SERVICE_NOT_FOUND, whatever else is retired.
    const unknown = await server.request('POST', '/appointments', {
      body: body({ resource_id: gone.id, service_id: '00000000-0000-4000-8000-000000000000' }),
    });
    assert.deepEqual([unknown.status, unknown.body.detail.code], [422, 'SERVICE_NOT_FOUND']);
    const booked = await server.request('POST', '/appointments', { body: body({ resource_id: active.id, service_id: service.id }) });
    assert.equal(booked.status, 201, booked.text);
  });

  it('keeps an appointment that names one through changes that do not move it, and refuses a move or naming one anew', async () => {
    const noted = await patch(withGone.id, { notes: 'Patient informed', status: 'cancelled', resource_id: gone.id });
    assert.equal(noted.status, 200, noted.text);
    assert.equal(noted.body.resource_id, gone.id);

    const kept = await patch(withOldService.id, { title: 'Still the old check' });
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(kept.body.service_ids, [oldService.id]);
    assert.deepEqual(refusal(await patch(withOldService.id, { start_at: '2027-03-01T09:00Z', end_at: '2027-03-01T09:30Z' })), [
      422,
      'SERVICE_RETIRED',
      oldService.id,
    ]);
    const mine = bookAppointment(server.db, body({ resource_id: active.id, service_id: service.id }), 'api');
    assert.deepEqual(refusal(await patch(mine.id, { resource_id: gone.id })), [422, 'DOCTOR_RETIRED', gone.id]);
    assert.deepEqual(refusal(await patch(mine.id, { service_ids: [service.id, oldService.id] })), [422, 'SERVICE_RETIRED', oldService.id]);
    // Moved with a bookable doctor and service instead, the move is taken.
    const moved = await patch(withOldService.id, {
      start_at: '2027-03-01T09:00Z',
      end_at: '2027-03-01T09:30Z',
      service_id: service.id,
      service_ids: [service.id],
    });
    assert.equal(moved.status, 200, moved.text);
  });
});
