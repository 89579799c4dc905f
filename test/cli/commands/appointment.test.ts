import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { addDoctor, addService, type Doctor, type Service } from '../../../src/domain/catalog.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { buildPatient, createTestPatient } from '../../helpers/builders.js';
import { runClinic } from '../../helpers/run-cli.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { assertMatchesSchema } from '../../helpers/contract.js';
import { readAppointment } from '../../../src/domain/appointments/list-appointments.js';
import type { Patient } from '../../../src/domain/patients/present-patient.js';
import { jsonOf, refusalOf } from '../../helpers/desk-output.js';

describe('clinic book-appointment', () => {
  const data = useTestDatabase();
  let patientId: string;
  let cleaning: Service;
  let filling: Service;

  before(() => {
    setClinicTimeZone(data.db, 'Europe/Berlin');
    patientId = createPatient(data.db, buildPatient()).id;
    cleaning = addService(data.db, { name: 'Cleaning', duration_min: 45, price: 80, color: '#00ff00' });
    filling = addService(data.db, { name: 'Filling', duration_min: 30, price: 120, color: '#ff0000' });
  });

  /** book-appointment's arguments: from 9:00 on 1 December, clinic time, to `endAt`, for `patient` (none if undefined), and `extra`. */
  const bookingArgs = (patient: string | undefined, endAt: string, ...extra: string[]) => [
    'book-appointment',
    '--data',
    data.dataDir,
    ...(patient === undefined ? [] : ['--patient-id', patient]),
    '--start-at',
    '2026-12-01T09:00',
    '--end-at',
    endAt,
    ...extra,
  ];
  /** book-appointment's arguments for the test's patient, 9:00 to 9:30, and `extra`. */
  const bookArgs = (...extra: string[]) => bookingArgs(patientId, '2026-12-01T09:30', ...extra);

  it('books through the same rules as the API, as booking_source cli, and prints the Appointment with --json', async () => {
    const result = await runClinic(bookArgs('--json', '--title', 'Check-up', '--service-ids', JSON.stringify([filling.id, cleaning.id])));
    assert.equal(result.code, 0, result.stderr);
    const appointment = JSON.parse(result.stdout);
    assertMatchesSchema('Appointment', appointment);
    assert.equal(appointment.booking_source, 'cli');
    assert.match(appointment.appointment_number, /^A-\d{6}$/);
    assert.equal(appointment.patient_id, patientId);
    assert.equal(appointment.title, 'Check-up');
    assert.equal(appointment.status, 'booked');
    // Offset-less input is clinic local time: Berlin in winter is UTC+1.
    assert.equal(appointment.start_at, '2026-12-01T08:00:00.000Z');
    assert.equal(appointment.end_at, '2026-12-01T08:30:00.000Z');
    assert.deepEqual(appointment.service_ids, [filling.id, cleaning.id]);
    assert.equal(appointment.service_name, 'Filling');
    assert.equal(appointment.clinic_confirmed_at, appointment.created_at);
    assert.equal(appointment.confirmation_state, 'awaiting_patient');
  });

  it('prints the booking for people without --json: its number, clinic time, the service by name, no UUIDs', async () => {
    const result = await runClinic(bookArgs('--service-id', cleaning.id));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Appointment A-\d{6}$/m);
    assert.match(result.stdout, /Cleaning/);
    assert.match(result.stdout, /^When\s+\w{3} \d{2}\.\d{2}\.\d{4} \d{2}:\d{2}-\d{2}:\d{2}/m);
    assert.doesNotMatch(result.stdout, /[0-9a-f]{8}-[0-9a-f]{4}-/, 'no UUIDs');
  });

  it('exits 1 with the API error code for an unknown patient', async () => {
    const result = await runClinic(bookingArgs(randomUUID(), '2026-12-01T10:00'));
    assert.equal(result.code, 1);
    assert.match(result.stderr, /PATIENT_NOT_FOUND/);
  });

  it('exits 1 with the API error body under --json for end_at not after start_at', async () => {
    const result = await runClinic(bookingArgs(patientId, '2026-12-01T09:00', '--json'));
    assert.equal(result.code, 1);
    const body = JSON.parse(result.stderr);
    assert.equal(body.detail[0].type, 'value_error');
    assert.deepEqual(body.detail[0].loc, ['body', 'end_at']);
  });

  it('exits 1 with SERVICE_NOT_FOUND for an unknown entry of --service-ids', async () => {
    const result = await runClinic(bookArgs('--service-ids', JSON.stringify([randomUUID()])));
    assert.equal(result.code, 1);
    assert.match(result.stderr, /SERVICE_NOT_FOUND/);
  });

  it('sends a doctor name that matches nobody to `clinic doctor list`, not to the numbers on paper', async () => {
    const result = await runClinic(bookArgs('--resource-id', 'Dr. Nobody'));
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^error: DOCTOR_NOT_FOUND: No doctor is called "Dr. Nobody"\.\nhint: `clinic doctor list`/m);
    assert.doesNotMatch(result.stderr, /number on paper/);
  });

  it('exits 2 when a required option is missing', async () => {
    const result = await runClinic(bookingArgs(undefined, '2026-12-01T10:00'));
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--patient-id/);
  });
});

