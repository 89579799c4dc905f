import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findInvoice } from '../../../src/db/invoices.js';
import type { Db } from '../../../src/db/open-database.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../../src/domain/payments/refund-payment.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { setModuleEnabled } from '../../../src/domain/settings.js';
import { buildPayment, createTestInvoice, idempotencyHeader } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { runNode } from '../../helpers/run-cli.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * REFUND_PAYMENT (POST /payments/{payment_id}/refunds, `clinic refund`), rule by rule. The wiring
 * of each front end: test/server/routes/payments.test.ts and test/cli/commands/payment.test.ts.
 */

interface Given {
  patientId: string;
  invoiceId: string;
  paymentId: string;
}

/** An invoice of `total` EUR with one payment of `paid` in cash, and what `before` does next. */
const paidInvoice =
  (total: string, paid: string, before: (db: Db, given: Given) => void = () => {}) =>
  (db: Db): Given => {
    const invoice = createTestInvoice(db, { total });
    const { payment } = recordPayment(db, {
      path: { invoice_id: invoice.id },
      headers: { 'idempotency-key': 'the-payment' },
      body: buildPayment({ amount: paid }),
    });
    const given = { patientId: invoice.patient_id, invoiceId: invoice.id, paymentId: payment.payment_id };
    before(db, given);
    return given;
  };

const request = (body: Record<string, unknown>, key?: string) => (given: Pick<Given, 'paymentId'>) => ({
  path: { payment_id: given.paymentId },
  header: idempotencyHeader(key),
  body,
});

const refund = (db: Db, paymentId: string, body: Record<string, unknown>, key?: string) =>
  performUseCase(REFUND_PAYMENT, db, request(body, key)({ paymentId }), DESK_USER);

const refundRecords = (given: Given) => ({
  audit: (result: { refund: { refund_id: string } }) => [
    { action: 'refund.create', patient_id: given.patientId, subject_type: 'refund', subject_id: result.refund.refund_id, detail: null },
  ],
});

