import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { setModuleEnabled } from '../../src/domain/settings.js';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { buildPayment, createTestInvoice } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';
import { assertLedgerConsistent } from '../helpers/ledger.js';

/** POST /invoices/{invoice_id}/void and POST /payments/{payment_id}/refunds (clinic-api-1.2.md), on the real server. */
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

    it('answers a second void with the invoice as it is: the first reason stays', async () => {
      const invoice = createTestInvoice(server.db);
      const first = await voidInvoice(invoice.id, { reason: 'first' });
      const second = await voidInvoice(invoice.id, { reason: 'second' });
      assert.equal(second.status, 200);
      assert.deepEqual(second.body, first.body);
    });

    it('refuses an invoice with payments (409 INVOICE_HAS_PAYMENTS) until they are refunded', async () => {
      const invoice = createTestInvoice(server.db, { total: '50.00' });
      const paid = await pay(invoice.id, '20.00');
      const refused = await voidInvoice(invoice.id);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.detail.code, 'INVOICE_HAS_PAYMENTS');
      assert.equal((await detail(invoice.id)).status, 'partially_paid');
      assert.equal((await refund(paid.body.payment_id, { reason: 'cancelled treatment' })).status, 201);
      assert.equal((await voidInvoice(invoice.id)).body.status, 'void');
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

    it('refuses a missing, blank or too long reason, and changes nothing', async () => {
      const invoice = createTestInvoice(server.db);
      for (const [body, type] of [
        [{}, 'missing'],
        [{ reason: '   ' }, 'value_error'],
        [{ reason: 'x'.repeat(501) }, 'string_too_long'],
        [{ reason: '' }, 'string_too_short'],
      ] as const) {
        const answer = await voidInvoice(invoice.id, body);
        assert.equal(answer.status, 422, JSON.stringify(body));
        assert.deepEqual([answer.body.detail[0].type, answer.body.detail[0].loc], [type, ['body', 'reason']]);
      }
      assert.equal((await detail(invoice.id)).status, 'issued');
    });

    it('answers 404 for an unknown invoice, 403 without invoices:write, and 403 with billing off', async () => {
      assert.equal((await voidInvoice('00000000-0000-4000-8000-000000000000')).body.detail.code, 'INVOICE_NOT_FOUND');
      const invoice = createTestInvoice(server.db);
      const reader = server.createKey(['invoices:read']);
      const forbidden = await server.request('POST', `/invoices/${invoice.id}/void`, { body: { reason: 'x' }, key: reader });
      assert.equal(forbidden.body.detail.code, 'FORBIDDEN');
      setModuleEnabled(server.db, 'billing', false);
      try {
        assert.equal((await voidInvoice(invoice.id)).body.detail.code, 'MODULE_DISABLED');
      } finally {
        setModuleEnabled(server.db, 'billing', true);
      }
      assert.equal((await detail(invoice.id)).status, 'issued');
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

    it('refunds all that is left without an amount, in the method asked, and leaves the invoice issued', async () => {
      const invoice = createTestInvoice(server.db, { total: '40.00' });
      const paid = (await pay(invoice.id, '40.00')).body;
      await refund(paid.payment_id, { amount: 10, reason: 'discount' });
      const rest = await refund(paid.payment_id, { reason: 'cancelled', method: 'bank' });
      assert.equal(rest.status, 201);
      assert.deepEqual(
        [rest.body.amount, rest.body.method, rest.body.invoice_status, rest.body.invoice_balance],
        [30, 'bank', 'issued', 40],
      );
      const none = await refund(paid.payment_id, { reason: 'again' });
      assert.equal(none.status, 422);
      assert.equal(none.body.detail.code, 'REFUND_EXCEEDS_PAYMENT');
      assert.match(none.body.detail.message, /0\.00 EUR/);
    });

    it('refuses more than can still be refunded, saying how much can, and stores nothing', async () => {
      const invoice = createTestInvoice(server.db, { total: '40.00' });
      const paid = (await pay(invoice.id, '25.00')).body;
      const before = refundCount();
      const answer = await refund(paid.payment_id, { amount: '25.01', reason: 'too much' });
      assert.equal(answer.status, 422);
      assert.equal(answer.body.detail.code, 'REFUND_EXCEEDS_PAYMENT');
      assert.match(answer.body.detail.message, /25\.00 EUR/);
      assert.equal(refundCount(), before);
    });

    it('answers 404 PAYMENT_NOT_FOUND for an unknown payment and 422 for a malformed body', async () => {
      const unknown = await refund('00000000-0000-4000-8000-000000000000', { reason: 'x' });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.detail.code, 'PAYMENT_NOT_FOUND');
      const invoice = createTestInvoice(server.db);
      const paid = (await pay(invoice.id, '10.00')).body;
      const bad = await refund(paid.payment_id, { amount: -1, method: 'cheque', reason: ' ' });
      assert.equal(bad.status, 422);
      assert.deepEqual(bad.body.detail.map((i: { loc: string[] }) => i.loc.join('.')).sort(), [
        'body.amount',
        'body.method',
        'body.reason',
      ]);
    });

    it('replays a refund repeated with its Idempotency-Key, and refuses the key for another request or a payment', async () => {
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

    it('needs payments:write and the payments module', async () => {
      const invoice = createTestInvoice(server.db);
      const paid = (await pay(invoice.id, '10.00')).body;
      const reader = server.createKey(['invoices:read', 'invoices:write']);
      const forbidden = await server.request('POST', `/payments/${paid.payment_id}/refunds`, { body: { reason: 'x' }, key: reader });
      assert.equal(forbidden.body.detail.code, 'FORBIDDEN');
      setModuleEnabled(server.db, 'payments', false);
      try {
        assert.equal((await refund(paid.payment_id, { reason: 'x' })).body.detail.code, 'MODULE_DISABLED');
      } finally {
        setModuleEnabled(server.db, 'payments', true);
      }
      assert.equal(refundCount() > 0, true);
    });
  });
});
