import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findInvoice } from '../../../src/db/invoices.js';
import { listNotificationRows } from '../../../src/db/notifications.js';
import type { Db } from '../../../src/db/open-database.js';
import { openDatabase } from '../../../src/db/open-database.js';
import { listPaymentRows } from '../../../src/db/payments.js';
import { VOID_INVOICE } from '../../../src/domain/invoices/void-invoice.js';
import { RECORD_PAYMENT, recordPayment, type PaymentRequest } from '../../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../../src/domain/payments/refund-payment.js';
import { setModuleEnabled } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { buildPayment, createTestInvoice, idempotencyHeader } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { runNode } from '../../helpers/run-cli.js';
import { describeScenarios, DESK_USER, givenInvoice, type GivenInvoice, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * RECORD_PAYMENT (POST /invoices/{invoice_id}/payments, `clinic record-payment`): its rules as a
 * table, then what a table cannot show (a transaction that fails half-way, another connection,
 * several processes at once). The wiring of each front end: test/server/routes/payments.test.ts and the
 * desk's billing tests (test/cli/commands/payment.test.ts).
 */

type Given = GivenInvoice;

const request = (body: Record<string, unknown>, key?: string) => (given: Pick<Given, 'invoiceId'>) => ({
  path: { invoice_id: given.invoiceId },
  header: idempotencyHeader(key),
  body: buildPayment(body),
});

const pay = (db: Db, invoiceId: string, body: Record<string, unknown>, key?: string) =>
  performUseCase(RECORD_PAYMENT, db, request(body, key)({ invoiceId }), DESK_USER);

/** A payment's records: payment.create of the payment it made, and payment.created with the invoice as it left it. */
const paymentRecords = (given: Given, invoice: { status: string; balance: number; amount: number }) => ({
  audit: (result: { payment: { payment_id: string } }) => [
    { action: 'payment.create', patient_id: given.patientId, subject_type: 'payment', subject_id: result.payment.payment_id, detail: null },
  ],
  changes: (result: { payment: { payment_id: string } }) => [
    {
      type: 'payment.created',
      patient_id: given.patientId,
      data: {
        payment_id: result.payment.payment_id,
        invoice_id: given.invoiceId,
        amount: invoice.amount,
        method: 'cash',
        invoice_status: invoice.status,
        invoice_balance: invoice.balance,
      },
    },
  ],
});

const outbox = (db: Db, invoiceId: string) => listNotificationRows(db).filter((row) => row.invoice_id === invoiceId);
const UNKNOWN_INVOICE = '00000000-0000-4000-8000-000000000000';

const scenarios: Scenario<Given>[] = [
  {
    title: 'a first payment: the invoice partially paid, no notification yet',
    given: givenInvoice('30.00'),
    request: request({ amount: 10 }),
    expect: (given) => ({
      result: {
        replayed: false,
        payment: {
          invoice_id: given.invoiceId,
          patient_id: given.patientId,
          amount: 10,
          method: 'cash',
          currency: 'EUR',
          invoice_status: 'partially_paid',
          invoice_total: 30,
          invoice_amount_paid: 10,
          invoice_balance: 20,
        },
      },
      ...paymentRecords(given, { status: 'partially_paid', balance: 20, amount: 10 }),
      then: (db) => assert.deepEqual(outbox(db, given.invoiceId), []),
    }),
  },
  {
    title: 'takes amounts to the cent: 19.99 of 20.00 leaves 0.01',
    given: givenInvoice('30.00', (db, given) => pay(db, given.invoiceId, { amount: 10 })),
    request: request({ amount: '19.99' }),
    expect: (given) => ({
      result: { payment: { amount: 19.99, invoice_status: 'partially_paid', invoice_amount_paid: 29.99, invoice_balance: 0.01 } },
      ...paymentRecords(given, { status: 'partially_paid', balance: 0.01, amount: 19.99 }),
    }),
  },
  {
    title: 'the payment that settles the invoice: paid, and one e-mail to the patient queued',
    given: givenInvoice('30.00', (db, given) => pay(db, given.invoiceId, { amount: '29.99' })),
    request: request({ amount: 0.01 }),
    expect: (given) => ({
      result: { payment: { invoice_status: 'paid', invoice_amount_paid: 30, invoice_balance: 0 } },
      ...paymentRecords(given, { status: 'paid', balance: 0, amount: 0.01 }),
      then: (db) =>
        assert.deepEqual(
          outbox(db, given.invoiceId).map((row) => [row.channel, row.recipient, row.status, row.attempts]),
          [['email', 'ada@example.org', 'pending', 0]],
        ),
    }),
  },
  {
    title: 'notifies by SMS to the mobile when the patient has no e-mail address',
    given: givenInvoice('5.00', (db, given) => db.prepare('UPDATE patients SET email = NULL WHERE id = ?').run(given.patientId)),
    request: request({ amount: 5 }),
    expect: (given) => ({
      result: { payment: { invoice_status: 'paid' } },
      ...paymentRecords(given, { status: 'paid', balance: 0, amount: 5 }),
      then: (db) =>
        assert.deepEqual(
          outbox(db, given.invoiceId).map((row) => [row.channel, row.recipient, row.status]),
          [['sms', '+43 660 1234567', 'pending']],
        ),
    }),
  },
  {
    title: 'refuses more than the balance, saying what it is (422 PAYMENT_EXCEEDS_BALANCE)',
    given: givenInvoice('10.00', (db, given) => pay(db, given.invoiceId, { amount: 4 })),
    request: request({ amount: '6.01' }),
    expect: () => ({ refused: 'PAYMENT_EXCEEDS_BALANCE', status: 422, message: /balance of 6\.00 EUR\.$/ }),
  },
  {
    title: 'refuses any amount on a paid invoice',
    given: givenInvoice('10.00', (db, given) => pay(db, given.invoiceId, { amount: 10 })),
    request: request({ amount: 0.01 }),
    expect: () => ({ refused: 'PAYMENT_EXCEEDS_BALANCE', status: 422 }),
  },
  {
    title: 'refuses an unknown invoice (404 INVOICE_NOT_FOUND)',
    given: givenInvoice('10.00'),
    request: () => ({ path: { invoice_id: UNKNOWN_INVOICE }, header: {}, body: buildPayment() }),
    expect: () => ({ refused: 'INVOICE_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses a void invoice (409 INVOICE_VOID)',
    given: givenInvoice('10.00', (db, given) =>
      performUseCase(VOID_INVOICE, db, { path: { invoice_id: given.invoiceId }, header: {}, body: { reason: 'wrong patient' } }, DESK_USER),
    ),
    request: request({ amount: 1 }),
    expect: () => ({ refused: 'INVOICE_VOID', status: 409 }),
  },
  {
    title: 'refuses a zero amount, an unknown method and a note over 500 characters at once, as one invalid request',
    given: givenInvoice('10.00'),
    request: request({ amount: 0, method: 'barter', note: 'n'.repeat(501) }),
    expect: () => ({ invalid: ['body.amount', 'body.method', 'body.note'] }),
  },
  ...[10.0, '10.00', '010.0'].map((amount): Scenario<Given> => ({
    title: `takes ${JSON.stringify(amount)} as the same request as 10 under one Idempotency-Key: the first answer, nothing recorded again`,
    given: givenInvoice('100.00', (db, given) => pay(db, given.invoiceId, { amount: 10 }, 'same-amount')),
    request: request({ amount }, 'same-amount'),
    expect: () => ({ result: { replayed: true, payment: { amount: 10, invoice_amount_paid: 10 } }, audit: [], changes: [] }),
  })),
  {
    title: 'replays the first answer even after later payments changed the invoice',
    given: givenInvoice('100.00', (db, given) => {
      pay(db, given.invoiceId, { amount: 10 }, 'early');
      pay(db, given.invoiceId, { amount: 90 });
    }),
    request: request({ amount: 10 }, 'early'),
    expect: () => ({
      result: { replayed: true, payment: { invoice_status: 'partially_paid', invoice_balance: 90 } },
      audit: [],
      changes: [],
    }),
  },
  ...(
    [
      ['another amount', { amount: 11, note: 'n' }, false],
      ['another method', { amount: 10, note: 'n', method: 'card' }, false],
      ['another note', { amount: 10 }, false],
      ['another invoice, before looking it up', { amount: 10, note: 'n' }, true],
    ] as const
  ).map(([what, body, elsewhere]): Scenario<Given> => ({
    title: `refuses the key of an earlier payment for ${what} (422 IDEMPOTENCY_KEY_REUSED)`,
    given: givenInvoice('100.00', (db, given) => pay(db, given.invoiceId, { amount: 10, note: 'n' }, 'reuse')),
    request: (given) => ({
      path: { invoice_id: elsewhere ? UNKNOWN_INVOICE : given.invoiceId },
      header: { 'idempotency-key': 'reuse' },
      body: buildPayment(body),
    }),
    expect: () => ({ refused: 'IDEMPOTENCY_KEY_REUSED', status: 422 }),
  })),
  {
    title: 'refuses the key of a refund: payments and refunds share one space of keys',
    given: givenInvoice('100.00', (db, given) => {
      const { payment } = pay(db, given.invoiceId, { amount: 10 });
      performUseCase(
        REFUND_PAYMENT,
        db,
        { path: { payment_id: payment.payment_id }, header: { 'idempotency-key': 'the-refund' }, body: { reason: 'r' } },
        DESK_USER,
      );
    }),
    request: request({ amount: 1 }, 'the-refund'),
    expect: () => ({ refused: 'IDEMPOTENCY_KEY_REUSED', status: 422 }),
  },
  {
    title: 'refuses while the payments module is off (403 MODULE_DISABLED)',
    given: givenInvoice('10.00', (db) => setModuleEnabled(db, 'payments', false)),
    request: request({ amount: 1 }),
    expect: () => ({ refused: 'MODULE_DISABLED', status: 403 }),
  },
  {
    title: 'takes a person at reception: reception takes money',
    given: givenInvoice('10.00'),
    request: request({ amount: 1 }),
    caller: { ...DESK_USER, roles: ['reception'] },
    expect: (given) => ({
      result: { payment: { amount: 1 } },
      ...paymentRecords(given, { status: 'partially_paid', balance: 9, amount: 1 }),
    }),
  },
  {
    title: 'refuses a practitioner: only admin, reception and billing take money (403 ROLE_FORBIDDEN)',
    given: givenInvoice('10.00'),
    request: request({ amount: 1 }),
    caller: { ...DESK_USER, roles: ['practitioner', 'scheduler'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

describeScenarios('recording a payment (RECORD_PAYMENT)', RECORD_PAYMENT, scenarios);

describe('recording a payment: one transaction, one key, any connection', () => {
  const data = useTestDatabase();
  /** The request as recordPayment, the desk's own call, takes it. */
  const paymentRequest = (invoiceId: string, body: Record<string, unknown>, key?: string): PaymentRequest => ({
    path: { invoice_id: invoiceId },
    headers: idempotencyHeader(key),
    body: buildPayment(body),
  });

  it('commits all of a payment or none of it: a failing outbox insert leaves no payment and no used key', () => {
    const invoice = createTestInvoice(data.db, { total: '10' });
    data.db.exec(`CREATE TEMP TRIGGER outbox_down BEFORE INSERT ON notification_outbox BEGIN SELECT RAISE(ABORT, 'outbox down'); END`);
    try {
      assert.throws(() => recordPayment(data.db, paymentRequest(invoice.id, { amount: 10 }, 'atomic-1')), /outbox down/);
    } finally {
      data.db.exec('DROP TRIGGER temp.outbox_down');
    }
    const row = findInvoice(data.db, invoice.id)!;
    assert.deepEqual([row.status, row.amount_paid_cents, row.balance_cents], ['issued', 0, 1000]);
    assert.equal(listPaymentRows(data.db, invoice.id).length, 0);
    // The key was not consumed: the same request now records the payment, not a replay.
    assert.equal(recordPayment(data.db, paymentRequest(invoice.id, { amount: 10 }, 'atomic-1')).replayed, false);
  });

  it('replays a key through another connection (another process) to the same database', () => {
    const invoice = createTestInvoice(data.db, { total: '100' });
    const original = recordPayment(data.db, paymentRequest(invoice.id, { amount: 25 }, 'cross-connection')).payment;
    const other = openDatabase(data.dataDir);
    try {
      assert.deepEqual(recordPayment(other, paymentRequest(invoice.id, { amount: 25 }, 'cross-connection')), {
        payment: original,
        replayed: true,
      });
    } finally {
      other.close();
    }
  });

  it('stores the request fingerprint and the key with the payment', () => {
    const invoice = createTestInvoice(data.db, { total: '100' });
    recordPayment(data.db, paymentRequest(invoice.id, { amount: 1 }, 'fp'));
    const [row] = listPaymentRows(data.db, invoice.id);
    assert.match(row?.request_fingerprint ?? '', /^[0-9a-f]{64}$/);
    assert.equal(row?.idempotency_key, 'fp');
  });

  it('loses no update and refuses no write from several processes at once: BEGIN IMMEDIATE makes each wait its turn', async () => {
    const invoice = createTestInvoice(data.db, { total: '10.00' });
    const startAt = Date.now() + 2000;
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        runNode(['--import', 'tsx', 'test/helpers/write-in-loop.ts', 'pay', data.dataDir, invoice.id, '150', String(startAt)]),
      ),
    );
    const results = runs.map(({ stdout }) => JSON.parse(stdout) as { recorded: number; refused: string[] });
    assert.deepEqual(
      results.flatMap((r) => r.refused),
      [],
      'no process was refused',
    );
    assert.equal(
      results.reduce((sum, r) => sum + r.recorded, 0),
      600,
    );
    const stored = findInvoice(data.db, invoice.id)!;
    assert.deepEqual([stored.amount_paid_cents, stored.balance_cents, listPaymentRows(data.db, invoice.id).length], [600, 400, 600]);
  });
});