const scenarios: Scenario<Given>[] = [
  {
    title: 'gives back part of a payment: the invoice paid down by it and asking it again',
    given: paidInvoice('100.00', '60.00'),
    request: request({ amount: '25.00', reason: 'overcharged' }),
    expect: (given) => ({
      result: {
        replayed: false,
        refund: {
          payment_id: given.paymentId,
          invoice_id: given.invoiceId,
          patient_id: given.patientId,
          amount: 25,
          method: 'cash',
          reason: 'overcharged',
          currency: 'EUR',
          invoice_status: 'partially_paid',
          invoice_total: 100,
          invoice_amount_paid: 35,
          invoice_balance: 65,
          credit_note: null,
        },
      },
      ...refundRecords(given),
      changes: (result: { refund: { refund_id: string } }) => [
        {
          type: 'refund.created',
          patient_id: given.patientId,
          data: {
            refund_id: result.refund.refund_id,
            payment_id: given.paymentId,
            invoice_id: given.invoiceId,
            amount: 25,
            invoice_status: 'partially_paid',
            invoice_balance: 65,
          },
        },
      ],
    }),
  },
  {
    title: 'gives back all that is left without an amount, in the method asked; with nothing paid the invoice is issued again',
    given: paidInvoice('40.00', '40.00', (db, given) => refund(db, given.paymentId, { amount: 10, reason: 'discount' })),
    request: request({ reason: 'cancelled', method: 'bank' }),
    expect: (given) => ({
      result: { refund: { amount: 30, method: 'bank', invoice_status: 'issued', invoice_amount_paid: 0, invoice_balance: 40 } },
      ...refundRecords(given),
      changes: [{ type: 'refund.created', dataIncludes: { amount: 30, invoice_status: 'issued', invoice_balance: 40 } }],
    }),
  },
  {
    title: 'refuses more than can still be refunded, saying how much can (422 REFUND_EXCEEDS_PAYMENT)',
    given: paidInvoice('40.00', '25.00', (db, given) => refund(db, given.paymentId, { amount: 5, reason: 'first' })),
    request: request({ amount: '20.01', reason: 'too much' }),
    expect: () => ({ refused: 'REFUND_EXCEEDS_PAYMENT', status: 422, message: /: 20\.00 EUR\.$/ }),
  },
  {
    title: 'refuses a payment given back in full already, with or without an amount',
    given: paidInvoice('40.00', '25.00', (db, given) => refund(db, given.paymentId, { reason: 'all of it' })),
    request: request({ reason: 'again' }),
    expect: () => ({ refused: 'REFUND_EXCEEDS_PAYMENT', status: 422, message: /: 0\.00 EUR\.$/ }),
  },
  {
    title: 'refuses an unknown payment (404 PAYMENT_NOT_FOUND)',
    given: paidInvoice('40.00', '25.00'),
    request: () => ({ path: { payment_id: '00000000-0000-4000-8000-000000000000' }, header: {}, body: { reason: 'x' } }),
    expect: () => ({ refused: 'PAYMENT_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses a blank reason, a zero or negative amount and an unknown method at once, as one invalid request',
    given: paidInvoice('40.00', '25.00'),
    request: request({ reason: '   ', amount: 0, method: 'barter' }),
    expect: () => ({ invalid: ['body.amount', 'body.method', 'body.reason'] }),
  },
  {
    title: 'answers a request repeated with its Idempotency-Key as the first time, and records nothing again',
    given: paidInvoice('40.00', '25.00', (db, given) => refund(db, given.paymentId, { amount: 5, reason: 'late' }, 'refund-1')),
    request: request({ amount: '5.00', reason: 'late' }, 'refund-1'),
    expect: () => ({ result: { replayed: true, refund: { amount: 5, invoice_amount_paid: 20 } }, audit: [], changes: [] }),
  },
  {
    title: 'refuses the key of an earlier refund for another request (422 IDEMPOTENCY_KEY_REUSED)',
    given: paidInvoice('40.00', '25.00', (db, given) => refund(db, given.paymentId, { amount: 5, reason: 'late' }, 'refund-1')),
    request: request({ amount: 6, reason: 'late' }, 'refund-1'),
    expect: () => ({ refused: 'IDEMPOTENCY_KEY_REUSED', status: 422 }),
  },
  {
    title: 'refuses the key of a payment: payments and refunds share one space of keys',
    given: paidInvoice('40.00', '25.00'),
    request: request({ amount: 5, reason: 'late' }, 'the-payment'),
    expect: () => ({ refused: 'IDEMPOTENCY_KEY_REUSED', status: 422 }),
  },
  {
    title: 'a goodwill refund brings a credit note of its amount and reason: a paid invoice stays paid, owing nothing',
    given: paidInvoice('100.00', '100.00'),
    request: request({ amount: 20, reason: 'waiting time', goodwill: true }),
    expect: (given) => ({
      result: {
        refund: {
          amount: 20,
          invoice_status: 'paid',
          invoice_amount_paid: 80,
          invoice_balance: 0,
          credit_note: { amount: 20, reason: 'waiting time' },
        },
      },
      audit: (result: { refund: { refund_id: string } }) => [
        { action: 'refund.create', patient_id: given.patientId, subject_type: 'refund', subject_id: result.refund.refund_id },
        { action: 'invoice.credit', patient_id: given.patientId, subject_type: 'invoice', subject_id: given.invoiceId },
      ],
      changes: [
        { type: 'refund.created', dataIncludes: { amount: 20, invoice_status: 'paid', invoice_balance: 0 } },
        { type: 'invoice.credited', patient_id: given.patientId, dataIncludes: { invoice_id: given.invoiceId, amount: 20 } },
      ],
    }),
  },
  {
    title: 'refuses a goodwill refund that would leave the invoice asking nothing with nothing paid (409 INVOICE_FULLY_CREDITED)',
    given: paidInvoice('100.00', '100.00'),
    request: request({ reason: 'all of it', goodwill: true }),
    expect: () => ({ refused: 'INVOICE_FULLY_CREDITED', status: 409 }),
  },
  {
    title: 'refuses while the payments module is off (403 MODULE_DISABLED)',
    given: paidInvoice('40.00', '25.00', (db) => setModuleEnabled(db, 'payments', false)),
    request: request({ amount: 5, reason: 'late' }),
    expect: () => ({ refused: 'MODULE_DISABLED', status: 403 }),
  },
  {
    title: 'refuses a person at reception: only admin and billing give money back (403 ROLE_FORBIDDEN)',
    given: paidInvoice('40.00', '25.00'),
    request: request({ amount: 5, reason: 'late' }),
    caller: { ...DESK_USER, roles: ['reception'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
  {
    title: 'takes a person of billing',
    given: paidInvoice('40.00', '25.00'),
    request: request({ amount: 5, reason: 'late' }),
    caller: { ...DESK_USER, roles: ['billing'] },
    expect: (given) => ({ result: { refund: { amount: 5 } }, ...refundRecords(given), changes: [{ type: 'refund.created' }] }),
  },
];

describeScenarios('refunding a payment (REFUND_PAYMENT)', REFUND_PAYMENT, scenarios);

describe('refunding a payment from several processes at once', () => {
  const data = useTestDatabase();

  it('never refunds more than was paid when refunds come from several processes at once', async () => {
    const invoice = createTestInvoice(data.db, { total: '10.00' });
    const { payment } = recordPayment(data.db, { path: { invoice_id: invoice.id }, headers: {}, body: { amount: '3.00', method: 'cash' } });
    const startAt = Date.now() + 2000;
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        runNode(['--import', 'tsx', 'test/helpers/write-in-loop.ts', 'refund', data.dataDir, payment.payment_id, '100', String(startAt)]),
      ),
    );
    const results = runs.map(({ stdout, stderr }) => {
      assert.ok(stdout !== '', stderr);
      return JSON.parse(stdout) as { recorded: number; refused: string[] };
    });
    assert.equal(
      results.reduce((sum, r) => sum + r.recorded, 0),
      300,
      'every cent of the payment, and not one more',
    );
    assert.deepEqual(new Set(results.flatMap((r) => r.refused)), new Set(['REFUND_EXCEEDS_PAYMENT']));
    const stored = findInvoice(data.db, invoice.id)!;
    assert.deepEqual([stored.amount_paid_cents, stored.balance_cents, stored.status], [0, 1000, 'issued']);
  });
});
