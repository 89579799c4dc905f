import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { buildPayment, createTestInvoice } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';
import { assertLedgerConsistent } from '../helpers/ledger.js';

/**
 * POST /invoices/{invoice_id}/void and POST /payments/{payment_id}/refunds (clinic-api-1.2.md), on
 * the real server. Their rules are VOID_INVOICE's and REFUND_PAYMENT's tables
 * (test/domain/invoices/void-invoice.test.ts, test/domain/payments/refund-payment.test.ts); here,
 * how the server answers them, what the other endpoints then show, and refunds racing on one server.
 */
describe('voiding invoices and refunding payments', () => {
  const server = useTestServer();
  afterEach(() => assertLedgerConsistent(server.db));

  const pay = (invoiceId: string, amount: string, headers: Record<string, string> = {}) =>
    server.request('POST', `/invoices/${invoiceId}/payments`, { body: buildPayment({ amount }), headers });
  const refund = (paymentId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    server.request('POST', `/payments/${paymentId}/refunds`, { body, headers });
  const voidInvoice = (invoiceId: string, body: unknown = { reason: 'Issued to the wrong patient' }) =>
    server.request('POST', `/invoices/${invoiceId}/void`, { body });
  const detail = async (invoiceId: string) => (await server.request('GET', `/invoices/${invoiceId}`)).body;
  const refundCount = () => (server.db.prepare('SELECT count(*) AS n FROM refunds').get() as { n: number }).n;

  describe('POST /invoices/{invoice_id}/void', () => {
    it('voids an unpaid invoice: status void, balance 0, when and why, and it owes nothing', async () => {
      const invoice = createTestInvoice(server.db, { total: '80.00' });
      const answer = await voidInvoice(invoice.id);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.status, 'void');
      assert.equal(answer.body.balance, 0);
      assert.equal(answer.body.amount_paid, 0);
      assert.equal(answer.body.total, 80);
      assert.equal(answer.body.void_reason, 'Issued to the wrong patient');
      assert.match(answer.body.voided_at, /^\d{4}-\d\d-\d\dT/);
      assert.equal(answer.body.invoice_number, invoice.invoice_number, 'the number stays');
      assert.deepEqual(await detail(invoice.id), answer.body);
      const listed = (await server.request('GET', `/invoices?patient_id=${invoice.patient_id}`)).body;
      assert.deepEqual(
        listed.map((i: { status: string; balance: number }) => [i.status, i.balance]),
        [['void', 0]],
      );
      assert.deepEqual((await server.request('GET', `/invoices?patient_id=${invoice.patient_id}&unpaid=true`)).body, []);
      const patient = (await server.request('GET', `/patients/${invoice.patient_id}`)).body;
      assert.equal(patient.outstanding_balance, '0');
    });

    it('makes a void invoice refuse payments (409 INVOICE_VOID), after an Idempotency-Key replay', async () => {
      const invoice = createTestInvoice(server.db, { total: '50.00' });
      const paid = await pay(invoice.id, '50.00', { 'idempotency-key': 'void-replay' });
      await refund(paid.body.payment_id, { reason: 'wrong patient' });
      await voidInvoice(invoice.id);
      const refused = await pay(invoice.id, '10.00');
      assert.equal(refused.status, 409);
      assert.equal(refused.body.detail.code, 'INVOICE_VOID');
      const replay = await pay(invoice.id, '50.00', { 'idempotency-key': 'void-replay' });
      assert.equal(replay.status, 200);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    });

    it('answers a refusal with its status and code: 404 INVOICE_NOT_FOUND, 409 INVOICE_HAS_PAYMENTS, 422 for a blank reason, 403 without invoices:write', async () => {
      assert.equal((await voidInvoice('00000000-0000-4000-8000-000000000000')).body.detail.code, 'INVOICE_NOT_FOUND');
      const invoice = createTestInvoice(server.db, { total: '50.00' });
      await pay(invoice.id, '20.00');
      const paid = await voidInvoice(invoice.id);
      assert.deepEqual([paid.status, paid.body.detail.code], [409, 'INVOICE_HAS_PAYMENTS']);
      const blank = await voidInvoice(invoice.id, { reason: '   ' });
      assert.equal(blank.status, 422);
      assert.deepEqual([blank.body.detail[0].type, blank.body.detail[0].loc], ['value_error', ['body', 'reason']]);
      const reader = server.createKey(['invoices:read']);
      const forbidden = await server.request('POST', `/invoices/${invoice.id}/void`, { body: { reason: 'x' }, key: reader });
      assert.deepEqual([forbidden.status, forbidden.body.detail.code], [403, 'FORBIDDEN']);
      assert.equal((await detail(invoice.id)).status, 'partially_paid');
    });
  });

  describe('POST /payments/{payment_id}/refunds', () => {
    it('gives back part of a payment: 201 Refund, the invoice paid down, and the detail lists it', async () => {
      const invoice = createTestInvoice(server.db, { total: '100.00' });
      const paid = (await pay(invoice.id, '60.00')).body;
      const answer = await refund(paid.payment_id, { amount: '15.50', reason: 'charged twice' });
      assert.equal(answer.status, 201);
      assert.deepEqual(Object.keys(answer.body).sort(), [
        'amount',
        'created_at',
        'credit_note',
        'currency',
        'invoice_amount_paid',
        'invoice_balance',
        'invoice_id',
        'invoice_status',
        'invoice_total',
        'method',
        'patient_id',
        'payment_id',
        'reason',
        'refund_id',
      ]);
      assert.deepEqual(
        [answer.body.amount, answer.body.method, answer.body.invoice_status, answer.body.invoice_amount_paid, answer.body.invoice_balance],
        [15.5, 'cash', 'partially_paid', 44.5, 55.5],
      );
      const shown = await detail(invoice.id);
      assert.deepEqual([shown.amount_paid, shown.balance, shown.status], [44.5, 55.5, 'partially_paid']);
      assert.equal(shown.payments[0].refunded_amount, 15.5);
      assert.deepEqual(
        shown.refunds.map((r: { refund_id: string; amount: number; reason: string }) => [r.refund_id, r.amount, r.reason]),
        [[answer.body.refund_id, 15.5, 'charged twice']],
      );
    });

    it('answers a refusal with its status and code: 404 PAYMENT_NOT_FOUND, 422 REFUND_EXCEEDS_PAYMENT, 422 for a malformed body', async () => {
      const unknown = await refund('00000000-0000-4000-8000-000000000000', { reason: 'x' });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.detail.code, 'PAYMENT_NOT_FOUND');
      const invoice = createTestInvoice(server.db);
      const paid = (await pay(invoice.id, '10.00')).body;
      const before = refundCount();
      const tooMuch = await refund(paid.payment_id, { amount: '10.01', reason: 'too much' });
      assert.equal(tooMuch.status, 422);
      assert.deepEqual(
        [tooMuch.body.detail.code, tooMuch.body.detail.message],
        ['REFUND_EXCEEDS_PAYMENT', 'The amount is more than can still be refunded of this payment: 10.00 EUR.'],
      );
      assert.equal(refundCount(), before);
      const bad = await refund(paid.payment_id, { amount: -1, method: 'cheque', reason: ' ' });
      assert.equal(bad.status, 422);
      assert.deepEqual(bad.body.detail.map((i: { loc: string[] }) => i.loc.join('.')).sort(), [
        'body.amount',
        'body.method',
        'body.reason',
      ]);
    });

    it('replays a refund repeated with its Idempotency-Key (201, Idempotent-Replayed), and refuses the key for another request or a payment', async () => {
      const invoice = createTestInvoice(server.db, { total: '90.00' });
      const paid = (await pay(invoice.id, '90.00', { 'idempotency-key': 'pay-key-1' })).body;
      const first = await refund(paid.payment_id, { amount: 5, reason: 'r' }, { 'idempotency-key': 'refund-key-1' });
      const again = await refund(paid.payment_id, { amount: '5.00', reason: 'r' }, { 'idempotency-key': 'refund-key-1' });
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, first.body);
      assert.equal((await detail(invoice.id)).refunds.length, 1);
      const other = await refund(paid.payment_id, { amount: 6, reason: 'r' }, { 'idempotency-key': 'refund-key-1' });
      assert.equal(other.body.detail.code, 'IDEMPOTENCY_KEY_REUSED');
      const paymentKey = await refund(paid.payment_id, { amount: 5, reason: 'r' }, { 'idempotency-key': 'pay-key-1' });
      assert.equal(paymentKey.body.detail.code, 'IDEMPOTENCY_KEY_REUSED');
      const refundKey = await pay(invoice.id, '1.00', { 'idempotency-key': 'refund-key-1' });
      assert.equal(refundKey.body.detail.code, 'IDEMPOTENCY_KEY_REUSED');
    });

    it('never refunds more than was paid under 20 concurrent refunds of one payment', async () => {
      const invoice = createTestInvoice(server.db, { total: '50.00' });
      const paid = (await pay(invoice.id, '50.00')).body;
      const answers = await Promise.all(Array.from({ length: 20 }, () => refund(paid.payment_id, { amount: '10.00', reason: 'race' })));
      assert.equal(answers.filter((a) => a.status === 201).length, 5);
      assert.ok(answers.filter((a) => a.status !== 201).every((a) => a.body.detail.code === 'REFUND_EXCEEDS_PAYMENT'));
      const shown = await detail(invoice.id);
      assert.deepEqual([shown.amount_paid, shown.balance, shown.status], [0, 50, 'issued']);
    });

    it('keeps amount_paid = payments − refunds when refunds and payments race on one invoice', async () => {
      const invoice = createTestInvoice(server.db, { total: '100.00' });
      const paid = (await pay(invoice.id, '40.00')).body;
      await Promise.all([
        ...Array.from({ length: 8 }, () => refund(paid.payment_id, { amount: '5.00', reason: 'race' })),
        ...Array.from({ length: 8 }, () => pay(invoice.id, '10.00')),
      ]);
      // assertLedgerConsistent (afterEach) checks the sums; the balance never went below zero.
      const shown = await detail(invoice.id);
      assert.ok(shown.balance >= 0 && shown.amount_paid >= 0);
    });

    it('keeps refunds final: the database refuses to change or delete one', async () => {
      const invoice = createTestInvoice(server.db);
      const paid = (await pay(invoice.id, '10.00')).body;
      await refund(paid.payment_id, { reason: 'final' });
      const aborted = (error: unknown) => sqliteErrorCode(error)?.startsWith('SQLITE_CONSTRAINT') === true;
      assert.throws(() => server.db.prepare('UPDATE refunds SET amount_cents = 1').run(), aborted);
      assert.throws(() => server.db.prepare('DELETE FROM refunds').run(), aborted);
    });

    it('needs payments:write (403 FORBIDDEN)', async () => {
      const invoice = createTestInvoice(server.db);
      const paid = (await pay(invoice.id, '10.00')).body;
      const reader = server.createKey(['invoices:read', 'invoices:write']);
      const forbidden = await server.request('POST', `/payments/${paid.payment_id}/refunds`, { body: { reason: 'x' }, key: reader });
      assert.equal(forbidden.status, 403);
      assert.equal(forbidden.body.detail.code, 'FORBIDDEN');
    });
  });
});
