// Which erased patient (clinic-api-1.3.md, "Restriction") a request's id names: the patient itself,
// or one of its appointments, invoices, documents or payments; nobody for anyone else's.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { markPatientErased } from '../../src/db/erasure.js';
import type { Db } from '../../src/db/open-database.js';
import { erasedOwnerOf, RECORD_ID_FIELDS, type RecordIdField } from '../../src/db/restricted-patients.js';
import { bookAppointment } from '../../src/domain/appointments/book-appointment.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';
import { buildPayment, createTestInvoice, createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { addDocument } from '../helpers/module-tables.js';

/** A patient with one record of each kind: the id of each, by the field a request names it in. */
function patientWithRecords(db: Db, dataDir: string): Record<RecordIdField, string> & { patient_number: string } {
  const patient = createTestPatient(db);
  const invoice = createTestInvoice(db, { patient_id: patient.id });
  const appointment = bookAppointment(
    db,
    { patient_id: invoice.patient_id, start_at: '2030-03-05T09:00:00Z', end_at: '2030-03-05T09:30:00Z' },
    'cli',
  );
  const documentId = addDocument(db, dataDir, patient.id, Buffer.from('%PDF scan'));
  const { payment } = recordPayment(db, { path: { invoice_id: invoice.id }, headers: {}, body: buildPayment() });
  return {
    patient_id: invoice.patient_id,
    appointment_id: appointment.id,
    invoice_id: invoice.id,
    document_id: documentId,
    payment_id: payment.payment_id,
    patient_number: patient.patient_number,
  };
}

/** The erased owner's number for each kind of id of `records`, in RECORD_ID_FIELDS' order. */
const ownersOf = (db: Db, records: Record<RecordIdField, string>) =>
  RECORD_ID_FIELDS.map((field) => erasedOwnerOf(db, field, records[field])?.patient_number);

describe('restricted patients (db)', () => {
  const data = useTestDatabase();

  it('names no one for a patient not erased, for any of its records, or for an id of nothing', () => {
    const records = patientWithRecords(data.db, data.dataDir);
    assert.deepEqual(ownersOf(data.db, records), [undefined, undefined, undefined, undefined, undefined]);
    for (const field of RECORD_ID_FIELDS) assert.equal(erasedOwnerOf(data.db, field, randomUUID()), undefined, field);
  });

  it('names the erased patient by its number for its own id and for every kind of record of it, and no one for another patient', () => {
    const erased = patientWithRecords(data.db, data.dataDir);
    const other = patientWithRecords(data.db, data.dataDir);
    markPatientErased(data.db, erased.patient_id, '2026-12-01T10:00:00.000Z');
    assert.deepEqual(ownersOf(data.db, erased), Array<string>(5).fill(erased.patient_number));
    assert.deepEqual(ownersOf(data.db, other), [undefined, undefined, undefined, undefined, undefined]);
  });

  it('reads an id only as the kind of record its field names: an invoice id as a patient id names no one', () => {
    const erased = patientWithRecords(data.db, data.dataDir);
    markPatientErased(data.db, erased.patient_id, '2026-12-01T10:00:00.000Z');
    assert.equal(erasedOwnerOf(data.db, 'patient_id', erased.invoice_id), undefined);
    assert.equal(erasedOwnerOf(data.db, 'payment_id', erased.invoice_id), undefined);
  });
});
