// The lookups behind the numbers on paper (clinic-api-1.1.md, "Staff references on the command line").
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Db } from '../../src/db/open-database.js';
import { findAppointmentIdBySeq, findDocumentIdBySeq, findInvoiceIdByNumber, findPatientIdBySeq } from '../../src/db/references.js';
import { bookAppointment } from '../../src/domain/appointments/book-appointment.js';
import { createTestInvoice, createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/** A document's row (the lookup reads rows only); its id. */
function storeDocumentRow(db: Db, patientId: string): string {
  const id = randomUUID();
  db.prepare(
    `INSERT INTO documents (id, patient_id, filename, content_type, size, sha256, type, created_at)
     VALUES (?, ?, 'letter.pdf', 'application/pdf', 8, ?, 'other', '2026-11-30T10:00:00.000Z')`,
  ).run(id, patientId, 'ab'.repeat(32));
  return id;
}

describe('references: the numbers on paper (db)', () => {
  const data = useTestDatabase({ each: true });

  it('finds the patient numbered P-<seq>, and nothing for a number no patient has', () => {
    const first = createTestPatient(data.db);
    const second = createTestPatient(data.db);
    assert.deepEqual([first.patient_number, second.patient_number], ['P-000001', 'P-000002']);
    assert.deepEqual(
      [findPatientIdBySeq(data.db, 1), findPatientIdBySeq(data.db, 2), findPatientIdBySeq(data.db, 3), findPatientIdBySeq(data.db, 0)],
      [first.id, second.id, undefined, undefined],
    );
  });

  it('finds the 1,000,000th patient, the first with seven digits, by its number too', () => {
    // AUTOINCREMENT's counter, as a clinic that has numbered 999,999 patients leaves it.
    data.db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('patients', 999998)").run();
    const last = createTestPatient(data.db);
    const past = createTestPatient(data.db);
    assert.deepEqual([last.patient_number, past.patient_number], ['P-999999', 'P-1000000']);
    assert.deepEqual([findPatientIdBySeq(data.db, 999_999), findPatientIdBySeq(data.db, 1_000_000)], [last.id, past.id]);
  });

  it('finds an appointment by A-<seq> and a document by D-<seq>, each number in its own series', () => {
    const patient = createTestPatient(data.db);
    const appointment = bookAppointment(
      data.db,
      { patient_id: patient.id, start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T09:30Z' },
      'cli',
    );
    const documentId = storeDocumentRow(data.db, patient.id);
    assert.equal(appointment.appointment_number, 'A-000001');
    assert.deepEqual(
      [findAppointmentIdBySeq(data.db, 1), findDocumentIdBySeq(data.db, 1), findPatientIdBySeq(data.db, 1)],
      [appointment.id, documentId, patient.id],
    );
    assert.deepEqual([findAppointmentIdBySeq(data.db, 2), findDocumentIdBySeq(data.db, 2)], [undefined, undefined]);
  });

  it('finds an invoice by its number exactly as stored, the form the desk makes of what was typed', () => {
    const invoice = createTestInvoice(data.db, { issued_at: '2026-03-01T10:00Z' });
    assert.equal(invoice.invoice_number, 'INV-2026-000001');
    assert.equal(findInvoiceIdByNumber(data.db, 'INV-2026-000001'), invoice.id);
    // The desk writes `inv-2026-1` as INV-2026-000001 first (src/fields/human-numbers.ts): another spelling names nothing here.
    assert.deepEqual(
      ['INV-2026-1', 'inv-2026-000001', 'INV-2025-000001', 'INV-2026-000002', ''].map((number) => findInvoiceIdByNumber(data.db, number)),
      [undefined, undefined, undefined, undefined, undefined],
    );
  });
});
