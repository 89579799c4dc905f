// Everything of one patient at once, for the patient's copy (clinic-api-1.3.md, "The patient's copy (GDPR Art. 15, 20)").
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Db } from '../../src/db/open-database.js';
import { listPatientAppointmentRows, listPatientChangeEvents, listPatientInvoiceIds } from '../../src/db/patient-records.js';
import { bookAppointment } from '../../src/domain/appointments/book-appointment.js';
import { createTestInvoice, createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/** Books half an hour from `start` for `patientId`; the appointment's number. */
const book = (db: Db, patientId: string, start: string) =>
  bookAppointment(db, { patient_id: patientId, start_at: start, end_at: new Date(Date.parse(start) + 30 * 60_000).toISOString() }, 'cli')
    .appointment_number;

describe("a patient's records for their copy (db)", () => {
  const data = useTestDatabase({ each: true });

  it("lists every appointment of the patient by start, the same start by number, and none of another patient's", () => {
    const patient = createTestPatient(data.db).id;
    const other = createTestPatient(data.db).id;
    book(data.db, patient, '2026-12-03T09:00:00.000Z');
    book(data.db, patient, '2026-12-01T09:00:00.000Z');
    book(data.db, other, '2026-12-01T09:00:00.000Z');
    book(data.db, patient, '2026-12-01T09:00:00.000Z');
    book(data.db, patient, '2026-11-30T14:00:00.000Z');
    assert.deepEqual(
      listPatientAppointmentRows(data.db, patient).map((row) => [row.appointment_number, row.start_at, row.patient_id === patient]),
      [
        ['A-000005', '2026-11-30T14:00:00.000Z', true],
        ['A-000002', '2026-12-01T09:00:00.000Z', true],
        ['A-000004', '2026-12-01T09:00:00.000Z', true],
        ['A-000001', '2026-12-03T09:00:00.000Z', true],
      ],
    );
    assert.deepEqual(listPatientAppointmentRows(data.db, createTestPatient(data.db).id), []);
  });

  it("lists the ids of every invoice of the patient, oldest issued first, the same day's by number, and none of another patient's", () => {
    const patient = createTestPatient(data.db).id;
    const other = createTestPatient(data.db).id;
    const march = createTestInvoice(data.db, { patient_id: patient, issued_at: '2026-03-01T10:00Z' }).id;
    const january = createTestInvoice(data.db, { patient_id: patient, issued_at: '2026-01-15T10:00Z' }).id;
    createTestInvoice(data.db, { patient_id: other, issued_at: '2026-02-01T10:00Z' });
    const marchAgain = createTestInvoice(data.db, { patient_id: patient, issued_at: '2026-03-01T10:00Z' }).id;
    assert.deepEqual(listPatientInvoiceIds(data.db, patient), [january, march, marchAgain]);
    assert.deepEqual(listPatientInvoiceIds(data.db, randomUUID()), []);
  });

  it("lists the change feed's events about the patient in the feed's order, none about another patient", () => {
    const patient = createTestPatient(data.db).id;
    const other = createTestPatient(data.db).id;
    book(data.db, patient, '2026-12-01T09:00:00.000Z');
    createTestInvoice(data.db, { patient_id: other });
    createTestInvoice(data.db, { patient_id: patient });
    const events = listPatientChangeEvents(data.db, patient);
    assert.deepEqual(
      events.map((event) => [event.type, event.patient_id]),
      [
        ['patient.created', patient],
        ['appointment.created', patient],
        ['invoice.created', patient],
      ],
    );
    assert.deepEqual(
      events.map((event) => event.seq),
      [1, 3, 5],
    );
    assert.deepEqual(
      listPatientChangeEvents(data.db, other).map((event) => event.type),
      ['patient.created', 'invoice.created'],
    );
  });
});
