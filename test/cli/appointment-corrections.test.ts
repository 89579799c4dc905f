import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { readAppointment } from '../../src/domain/appointments/list-appointments.js';
import { addDoctor, type Doctor } from '../../src/domain/catalog.js';
import { setClinicTimeZone } from '../../src/domain/settings.js';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import { createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { runClinic, type CliResult } from '../helpers/run-cli.js';

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
  const json = (result: CliResult) => {
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const refusal = (result: CliResult) => {
    assert.equal(result.code, 1, result.stdout + result.stderr);
    return (JSON.parse(result.stderr) as { detail: { code: string; conflicts?: string[] } }).detail;
  };
  const book = async (start: string, end: string, ...more: string[]) =>
    json(
      await clinic(
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
      ),
    );

  it('refuses an overlapping booking by default, naming the appointment in the way, and books it with --allow-overlap', async () => {
    const first = await book('2027-05-03T09:00', '2027-05-03T09:30');
    const refused = refusal(
      await clinic(
        'book-appointment',
        '--patient-id',
        patient.patient_number,
        '--resource-id',
        doctor.id,
        '--start-at',
        '2027-05-03T09:15',
        '--end-at',
        '2027-05-03T09:45',
        '--json',
      ),
    );
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
    const cancelled = json(await clinic('appointment', 'cancel', String(a.appointment_number), '--reason', 'patient ill', '--json'));
    assert.deepEqual([cancelled.status, cancelled.status_reason], ['cancelled', 'patient ill']);
    assert.equal(
      refusal(await clinic('appointment', 'arrived', String(a.appointment_number), '--json')).code,
      'APPOINTMENT_TRANSITION_INVALID',
    );
    // In 2027: ahead of its time, which the desk refuses unless --force (issue 42: APPOINTMENT_NOT_STARTED).
    const b = await book('2027-05-05T10:00', '2027-05-05T10:30');
    assert.equal(json(await clinic('appointment', 'no-show', String(b.appointment_number), '--force', '--json')).status, 'no_show');
    assert.equal(json(await clinic('appointment', 'arrived', String(b.appointment_number), '--force', '--json')).status, 'arrived');
    const done = await clinic('appointment', 'completed', String(b.appointment_number), '--force');
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /is completed\.$/m);
    assert.match(done.stdout, /^Status +completed$/m);
  });
});