/** `clinic appointment reschedule|cancel|arrived|completed|no-show` and book-appointment's overlap (clinic-api-1.2.md). */
describe('the desk correcting appointments', () => {
  const data = useTestDatabase();
  let patient: Patient;
  let doctor: Doctor;
  before(() => {
    setClinicTimeZone(data.db, 'Europe/Vienna');
    patient = createTestPatient(data.db);
    doctor = addDoctor(data.db, { name: 'Dr. Desk', color: '#123456' });
  });
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);
  /** book-appointment --json's arguments for the patient with Dr. Desk from `start` to `end`, and `more`. */
  const bookingWithDoctorArgs = (start: string, end: string, ...more: string[]) => [
    'book-appointment',
    '--patient-id',
    patient.patient_number,
    '--resource-id',
    doctor.id,
    '--start-at',
    start,
    '--end-at',
    end,
    '--json',
    ...more,
  ];
  /** Books the patient with Dr. Desk from `start` to `end` (and `more`): the Appointment printed. */
  const book = async (start: string, end: string, ...more: string[]) => jsonOf(await clinic(...bookingWithDoctorArgs(start, end, ...more)));

  it('refuses an overlapping booking by default, naming the appointment in the way, and books it with --allow-overlap', async () => {
    const first = await book('2027-05-03T09:00', '2027-05-03T09:30');
    const refused = refusalOf(await clinic(...bookingWithDoctorArgs('2027-05-03T09:15', '2027-05-03T09:45')));
    assert.deepEqual([refused.code, refused.conflicts], ['APPOINTMENT_OVERLAP', [first.appointment_number]]);
    await book('2027-05-03T09:15', '2027-05-03T09:45', '--allow-overlap');
  });

  it('reschedules keeping the length, and says so for people', async () => {
    const booked = await book('2027-05-04T09:00', '2027-05-04T09:45');
    const result = await clinic('appointment', 'reschedule', String(booked.appointment_number), '--start-at', '2027-05-04T14:00');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^Appointment ${String(booked.appointment_number)} is rescheduled\\.$`, 'm'));
    const stored = readAppointment(data.db, booked.id);
    assert.deepEqual([stored.start_at, stored.end_at], ['2027-05-04T12:00:00.000Z', '2027-05-04T12:45:00.000Z']);
    assert.equal(stored.reschedule_from_start_at, '2027-05-04T07:00:00.000Z');
  });

  it('cancels with a reason, marks arrived, completed and no-show, and refuses a move the table forbids', async () => {
    const a = await book('2027-05-05T09:00', '2027-05-05T09:30');
    const cancelled = jsonOf(await clinic('appointment', 'cancel', String(a.appointment_number), '--reason', 'patient ill', '--json'));
    assert.deepEqual([cancelled.status, cancelled.status_reason], ['cancelled', 'patient ill']);
    assert.equal(
      refusalOf(await clinic('appointment', 'arrived', String(a.appointment_number), '--json')).code,
      'APPOINTMENT_TRANSITION_INVALID',
    );
    // In 2027: ahead of its time, which the desk refuses unless --force (issue 42: APPOINTMENT_NOT_STARTED).
    const b = await book('2027-05-05T10:00', '2027-05-05T10:30');
    assert.equal(jsonOf(await clinic('appointment', 'no-show', String(b.appointment_number), '--force', '--json')).status, 'no_show');
    assert.equal(jsonOf(await clinic('appointment', 'arrived', String(b.appointment_number), '--force', '--json')).status, 'arrived');
    const done = await clinic('appointment', 'completed', String(b.appointment_number), '--force');
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /is completed\.$/m);
    assert.match(done.stdout, /^Status +completed$/m);
  });
});
