// The queries of `clinic check` (decisions.md §8): the documents it hashes, the invoices at odds with their money.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { listDocumentFiles, listInvoicePaymentMismatches } from '../../src/db/check-queries.js';
import type { Db } from '../../src/db/open-database.js';
import { CREATE_CREDIT_NOTE } from '../../src/domain/invoices/credit-invoice.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../src/domain/payments/refund-payment.js';
import { performUseCase } from '../../src/domain/use-case.js';
import { buildPayment, createTestInvoice, createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { DESK_USER } from '../helpers/use-case-scenarios.js';

const AT = '2026-11-30T10:00:00.000Z';

/** A payment of `amount` on an invoice, through the use case; its id. */
const pay = (db: Db, invoiceId: string, amount: string) =>
  recordPayment(db, { path: { invoice_id: invoiceId }, headers: {}, body: buildPayment({ amount }) }).payment.payment_id;

/** Rows written by hand, as a repair in SQL or a bug would, leaving the invoice's own amounts as they were. */
const strayPayment = (db: Db, invoiceId: string, cents: number) => {
  const id = randomUUID();
  db.prepare(
    `INSERT INTO payments (id, invoice_id, amount_cents, method, request_fingerprint, invoice_status, invoice_amount_paid_cents, invoice_balance_cents, created_at)
     VALUES (?, ?, ?, 'cash', 'by hand', 'partially_paid', 0, 0, ?)`,
  ).run(id, invoiceId, cents, AT);
  return id;
};
const strayRefund = (db: Db, invoiceId: string, paymentId: string, cents: number) =>
  db
    .prepare(
      `INSERT INTO refunds (id, payment_id, invoice_id, amount_cents, method, reason, request_fingerprint, invoice_status,
         invoice_amount_paid_cents, invoice_balance_cents, payment_refunded_cents, created_at)
       VALUES (?, ?, ?, ?, 'cash', 'by hand', 'by hand', 'partially_paid', 0, 0, 0, ?)`,
    )
    .run(randomUUID(), paymentId, invoiceId, cents, AT);
const strayCreditNote = (db: Db, invoiceId: string, cents: number) =>
  db
    .prepare(
      `INSERT INTO credit_notes (id, credit_note_number, invoice_id, amount_cents, reason, created_at) VALUES (?, ?, ?, ?, 'by hand', ?)`,
    )
    .run(randomUUID(), `CN-2026-${randomUUID().slice(0, 6)}`, invoiceId, cents, AT);

/** A document's row, without its file (check reads the rows, then hashes the files); its id. */
const storeDocumentRow = (db: Db, patientId: string, id: string, size = 8) => {
  db.prepare(
    `INSERT INTO documents (id, patient_id, filename, content_type, size, sha256, type, created_at)
     VALUES (?, ?, 'letter.pdf', 'application/pdf', ?, ?, 'other', ?)`,
  ).run(id, patientId, size, 'ab'.repeat(32), AT);
  return id;
};

describe('the queries of clinic check', () => {
  const data = useTestDatabase({ each: true });

  it('finds no invoice at odds in a clinic whose money went through the use cases: payments, a refund, a credit note', () => {
    assert.deepEqual(listInvoicePaymentMismatches(data.db), []);
    const paid = createTestInvoice(data.db, { total: '100.00' }).id;
    const paymentId = pay(data.db, paid, '60.00');
    performUseCase(
      REFUND_PAYMENT,
      data.db,
      { path: { payment_id: paymentId }, body: { amount: '10.00', reason: 'charged twice' } },
      DESK_USER,
    );
    pay(data.db, paid, '25.00');
    const credited = createTestInvoice(data.db, { total: '80.00' }).id;
    performUseCase(
      CREATE_CREDIT_NOTE,
      data.db,
      { path: { invoice_id: credited }, body: { amount: '20.00', reason: 'goodwill' } },
      DESK_USER,
    );
    createTestInvoice(data.db, { total: '5.00' });
    assert.deepEqual(listInvoicePaymentMismatches(data.db), []);
  });

  it('names an invoice whose amount paid is not its payments less its refunds, with each sum', () => {
    const invoiceId = createTestInvoice(data.db, { total: '100.00' }).id;
    const paymentId = pay(data.db, invoiceId, '50.00');
    strayPayment(data.db, invoiceId, 700);
    strayRefund(data.db, invoiceId, paymentId, 1200);
    assert.deepEqual(listInvoicePaymentMismatches(data.db), [
      {
        invoice_id: invoiceId,
        amount_paid_cents: 5000,
        payments_cents: 5000 + 700 - 1200,
        refunds_cents: 1200,
        amount_credited_cents: 0,
        credit_notes_cents: 0,
      },
    ]);
  });

  it('names an invoice whose amount credited is not its credit notes, and one that says nothing was paid beside a payment of a cent, in the order of their ids', () => {
    const credited = createTestInvoice(data.db, { total: '100.00' }).id;
    strayCreditNote(data.db, credited, 2000);
    const unpaid = createTestInvoice(data.db, { total: '30.00' }).id;
    strayPayment(data.db, unpaid, 1);
    // In the order of their ids, whichever was made first.
    const expected = [
      {
        invoice_id: credited,
        amount_paid_cents: 0,
        payments_cents: 0,
        refunds_cents: 0,
        amount_credited_cents: 0,
        credit_notes_cents: 2000,
      },
      { invoice_id: unpaid, amount_paid_cents: 0, payments_cents: 1, refunds_cents: 0, amount_credited_cents: 0, credit_notes_cents: 0 },
    ].sort((a, b) => (a.invoice_id < b.invoice_id ? -1 : 1));
    assert.deepEqual(listInvoicePaymentMismatches(data.db), expected);
  });

  it('reads every document row at once, by patient then id, with the size and SHA-256 its file must have; none in a new clinic', () => {
    assert.deepEqual(listDocumentFiles(data.db), []);
    const [first, second] = [createTestPatient(data.db).id, createTestPatient(data.db).id].sort();
    storeDocumentRow(data.db, second!, 'cccccccc-0000-4000-8000-000000000000', 1);
    storeDocumentRow(data.db, first!, 'dddddddd-0000-4000-8000-000000000000', 25 * 1024 * 1024);
    storeDocumentRow(data.db, first!, 'bbbbbbbb-0000-4000-8000-000000000000');
    assert.deepEqual(listDocumentFiles(data.db), [
      { id: 'bbbbbbbb-0000-4000-8000-000000000000', patient_id: first, size: 8, sha256: 'ab'.repeat(32) },
      { id: 'dddddddd-0000-4000-8000-000000000000', patient_id: first, size: 25 * 1024 * 1024, sha256: 'ab'.repeat(32) },
      { id: 'cccccccc-0000-4000-8000-000000000000', patient_id: second, size: 1, sha256: 'ab'.repeat(32) },
    ]);
  });
});
