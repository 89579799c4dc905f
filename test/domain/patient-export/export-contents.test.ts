import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { insertReminders, leaseReminder, markReminderSent } from '../../../src/db/reminders.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { appendAuditEvents } from '../../../src/domain/audit/record-audit.js';
import { addDoctor } from '../../../src/domain/catalog.js';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { readPatientExport } from '../../../src/domain/patient-export/export-contents.js';
import { recordServerChannels } from '../../../src/domain/reminders/reminder-channels.js';
import { writeSmsGateway } from '../../../src/domain/reminders/sms-gateway.js';
import { setClinicCountry, setClinicName, setClinicTimeZone } from '../../../src/domain/settings.js';
import { AppError } from '../../../src/errors.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { addDocument } from '../../helpers/module-tables.js';
import { thrownBy } from '../../helpers/thrown.js';

// What the patient's copy holds (clinic-api-1.3.md, "The patient's copy"): every record of the
// patient, in the API's shapes, and nothing of anyone else's; the archive around it is
// export-archive.test.ts.

const NOW = '2026-11-30T10:00:00.000Z';
const KEY = { type: 'api_key', id: 'k-1', name: 'Praxis-Software', source: '127.0.0.1', requestId: null } as const;

/** Appends `count` reads of `patientId` by the API key KEY, in one transaction. */
function recordReads(db: Db, patientId: string, count: number): void {
  db.transaction(() =>
    appendAuditEvents(
      db,
      KEY,
      Array.from({ length: count }, () => ({ action: 'patient.read' as const, patientId, subjectId: patientId })),
    ),
  )();
}

/** A reminder of `appointmentId` sent by `channel` at `sentAt`, stored as sending stores it. */
function sendReminder(db: Db, appointmentId: string, patientId: string, channel: 'sms' | 'email', sentAt: string): void {
  const id = randomUUID();
  insertReminders(db, [
    {
      id,
      appointment_id: appointmentId,
      patient_id: patientId,
      rule_ms: 86_400_000,
      due_at: sentAt,
      state: 'scheduled',
      reason: null,
      created_at: sentAt,
    },
  ]);
  const { seq } = db.prepare('SELECT seq FROM reminders WHERE id = ?').get(id) as { seq: number };
  leaseReminder(db, { seq, lease_until: sentAt, channel, recipient: 'x', subject: null, text: 'Termin', now: sentAt });
  markReminderSent(db, { seq, appointment_id: appointmentId, provider_message_id: null, now: sentAt });
}

/** Books an hour at `start` for `patientId` with `doctorId`. */
const book = (db: Db, patientId: string, doctorId: string, start: string) =>
  bookAppointment(db, { patient_id: patientId, start_at: start, end_at: start.replace('T09', 'T10'), resource_id: doctorId }, 'api');

describe('readPatientExport', () => {
  const data = useTestDatabase({ each: true });

  it("holds the patient's records and no one else's, documents oldest first, each doctor its appointments name once", () => {
    const { db, dataDir } = data;
    const patient = createTestPatient(db);
    const other = createTestPatient(db, { first_name: 'Otto' });
    const [gruber, berger, unused] = ['Dr. Gruber', 'Dr. Berger', 'Dr. Nie'].map((name) => addDoctor(db, { name, color: 'blue' }).id);
    book(db, patient.id, gruber!, '2026-03-10T09:00:00Z');
    book(db, patient.id, gruber!, '2026-03-12T09:00:00Z');
    book(db, other.id, berger!, '2026-03-11T09:00:00Z');
    book(db, other.id, unused!, '2026-03-13T09:00:00Z');
    const invoice = createInvoice(db, { patient_id: patient.id, total: '80.00' });
    createInvoice(db, { patient_id: other.id, total: '10.00' });
    const first = addDocument(db, dataDir, patient.id, Buffer.from('first'));
    const second = addDocument(db, dataDir, patient.id, Buffer.from('second'));
    addDocument(db, dataDir, other.id, Buffer.from('not theirs'));
    const contents = readPatientExport(db, patient.id, NOW);
    assert.equal(contents.patient.id, patient.id);
    assert.equal(contents.patient.outstanding_balance, '80.00');
    assert.deepEqual(
      contents.appointments.map((appointment) => [appointment.patient_id, appointment.start_at]),
      [
        [patient.id, '2026-03-10T09:00:00.000Z'],
        [patient.id, '2026-03-12T09:00:00.000Z'],
      ],
    );
    assert.deepEqual(
      contents.invoices.map((detail) => detail.id),
      [invoice.id],
    );
    assert.deepEqual(
      contents.documents.map((document) => document.id),
      [first, second],
    );
    assert.deepEqual(
      contents.documentRows.map((row) => [row.id, row.size]),
      [
        [first, 5],
        [second, 6],
      ],
    );
    assert.deepEqual(
      contents.doctors.map((doctor) => doctor.name),
      ['Dr. Gruber'],
    );
    assert.equal(contents.createdAt, NOW);
  });

  it("holds the patient's whole access log, 500 events (a page of its reads) as 501, and names the key that read it", () => {
    const { db } = data;
    for (const reads of [500, 501]) {
      const patient = createTestPatient(db);
      recordReads(db, patient.id, reads - 1);
      recordReads(db, createTestPatient(db).id, 3);
      recordReads(db, patient.id, 1);
      const contents = readPatientExport(db, patient.id, NOW);
      assert.equal(contents.accessLog.length, reads);
      assert.ok(
        contents.accessLog.every((event, i) => event.patient_id === patient.id && (i === 0 || event.seq > contents.accessLog[i - 1]!.seq)),
        "the patient's events only, in the trail's order",
      );
      assert.deepEqual(
        contents.recipients.api_keys.map((key) => [key.key_id, key.name, key.events]),
        [['k-1', 'Praxis-Software', reads]],
      );
    }
  });

  it('names the clinic, its time zone, and the hosts of the SMS gateway and the SMTP server that carried its reminders, without the port', () => {
    const { db } = data;
    setClinicName(db, 'Praxis Dr. Gruber');
    setClinicCountry(db, 'AT');
    setClinicTimeZone(db, 'Europe/Vienna');
    recordServerChannels(db, 'mail.praxis.at:587');
    writeSmsGateway(db, { preset: 'twilio', account: 'AC1', token: 'secret', from: '+43720123456', baseUrl: 'https://api.twilio.com:443' });
    const patient = createTestPatient(db);
    const doctor = addDoctor(db, { name: 'Dr. Gruber', color: 'blue' }).id;
    const appointment = book(db, patient.id, doctor, '2026-12-10T09:00:00Z');
    sendReminder(db, appointment.id, patient.id, 'sms', '2026-12-08T09:00:00.000Z');
    sendReminder(db, appointment.id, patient.id, 'email', '2026-12-09T09:00:00.000Z');
    const contents = readPatientExport(db, patient.id, NOW);
    assert.deepEqual(contents.clinic, { name: 'Praxis Dr. Gruber', country: 'AT', timeZone: 'Europe/Vienna', retention: null });
    assert.deepEqual(
      contents.recipients.messages.map((message) => [message.channel, message.via, message.count]),
      [
        ['sms', 'api.twilio.com', 1],
        ['email', 'mail.praxis.at', 1],
      ],
    );
  });

  it('refuses a patient no one has (404 PATIENT_NOT_FOUND)', () => {
    const error = thrownBy(() => readPatientExport(data.db, '00000000-0000-4000-8000-000000000000', NOW));
    assert.ok(error instanceof AppError, String(error));
    assert.deepEqual([error.code, error.status], ['PATIENT_NOT_FOUND', 404]);
  });
});
