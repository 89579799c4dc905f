// The credit notes' table (clinic-api-1.3.md, "Credit notes"): their numbers, a series per year, and
// the lists the invoice, the goodwill refund and `report day` read.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  findCreditNoteOfRefund,
  insertCreditNote,
  listCreditNoteRows,
  listCreditNotesBetween,
  takeCreditNoteNumber,
  type CreditNoteRow,
} from '../../src/db/credit-notes.js';
import { markPatientErased } from '../../src/db/erasure.js';
import type { Db } from '../../src/db/open-database.js';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../src/domain/payments/refund-payment.js';
import { performUseCase } from '../../src/domain/use-case.js';
import { buildPayment, createTestInvoice, createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { DESK_USER } from '../helpers/use-case-scenarios.js';

/** Stores a credit note of 1.00 on `invoiceId` made at `createdAt`; returns its row. */
function storeCreditNote(db: Db, invoiceId: string, number: string, createdAt: string): CreditNoteRow {
  const row: CreditNoteRow = {
    id: randomUUID(),
    credit_note_number: number,
    invoice_id: invoiceId,
    amount_cents: 100,
    reason: 'asked too much',
    refund_id: null,
    created_at: createdAt,
  };
  insertCreditNote(db, row);
  return row;
}

describe('credit notes (db)', () => {
  const data = useTestDatabase({ each: true });

  it("numbers each calendar year's credit notes 1, 2, 3 …, a series of its own", () => {
    const taken = [2026, 2026, 2027, 2026, 2027].map((year) => [year, takeCreditNoteNumber(data.db, year)]);
    assert.deepEqual(taken, [
      [2026, 1],
      [2026, 2],
      [2027, 1],
      [2026, 3],
      [2027, 2],
    ]);
  });

  it('gives a number back when its transaction rolls back, and never one that committed', () => {
    assert.equal(takeCreditNoteNumber(data.db, 2026), 1);
    assert.throws(
      data.db.transaction(() => {
        assert.equal(takeCreditNoteNumber(data.db, 2026), 2);
        throw new Error('the credit note was refused');
      }),
      /refused/,
    );
    assert.equal(takeCreditNoteNumber(data.db, 2026), 2);
  });

  it("lists an invoice's credit notes in the order made, whatever their clocks said, and no other invoice's", () => {
    const invoice = createTestInvoice(data.db);
    const other = createTestInvoice(data.db);
    storeCreditNote(data.db, invoice.id, 'CN-2026-000001', '2026-11-30T10:00:00.000Z');
    storeCreditNote(data.db, other.id, 'CN-2026-000002', '2026-11-30T10:30:00.000Z');
    // The PC's clock set back an hour between the two.
    storeCreditNote(data.db, invoice.id, 'CN-2026-000003', '2026-11-30T09:15:00.000Z');
    assert.deepEqual(
      listCreditNoteRows(data.db, invoice.id).map((row) => row.credit_note_number),
      ['CN-2026-000001', 'CN-2026-000003'],
    );
    assert.deepEqual(listCreditNoteRows(data.db, randomUUID()), []);
  });

  it('finds the credit note a goodwill refund came with, and none for a refund without one', () => {
    const invoice = createTestInvoice(data.db);
    const { payment } = recordPayment(data.db, { path: { invoice_id: invoice.id }, headers: {}, body: buildPayment({ amount: '50.00' }) });
    const refund = (goodwill: boolean) =>
      performUseCase(
        REFUND_PAYMENT,
        data.db,
        { path: { payment_id: payment.payment_id }, body: { amount: '5.00', reason: 'late', goodwill } },
        DESK_USER,
      ).refund;
    const plain = refund(false);
    const goodwill = refund(true);
    const creditNote = findCreditNoteOfRefund(data.db, goodwill.refund_id);
    assert.deepEqual([creditNote?.id, creditNote?.amount_cents, creditNote?.reason], [goodwill.credit_note?.id, 500, 'late']);
    assert.equal(findCreditNoteOfRefund(data.db, plain.refund_id), undefined);
  });

  it("lists a day's credit notes from its first instant up to, not including, the next day's, with invoice and patient", () => {
    const patient = createTestPatient(data.db);
    const invoice = createTestInvoice(data.db, { patient_id: patient.id, total: '250.00' });
    storeCreditNote(data.db, invoice.id, 'CN-2026-000001', '2026-11-29T22:59:59.999Z');
    const first = storeCreditNote(data.db, invoice.id, 'CN-2026-000002', '2026-11-29T23:00:00.000Z');
    const last = storeCreditNote(data.db, invoice.id, 'CN-2026-000003', '2026-11-30T22:59:59.999Z');
    storeCreditNote(data.db, invoice.id, 'CN-2026-000004', '2026-11-30T23:00:00.000Z');
    // 30 November in Vienna.
    const day = listCreditNotesBetween(data.db, '2026-11-29T23:00:00.000Z', '2026-11-30T23:00:00.000Z');
    assert.deepEqual(
      day.map((row) => row.credit_note_id),
      [first.id, last.id],
    );
    assert.deepEqual(day[0], {
      credit_note_id: first.id,
      credit_note_number: 'CN-2026-000002',
      created_at: '2026-11-29T23:00:00.000Z',
      amount_cents: 100,
      reason: 'asked too much',
      invoice_number: invoice.invoice_number,
      currency: 'EUR',
      patient_number: patient.patient_number,
      patient_first_name: 'Ada',
      patient_last_name: 'Lovelace',
    });
    // The day before ends where this one begins: its last instant is not its own.
    assert.deepEqual(listCreditNotesBetween(data.db, '2026-11-28T23:00:00.000Z', '2026-11-29T22:59:59.999Z'), []);
  });

  it("keeps an erased patient's credit notes on the day's list with the patient's number and no name", () => {
    const patient = createTestPatient(data.db);
    const invoice = createTestInvoice(data.db, { patient_id: patient.id });
    storeCreditNote(data.db, invoice.id, 'CN-2026-000001', '2026-11-30T10:00:00.000Z');
    markPatientErased(data.db, invoice.patient_id, '2026-11-30T11:00:00.000Z');
    const [row] = listCreditNotesBetween(data.db, '2026-11-30T00:00:00.000Z', '2026-12-01T00:00:00.000Z');
    assert.deepEqual(
      [row?.patient_number, row?.patient_first_name, row?.patient_last_name, row?.amount_cents],
      [patient.patient_number, null, null, 100],
    );
  });

  it('refuses a second credit note of a number, and changing or deleting one', () => {
    const invoice = createTestInvoice(data.db);
    const row = storeCreditNote(data.db, invoice.id, 'CN-2026-000001', '2026-11-30T10:00:00.000Z');
    assert.throws(
      () => storeCreditNote(data.db, invoice.id, 'CN-2026-000001', '2026-11-30T10:05:00.000Z'),
      (error) => sqliteErrorCode(error) === 'SQLITE_CONSTRAINT_UNIQUE',
    );
    assert.throws(() => data.db.prepare('UPDATE credit_notes SET amount_cents = 1').run(), /credit notes are final/);
    assert.throws(() => data.db.prepare('DELETE FROM credit_notes').run(), /credit notes are final/);
    assert.deepEqual(listCreditNoteRows(data.db, invoice.id), [row]);
  });
});
