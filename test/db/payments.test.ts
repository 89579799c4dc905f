import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { findInvoice } from '../../src/db/invoices.js';
import { listPaymentRows } from '../../src/db/payments.js';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';
import { buildInvoice, buildPatient, buildPayment } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/** The payments table's own guards (schema.sql), whatever runs the SQL: payments are final, and an invoice's sums stay whole. */
describe('the database guards payments', () => {
  const data = useTestDatabase();
  let invoiceId: string;
  before(() => {
    invoiceId = createInvoice(data.db, buildInvoice(createPatient(data.db, buildPatient()).id, { total: 50 })).id;
    recordPayment(data.db, { path: { invoice_id: invoiceId }, headers: {}, body: buildPayment({ amount: 20 }) });
  });

  const sqlRefusals: [string, string, RegExp][] = [
    ["updating a payment's amount", 'UPDATE payments SET amount_cents = 1', /payments are final/],
    ["updating a payment's note", "UPDATE payments SET note = 'changed'", /payments are final/],
    ['deleting a payment', 'DELETE FROM payments', /payments are final/],
    ['a negative balance', 'UPDATE invoices SET balance_cents = -1, amount_paid_cents = 5100', /CHECK constraint failed/],
    ['paid plus balance differing from the total', 'UPDATE invoices SET amount_paid_cents = 0', /CHECK constraint failed/],
    ['a paid status with a balance left', "UPDATE invoices SET status = 'paid'", /CHECK constraint failed/],
  ];
  for (const [name, sql, message] of sqlRefusals) {
    it(`refuses ${name} in hand-run SQL`, () => {
      assert.throws(
        () => data.db.exec(sql),
        (e) => sqliteErrorCode(e) !== undefined && message.test((e as Error).message),
      );
      const [payment] = listPaymentRows(data.db, invoiceId);
      assert.deepEqual([payment?.amount_cents, payment?.note], [2000, null]);
      const invoice = findInvoice(data.db, invoiceId)!;
      assert.deepEqual([invoice.status, invoice.amount_paid_cents, invoice.balance_cents], ['partially_paid', 2000, 3000]);
    });
  }

  it('refuses a second payment row with a used Idempotency-Key', () => {
    data.db
      .prepare(
        `INSERT INTO payments (id, invoice_id, amount_cents, method, idempotency_key, request_fingerprint, invoice_status,
         invoice_amount_paid_cents, invoice_balance_cents, created_at)
       VALUES (?, ?, 1, 'cash', 'dup', 'x', 'partially_paid', 0, 0, 'now')`,
      )
      .run('11111111-1111-4111-8111-111111111111', invoiceId);
    assert.throws(
      () =>
        data.db
          .prepare(
            `INSERT INTO payments (id, invoice_id, amount_cents, method, idempotency_key, request_fingerprint, invoice_status,
             invoice_amount_paid_cents, invoice_balance_cents, created_at)
           VALUES (?, ?, 1, 'cash', 'dup', 'x', 'partially_paid', 0, 0, 'now')`,
          )
          .run('22222222-2222-4222-8222-222222222222', invoiceId),
      (e) => sqliteErrorCode(e) === 'SQLITE_CONSTRAINT_UNIQUE',
    );
  });
});
