import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { bookAppointment } from '../../src/domain/appointments/book-appointment.js';
import type { Appointment } from '../../src/domain/appointments/present-appointment.js';
import { addDoctor, addService, type Doctor, type Service } from '../../src/domain/catalog.js';
import { setClinicTimeZone } from '../../src/domain/settings.js';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import { createTestPatient } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';

/** PATCH /appointments/{appointment_id}, overlaps and GET /appointments?status= (clinic-api-1.2.md, "Appointments"). */
describe('changing appointments', () => {
  const server = useTestServer();
  let patient: Patient;
  let doctor: Doctor;
  let other: Doctor;
  let service: Service;
  let day = 0;
  before(() => {
    setClinicTimeZone(server.db, 'UTC');
    patient = createTestPatient(server.db);
    doctor = addDoctor(server.db, { name: 'Dr. Slot', color: '#123456' });
    other = addDoctor(server.db, { name: 'Dr. Other', color: '#654321' });
    service = addService(server.db, { name: 'Check', duration_min: 30, price: '50', color: '#00ff00' });
  });
  /** A booking on a day of its own, so that no two tests share a slot. */
  const book = (fields: Record<string, unknown> = {}): Appointment => {
    day += 1;
    const date = `2027-01-${String(day).padStart(2, '0')}`;
    return bookAppointment(
      server.db,
      { patient_id: patient.id, start_at: `${date}T09:00Z`, end_at: `${date}T09:30Z`, resource_id: doctor.id, ...fields },
      'api',
    );
  };
  const patch = (id: string, body: unknown) => server.request('PATCH', `/appointments/${id}`, { body });

  describe('status', () => {
    const allowed: [string, string][] = [
      ['booked', 'arrived'],
      ['booked', 'no_show'],
      ['booked', 'cancelled'],
      ['arrived', 'completed'],
      ['arrived', 'cancelled'],
      ['no_show', 'arrived'],
      ['wartend', 'completed'],
    ];
    for (const [from, to] of allowed) {
      it(`moves ${from} → ${to}, stamping status_changed_at`, async () => {
        const appointment = book({ status: from });
        const answer = await patch(appointment.id, { status: to, status_reason: 'desk' });
        assert.equal(answer.status, 200, answer.text);
        assert.deepEqual([answer.body.status, answer.body.status_reason], [to, 'desk']);
        assert.match(answer.body.status_changed_at, /^\d{4}-/);
        assert.equal(appointment.status_changed_at, null);
      });
    }
    const forbidden: [string, string][] = [
      ['booked', 'completed'],
      ['arrived', 'booked'],
      ['completed', 'cancelled'],
      ['cancelled', 'booked'],
      ['no_show', 'completed'],
    ];
    for (const [from, to] of forbidden) {
      it(`refuses ${from} → ${to} with 409 APPOINTMENT_TRANSITION_INVALID naming both, changing nothing`, async () => {
        const appointment = book({ status: from });
        const answer = await patch(appointment.id, { status: to });
        assert.equal(answer.status, 409);
        assert.equal(answer.body.detail.code, 'APPOINTMENT_TRANSITION_INVALID');
        assert.ok(answer.body.detail.message.includes(from) && answer.body.detail.message.includes(to), answer.body.detail.message);
        assert.equal((await server.request('GET', `/appointments/${appointment.id}`)).body.status, from);
      });
    }

    it('answers the status it already has as no change, and refuses a status outside the five with literal_error', async () => {
      const appointment = book();
      const same = await patch(appointment.id, { status: 'booked' });
      assert.equal(same.status, 200);
      assert.equal(same.body.updated_at, appointment.updated_at);
      assert.equal(same.body.status_changed_at, null);
      const odd = await patch(appointment.id, { status: 'wartend' });
      assert.equal(odd.status, 422);
      assert.deepEqual([odd.body.detail[0].type, odd.body.detail[0].loc], ['literal_error', ['body', 'status']]);
    });
  });

  describe('reschedule', () => {
    it('keeps where it came from, and asks the patient to confirm again', async () => {
      const appointment = book();
      const answer = await patch(appointment.id, { start_at: '2027-02-01T10:00Z', end_at: '2027-02-01T10:45Z' });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.start_at, '2027-02-01T10:00:00.000Z');
      assert.equal(answer.body.reschedule_from_start_at, appointment.start_at);
      assert.equal(answer.body.reschedule_from_end_at, appointment.end_at);
      assert.equal(answer.body.reschedule_by_role, 'clinic');
      assert.match(answer.body.reschedule_at, /^\d{4}-/);
      assert.equal(answer.body.patient_confirmed_at, null);
      assert.equal(answer.body.confirmation_state, 'awaiting_patient');
      const sheet = await server.request('GET', '/appointments?from=2027-02-01&to=2027-02-01');
      assert.deepEqual(
        sheet.body.map((a: Appointment) => a.id),
        [appointment.id],
      );
    });

    it('refuses new times once the patient arrived (409), and an end not after the start (422)', async () => {
      const arrived = book({ status: 'arrived' });
      const moved = await patch(arrived.id, { start_at: '2027-03-01T10:00Z', end_at: '2027-03-01T10:30Z' });
      assert.equal(moved.status, 409);
      assert.equal(moved.body.detail.code, 'APPOINTMENT_TRANSITION_INVALID');
      const booked = book();
      const backwards = await patch(booked.id, { end_at: '2027-01-01T08:00Z' });
      assert.equal(backwards.status, 422);
      assert.deepEqual(backwards.body.detail[0].loc, ['body', 'end_at']);
    });

    it('refuses an unknown doctor or service with their 422 codes', async () => {
      const appointment = book();
      const unknown = '00000000-0000-4000-8000-000000000000';
      assert.equal((await patch(appointment.id, { resource_id: unknown })).body.detail.code, 'DOCTOR_NOT_FOUND');
      assert.equal((await patch(appointment.id, { service_ids: [unknown] })).body.detail.code, 'SERVICE_NOT_FOUND');
      const changed = await patch(appointment.id, { resource_id: other.id, service_ids: [service.id], title: 'Kontrolle' });
      assert.deepEqual([changed.body.resource_id, changed.body.service_ids, changed.body.title], [other.id, [service.id], 'Kontrolle']);
    });

    it('answers 404 for an unknown appointment', async () => {
      const answer = await patch('00000000-0000-4000-8000-000000000000', { title: 'x' });
      assert.equal(answer.body.detail.code, 'APPOINTMENT_NOT_FOUND');
    });
  });

  describe('overlap', () => {
    it('refuses with reject an intersecting booking of the same doctor, naming the others by number, and allows by default', async () => {
      const first = book();
      const start = first.start_at;
      const end = first.end_at;
      const body = { patient_id: patient.id, start_at: start, end_at: end, resource_id: doctor.id };
      const refused = await server.request('POST', '/appointments', { body: { ...body, overlap: 'reject' } });
      assert.equal(refused.status, 409);
      assert.deepEqual(refused.body.detail.code, 'APPOINTMENT_OVERLAP');
      assert.deepEqual(refused.body.detail.conflicts, [first.appointment_number]);
      assert.equal(
        (await server.request('POST', '/appointments', { body: { ...body, resource_id: other.id, overlap: 'reject' } })).status,
        201,
      );
      assert.equal((await server.request('POST', '/appointments', { body })).status, 201, 'allow, as 1.0.0');
      const bad = await server.request('POST', '/appointments', { body: { ...body, overlap: 'maybe' } });
      assert.equal(bad.body.detail[0].type, 'literal_error');
    });

    it('lets a cancelled appointment free its slot, and touching ends do not overlap', async () => {
      const first = book();
      const body = { patient_id: patient.id, resource_id: doctor.id, overlap: 'reject' };
      const after = await server.request('POST', '/appointments', {
        body: { ...body, start_at: first.end_at, end_at: `${first.end_at.slice(0, 10)}T10:00Z` },
      });
      assert.equal(after.status, 201);
      await patch(first.id, { status: 'cancelled' });
      const again = await server.request('POST', '/appointments', { body: { ...body, start_at: first.start_at, end_at: first.end_at } });
      assert.equal(again.status, 201);
    });

    it('checks a PATCH that moves or revives an appointment into another one', async () => {
      const first = book();
      const second = book();
      const moved = await patch(second.id, { start_at: first.start_at, end_at: first.end_at, overlap: 'reject' });
      assert.equal(moved.status, 409);
      assert.deepEqual(moved.body.detail.conflicts, [first.appointment_number]);
      const noShow = book({ status: 'no_show', start_at: first.start_at, end_at: first.end_at });
      const revived = await patch(noShow.id, { status: 'arrived', overlap: 'reject' });
      assert.equal(revived.status, 409);
    });

    it('books exactly one of 20 concurrent reject bookings of one slot', async () => {
      day += 1;
      const date = `2027-01-${String(day).padStart(2, '0')}`;
      const body = {
        patient_id: patient.id,
        start_at: `${date}T09:00Z`,
        end_at: `${date}T09:30Z`,
        resource_id: doctor.id,
        overlap: 'reject',
      };
      const answers = await Promise.all(Array.from({ length: 20 }, () => server.request('POST', '/appointments', { body })));
      assert.equal(answers.filter((a) => a.status === 201).length, 1);
      assert.ok(answers.filter((a) => a.status !== 201).every((a) => a.body.detail.code === 'APPOINTMENT_OVERLAP'));
    });
  });

  it('filters GET /appointments by status', async () => {
    const booked = book();
    const date = booked.start_at.slice(0, 10);
    const cancelled = book({ start_at: `${date}T11:00Z`, end_at: `${date}T11:30Z` });
    await patch(cancelled.id, { status: 'cancelled' });
    const ids = async (status: string) =>
      (await server.request('GET', `/appointments?from=${date}&to=${date}&status=${status}`)).body.map((a: Appointment) => a.id);
    assert.deepEqual(await ids('booked,arrived'), [booked.id]);
    assert.deepEqual(await ids('cancelled'), [cancelled.id]);
  });
});
