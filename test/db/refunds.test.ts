// The refunds' table (clinic-api-1.2.md, "Refunds"): how much of a payment is refunded, an
// invoice's refunds in the order recorded, and a refund found again by its Idempotency-Key.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Db } from '../../src/db/open-database.js';
import { findRefundByIdempotencyKey, insertRefund, listRefundRows, refundedCents } from '../../src/db/refunds.js';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../src/domain/payments/refund-payment.js';
import { performUseCase } from '../../src/domain/use-case.js';
import { buildPayment, createTestInvoice, idempotencyHeader } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { DESK_USER } from '../helpers/use-case-scenarios.js';

/** Records a payment of `amount` in cash on `invoiceId`; returns its id. */
const pay = (db: Db, invoiceId: string, amount: string) =>
  recordPayment(db, { path: { invoice_id: invoiceId }, headers: {}, body: buildPayment({ amount }) }).payment.payment_id;

/** Refunds `amount` of `paymentId` through the use case, under `key` if given; returns the refund's id. */
const refund = (db: Db, paymentId: string, amount: string, key?: string) =>
  performUseCase(
    REFUND_PAYMENT,
    db,
    { path: { payment_id: paymentId }, header: idempotencyHeader(key), body: { amount, reason: 'overcharged' } },
    DESK_USER,
  ).refund.refund_id;

describe('refunds (db)', () => {
  const data = useTestDatabase({ each: true });

  it('tells how much of a payment is refunded: nothing at first, then all its refunds together, none of another payment', () => {
    const invoice = createTestInvoice(data.db);
    const payment = pay(data.db, invoice.id, '60.00');
    const other = pay(data.db, invoice.id, '20.00');
    assert.equal(refundedCents(data.db, payment), 0);
    refund(data.db, payment, '10.00');
    assert.equal(refundedCents(data.db, payment), 1000);
    refund(data.db, other, '5.00');
    refund(data.db, payment, '15.50');
    assert.equal(refundedCents(data.db, payment), 2550);
    assert.equal(refundedCents(data.db, other), 500);
  });

  it("lists an invoice's refunds in the order recorded, each with the state it left the invoice in, and no other invoice's", () => {
    const invoice = createTestInvoice(data.db);
    const payment = pay(data.db, invoice.id, '60.00');
    const elsewhere = createTestInvoice(data.db);
    refund(data.db, pay(data.db, elsewhere.id, '30.00'), '30.00');
    const first = refund(data.db, payment, '10.00');
    const second = refund(data.db, payment, '50.00');
    assert.deepEqual(
      listRefundRows(data.db, invoice.id).map((row) => [
        row.id,
        row.amount_cents,
        row.payment_refunded_cents,
        row.invoice_status,
        row.invoice_amount_paid_cents,
        row.invoice_balance_cents,
      ]),
      [
        [first, 1000, 1000, 'partially_paid', 5000, 5000],
        [second, 5000, 6000, 'issued', 0, 10000],
      ],
    );
  });

  it('finds a refund by its Idempotency-Key, refuses a second refund row under it, and holds any number without a key', () => {
    const invoice = createTestInvoice(data.db);
    const payment = pay(data.db, invoice.id, '60.00');
    const keyed = refund(data.db, payment, '10.00', 'refund-1');
    refund(data.db, payment, '1.00');
    refund(data.db, payment, '1.00');
    const found = findRefundByIdempotencyKey(data.db, 'refund-1');
    assert.equal(found?.id, keyed);
    assert.equal(findRefundByIdempotencyKey(data.db, 'refund-2'), undefined);
    assert.throws(
      () => insertRefund(data.db, { ...found!, id: randomUUID() }),
      (error) => sqliteErrorCode(error) === 'SQLITE_CONSTRAINT_UNIQUE',
    );
    assert.equal(listRefundRows(data.db, invoice.id).length, 3);
  });

  it('refuses changing or deleting a refund of a patient not erased: refunds are final', () => {
    const invoice = createTestInvoice(data.db);
    refund(data.db, pay(data.db, invoice.id, '60.00'), '10.00');
    assert.throws(() => data.db.prepare('UPDATE refunds SET amount_cents = 1').run(), /refunds are final/);
    assert.throws(() => data.db.prepare('DELETE FROM refunds').run(), /refunds are final/);
    assert.deepEqual(
      listRefundRows(data.db, invoice.id).map((row) => row.amount_cents),
      [1000],
    );
  });
});
