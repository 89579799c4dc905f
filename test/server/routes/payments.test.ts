import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { findInvoice } from '../../../src/db/invoices.js';
import { listNotificationRows } from '../../../src/db/notifications.js';
import { listPaymentRows } from '../../../src/db/payments.js';
import { setModuleEnabled } from '../../../src/domain/settings.js';
import { PAYMENT_RESULT_KEYS } from '../../helpers/api-shapes.js';
import { billingRequests } from '../../helpers/billing-requests.js';
import { buildPayment, createTestInvoice, text } from '../../helpers/builders.js';
import { assertLedgerConsistent } from '../../helpers/ledger.js';
import { runClinic } from '../../helpers/run-cli.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { type ApiResponse } from '../../helpers/test-server.js';
import { sqliteErrorCode } from '../../../src/db/sqlite-result-codes.js';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('POST /invoices/{invoice_id}/payments', () => {
  const server = useTestServer();
  afterEach(() => assertLedgerConsistent(server.db));

  const pay = (invoiceId: string, body: unknown = buildPayment(), headers: Record<string, string> = {}, key?: string | null) =>
    server.request('POST', `/invoices/${invoiceId}/payments`, { body, headers, ...(key === undefined ? {} : { key }) });
  const codeOf = (response: ApiResponse) => [response.status, response.body?.detail?.code];

  describe('recording', () => {
    it('answers 200 (not 201) with the Payment result', async () => {
      const invoice = createTestInvoice(server.db, { total: '120.50' });
      const response = await pay(invoice.id, { amount: 20.5, method: 'card', note: 'terminal 2' });
      assert.equal(response.status, 200);
      const { payment_id, created_at, ...rest } = response.body;
      assert.match(payment_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.match(created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.deepEqual(rest, {
        invoice_id: invoice.id,
        patient_id: invoice.patient_id,
        amount: 20.5,
        method: 'card',
        currency: 'EUR',
        invoice_status: 'partially_paid',
        invoice_total: 120.5,
        invoice_amount_paid: 20.5,
        invoice_balance: 100,
      });
      assert.deepEqual(Object.keys(response.body), PAYMENT_RESULT_KEYS);
      assert.equal(response.headers.get('idempotent-replayed'), null);
    });

    it('takes an invoice issued → partially_paid → paid, shown by GET /invoices, and notifies the patient once', async () => {
      const invoice = createTestInvoice(server.db, { total: '50' });
      assert.equal((await pay(invoice.id, buildPayment({ amount: '20' }))).body.invoice_status, 'partially_paid');
      assert.equal((await pay(invoice.id, buildPayment({ amount: '20' }))).body.invoice_status, 'partially_paid');
      assert.equal(listNotificationRows(server.db).filter((n) => n.invoice_id === invoice.id).length, 0);
      const last = await pay(invoice.id, buildPayment({ amount: '10' }));
      assert.deepEqual([last.body.invoice_status, last.body.invoice_amount_paid, last.body.invoice_balance], ['paid', 50, 0]);
      const listed = await server.request('GET', `/invoices?patient_id=${invoice.patient_id}`);
      assert.deepEqual([listed.body[0].status, listed.body[0].amount_paid, listed.body[0].balance], ['paid', 50, 0]);
      const notifications = listNotificationRows(server.db).filter((n) => n.invoice_id === invoice.id);
      assert.deepEqual(
        notifications.map((n) => [n.patient_id, n.channel, n.status]),
        [[invoice.patient_id, 'email', 'pending']],
      );
    });

    it('accepts an uppercase invoice id', async () => {
      const invoice = createTestInvoice(server.db);
      const response = await pay(invoice.id.toUpperCase());
      assert.deepEqual([response.status, response.body.invoice_id], [200, invoice.id]);
    });

    it('refuses an amount above the balance with PAYMENT_EXCEEDS_BALANCE and changes nothing', async () => {
      const invoice = createTestInvoice(server.db, { total: '10' });
      await pay(invoice.id, buildPayment({ amount: 4 }));
      const before = findInvoice(server.db, invoice.id);
      const response = await pay(invoice.id, buildPayment({ amount: '6.01' }));
      assert.deepEqual(response.body, {
        detail: { code: 'PAYMENT_EXCEEDS_BALANCE', message: "The amount is more than the invoice's remaining balance of 6.00 EUR." },
      });
      assert.equal(response.status, 422);
      assert.deepEqual(findInvoice(server.db, invoice.id), before);
      assert.equal(listPaymentRows(server.db, invoice.id).length, 1);
    });

    it('refuses any amount on a paid invoice', async () => {
      const invoice = createTestInvoice(server.db, { total: '10' });
      await pay(invoice.id, buildPayment({ amount: 10 }));
      assert.deepEqual(codeOf(await pay(invoice.id, buildPayment({ amount: 0.01 }))), [422, 'PAYMENT_EXCEEDS_BALANCE']);
    });

    it('answers 404 INVOICE_NOT_FOUND for an unknown invoice', async () => {
      assert.deepEqual(codeOf(await pay(UNKNOWN_ID)), [404, 'INVOICE_NOT_FOUND']);
    });
  });

  describe('amount', () => {
    const refused: [string, unknown, string][] = [
      ['zero', 0, 'greater_than'],
      ['the string zero', '0.00', 'greater_than'],
      ['minus one', -1, 'greater_than'],
      ['a negative string', '-5', 'greater_than'],
      ['three fraction digits', 0.001, 'decimal_max_places'],
      ['"1.005"', '1.005', 'decimal_max_places'],
      ['nine integer digits', 123456789, 'decimal_whole_digits'],
      ['nine integer digits as a string', '123456789.00', 'decimal_whole_digits'],
      ['exponent notation', '1e3', 'decimal_parsing'],
      ['an empty string', '', 'decimal_parsing'],
      ['a lone plus', '+', 'decimal_parsing'],
      ['a lone point', '.', 'decimal_parsing'],
      ['a comma', '1,50', 'decimal_parsing'],
      ['true', true, 'decimal_parsing'],
      ['null', null, 'decimal_parsing'],
      ['an object', { value: 1 }, 'decimal_parsing'],
    ];
    for (const [name, amount, type] of refused) {
      it(`refuses ${name} with ${type} at body.amount`, async () => {
        const invoice = createTestInvoice(server.db, { total: '99999999.99' });
        const response = await pay(invoice.id, { amount, method: 'cash' });
        assert.equal(response.status, 422);
        assert.deepEqual(
          response.body.detail.map((d: { type: string; loc: unknown[]; input: unknown }) => [d.type, d.loc, d.input]),
          [[type, ['body', 'amount'], amount]],
        );
        assert.equal(listPaymentRows(server.db, invoice.id).length, 0);
      });
    }

    it('refuses a missing amount with missing', async () => {
      const response = await pay(createTestInvoice(server.db).id, { method: 'cash' });
      assert.deepEqual(
        response.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
        [['missing', ['body', 'amount']]],
      );
    });

    it('renders greater_than as pydantic does', async () => {
      const response = await pay(createTestInvoice(server.db).id, { amount: 0, method: 'cash' });
      assert.deepEqual(response.body.detail, [
        { type: 'greater_than', loc: ['body', 'amount'], msg: 'Input should be greater than 0', input: 0, ctx: { gt: 0 } },
      ]);
    });

    const accepted: [string, unknown, number][] = [
      ['"12345678.99"', '12345678.99', 12345678.99],
      ['one cent', 0.01, 0.01],
      ['a leading point', '.5', 0.5],
      ['a trailing point', '5.', 5],
      ['a plus sign', '+7.25', 7.25],
      ['leading zeros', '0010.10', 10.1],
      ['fraction zeros beyond two places', '1.500', 1.5],
      ['an integer', 3, 3],
    ];
    for (const [name, amount, expected] of accepted) {
      it(`accepts ${name} within the balance`, async () => {
        const response = await pay(createTestInvoice(server.db, { total: '12345678.99' }).id, { amount, method: 'bank' });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.amount, expected);
      });
    }

    it('refuses "12345678.99" when it is above the balance', async () => {
      assert.deepEqual(codeOf(await pay(createTestInvoice(server.db, { total: '100' }).id, buildPayment({ amount: '12345678.99' }))), [
        422,
        'PAYMENT_EXCEEDS_BALANCE',
      ]);
    });
  });

  describe('method and note', () => {
    const methods: [string, unknown, string | null][] = [
      ['cash', 'cash', null],
      ['card', 'card', null],
      ['bank', 'bank', null],
      ['other', 'other', null],
      ['upper case', 'CASH', 'literal_error'],
      ['an unknown method', 'wire', 'literal_error'],
      ['a trailing space', 'cash ', 'literal_error'],
      ['17 characters', text(17), 'literal_error'],
      ['an empty string', '', 'literal_error'],
      ['a number', 5, 'literal_error'],
      ['null', null, 'literal_error'],
      ['no method', undefined, 'missing'],
    ];
    for (const [name, method, type] of methods) {
      it(`${type ? `refuses ${name} with ${type}` : `accepts ${name}`}`, async () => {
        const response = await pay(createTestInvoice(server.db).id, { amount: 1, method });
        if (type === null) {
          assert.deepEqual([response.status, response.body.method], [200, method]);
        } else {
          assert.equal(response.status, 422);
          assert.deepEqual(
            response.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
            [[type, ['body', 'method']]],
          );
        }
      });
    }

    it('says which methods are allowed', async () => {
      const response = await pay(createTestInvoice(server.db).id, { amount: 1, method: 'wire' });
      assert.equal(response.body.detail[0].msg, "Input should be 'cash', 'card', 'bank' or 'other'");
    });

    const notes: [string, unknown, string | null][] = [
      ['500 characters', text(500), null],
      ['null', null, null],
      ['501 characters', text(501), 'string_too_long'],
      ['a number', 5, 'string_type'],
    ];
    for (const [name, note, type] of notes) {
      it(`${type ? `refuses a note of ${name} with ${type}` : `accepts a note of ${name}`}`, async () => {
        const response = await pay(createTestInvoice(server.db).id, { amount: 1, method: 'other', note });
        if (type === null) assert.equal(response.status, 200);
        else
          assert.deepEqual(
            response.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
            [[type, ['body', 'note']]],
          );
      });
    }
  });

  describe('Idempotency-Key header', () => {
    const keys: [string, string, string | null][] = [
      ['one character', '!', null],
      ['255 characters', text(255, 'k'), null],
      ['a UUID', '9b2f6d8e-0c1a-4e57-9a43-2f1d8c7b6a50', null],
      ['an empty value', '', 'string_too_short'],
      ['256 characters', text(256, 'k'), 'string_too_long'],
      ['an inner space', 'a b', 'string_pattern_mismatch'],
      ['a tab', 'a\tb', 'string_pattern_mismatch'],
      ['a non-ASCII letter', 'café', 'string_pattern_mismatch'],
    ];
    for (const [name, value, type] of keys) {
      it(`${type ? `refuses ${name} with ${type} at header.idempotency-key` : `accepts ${name}`}`, async () => {
        const invoice = createTestInvoice(server.db);
        const response = await pay(invoice.id, buildPayment(), { 'Idempotency-Key': value });
        if (type === null) {
          assert.equal(response.status, 200);
          assert.equal(listPaymentRows(server.db, invoice.id)[0]?.idempotency_key, value);
        } else {
          assert.equal(response.status, 422);
          assert.deepEqual(
            response.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
            [[type, ['header', 'idempotency-key']]],
          );
          assert.equal(listPaymentRows(server.db, invoice.id).length, 0);
        }
      });
    }

    it('replays the same request: 200, the original result, Idempotent-Replayed: true, nothing recorded', async () => {
      const invoice = createTestInvoice(server.db, { total: '100' });
      const first = await pay(invoice.id, buildPayment({ amount: 30, note: 'n' }), { 'Idempotency-Key': 'replay-1' });
      const again = await pay(invoice.id, buildPayment({ amount: '30.00', note: 'n' }), { 'Idempotency-Key': 'replay-1' });
      assert.equal(again.status, 200);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, first.body);
      assert.equal(listPaymentRows(server.db, invoice.id).length, 1);
      assert.equal(findInvoice(server.db, invoice.id)?.balance_cents, 7000);
    });

    it('refuses the same key for a different request with IDEMPOTENCY_KEY_REUSED, even naming an unknown invoice', async () => {
      const invoice = createTestInvoice(server.db, { total: '100' });
      await pay(invoice.id, buildPayment({ amount: 30 }), { 'Idempotency-Key': 'reuse-1' });
      for (const [invoiceId, body] of [
        [invoice.id, buildPayment({ amount: 31 })],
        [invoice.id, buildPayment({ amount: 30, method: 'card' })],
        [invoice.id, buildPayment({ amount: 30, note: 'different' })],
        [createTestInvoice(server.db).id, buildPayment({ amount: 30 })],
        [UNKNOWN_ID, buildPayment({ amount: 30 })],
      ] as const) {
        const response = await pay(invoiceId, body, { 'Idempotency-Key': 'reuse-1' });
        assert.deepEqual(codeOf(response), [422, 'IDEMPOTENCY_KEY_REUSED']);
      }
      assert.equal(listPaymentRows(server.db, invoice.id).length, 1);
    });

    it('treats keys as case-sensitive', async () => {
      const invoice = createTestInvoice(server.db, { total: '100' });
      await pay(invoice.id, buildPayment(), { 'Idempotency-Key': 'Case' });
      const other = await pay(invoice.id, buildPayment(), { 'Idempotency-Key': 'case' });
      assert.deepEqual([other.status, other.headers.get('idempotent-replayed')], [200, null]);
      assert.equal(listPaymentRows(server.db, invoice.id).length, 2);
    });

    it("lets a refused request's key be used by the corrected request", async () => {
      const invoice = createTestInvoice(server.db, { total: '10' });
      const tooMuch = await pay(invoice.id, buildPayment({ amount: 11 }), { 'Idempotency-Key': 'fix-me' });
      assert.deepEqual(codeOf(tooMuch), [422, 'PAYMENT_EXCEEDS_BALANCE']);
      const invalid = await pay(invoice.id, buildPayment({ amount: 'ten' }), { 'Idempotency-Key': 'fix-me' });
      assert.equal(invalid.status, 422);
      const corrected = await pay(invoice.id, buildPayment({ amount: 10 }), { 'Idempotency-Key': 'fix-me' });
      assert.deepEqual([corrected.status, corrected.headers.get('idempotent-replayed')], [200, null]);
      assert.equal(corrected.body.invoice_status, 'paid');
    });

    it('replays a paying request after the invoice was paid instead of refusing it', async () => {
      const invoice = createTestInvoice(server.db, { total: '10' });
      const first = await pay(invoice.id, buildPayment({ amount: 10 }), { 'Idempotency-Key': 'paid-replay' });
      const again = await pay(invoice.id, buildPayment({ amount: 10 }), { 'Idempotency-Key': 'paid-replay' });
      assert.deepEqual([again.status, again.body], [200, first.body]);
      assert.equal(listNotificationRows(server.db).filter((n) => n.invoice_id === invoice.id).length, 1);
    });
  });

  describe('order of checks', () => {
    it('reports path, header and body issues together in one 422', async () => {
      const response = await pay('not-a-uuid', { amount: 0, method: 'wire', note: 5 }, { 'Idempotency-Key': 'a b' });
      assert.equal(response.status, 422);
      assert.deepEqual(
        response.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc.join('.')]),
        [
          ['uuid_parsing', 'path.invoice_id'],
          ['string_pattern_mismatch', 'header.idempotency-key'],
          ['greater_than', 'body.amount'],
          ['literal_error', 'body.method'],
          ['string_type', 'body.note'],
        ],
      );
    });

    it('renders a malformed id as uuid_parsing at path.invoice_id', async () => {
      const response = await pay('12345', buildPayment());
      assert.deepEqual(response.body.detail, [
        {
          type: 'uuid_parsing',
          loc: ['path', 'invoice_id'],
          msg: 'Input should be a valid UUID, invalid length: expected 36 characters, found 5',
          input: '12345',
          ctx: { error: 'invalid length: expected 36 characters, found 5' },
        },
      ]);
    });

    it('checks the schema before looking up the invoice (422, not 404)', async () => {
      const response = await pay(UNKNOWN_ID, { amount: -1, method: 'cash' });
      assert.equal(response.status, 422);
      assert.ok(Array.isArray(response.body.detail));
    });

    it('refuses a body that is not an object, or not JSON', async () => {
      const invoice = createTestInvoice(server.db);
      const list = await pay(invoice.id, [1]);
      assert.deepEqual(
        list.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
        [['model_attributes_type', ['body']]],
      );
      const broken = await server.request('POST', `/invoices/${invoice.id}/payments`, {
        rawBody: '{"amount": 1,',
        headers: { 'content-type': 'application/json' },
      });
      assert.deepEqual([broken.status, broken.body.detail[0].type], [422, 'json_invalid']);
    });

    it('answers 415 for another content type before validating', async () => {
      const response = await server.request('POST', `/invoices/not-a-uuid/payments`, {
        rawBody: 'amount=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.deepEqual(codeOf(response), [415, 'UNSUPPORTED_MEDIA_TYPE']);
    });

    it('answers 413 for a body over 4 MiB', async () => {
      const response = await pay(createTestInvoice(server.db).id, { ...buildPayment(), note: text(4 * 1024 * 1024 + 1) });
      assert.deepEqual(codeOf(response), [413, 'PAYLOAD_TOO_LARGE']);
    });

    it('answers 404 for an unknown route and 405 for another method, without a key', async () => {
      const invoice = createTestInvoice(server.db);
      const missing = await server.request('POST', `/invoices/${invoice.id}/refunds`, { body: buildPayment(), key: null });
      assert.deepEqual(codeOf(missing), [404, 'NOT_FOUND']);
      const wrongMethod = await server.request('GET', `/invoices/${invoice.id}/payments`, { key: null });
      assert.deepEqual(codeOf(wrongMethod), [405, 'METHOD_NOT_ALLOWED']);
      assert.equal(wrongMethod.headers.get('allow'), 'POST');
    });

    it('requires a key (401) with payments:write (403 FORBIDDEN)', async () => {
      const invoice = createTestInvoice(server.db);
      const none = await pay(invoice.id, buildPayment(), {}, null);
      assert.deepEqual(codeOf(none), [401, 'UNAUTHENTICATED']);
      const revoked = await pay(invoice.id, buildPayment(), { authorization: 'Bearer clinic_nonsense' });
      assert.deepEqual(codeOf(revoked), [401, 'UNAUTHENTICATED']);
      const readOnly = server.createKey(['invoices:read', 'patients:write']);
      const forbidden = await pay(invoice.id, { amount: 'bad' }, {}, readOnly);
      assert.deepEqual(codeOf(forbidden), [403, 'FORBIDDEN']);
      assert.equal(listPaymentRows(server.db, invoice.id).length, 0);
    });

    it('answers 403 MODULE_DISABLED at once when payments are switched off on the running server, after credentials and scope', async () => {
      const invoice = createTestInvoice(server.db);
      const off = await runClinic(['module', 'disable', 'payments', '--data', server.dataDir]);
      assert.equal(off.code, 0, off.stderr);
      try {
        const disabled = await pay(invoice.id, buildPayment());
        assert.deepEqual(disabled.body, {
          detail: { code: 'MODULE_DISABLED', message: 'The payments module is disabled for this clinic.' },
        });
        assert.equal(disabled.status, 403);
        // Module before content type and schema.
        const badBody = await server.request('POST', `/invoices/not-a-uuid/payments`, {
          rawBody: 'x',
          headers: { 'content-type': 'text/plain' },
        });
        assert.deepEqual(codeOf(badBody), [403, 'MODULE_DISABLED']);
        assert.deepEqual(codeOf(await pay(invoice.id, buildPayment(), {}, null)), [401, 'UNAUTHENTICATED']);
        assert.deepEqual(codeOf(await pay(invoice.id, buildPayment(), {}, server.createKey(['invoices:read']))), [403, 'FORBIDDEN']);
        // The billing module is separate: invoices can still be listed.
        assert.equal((await server.request('GET', '/invoices')).status, 200);
      } finally {
        const on = await runClinic(['module', 'enable', 'payments', '--data', server.dataDir]);
        assert.equal(on.code, 0, on.stderr);
      }
      assert.equal((await pay(invoice.id, buildPayment())).status, 200);
      assert.equal(listPaymentRows(server.db, invoice.id).length, 1);
    });

    it('is not affected by the billing module', async () => {
      // Issued first: issuing an invoice is the billing module's.
      const invoice = createTestInvoice(server.db);
      setModuleEnabled(server.db, 'billing', false);
      try {
        assert.equal((await pay(invoice.id, buildPayment())).status, 200);
      } finally {
        setModuleEnabled(server.db, 'billing', true);
      }
    });
  });

  // Many requests at once over HTTP. In process they are served one after the other, so these check
  // the balance rule, not the transaction; that BEGIN IMMEDIATE keeps writers from several processes
  // apart is test/domain/payments/record-payment.test.ts, "loses no update ... from several processes at once".
  describe('many payments at once over HTTP', () => {
    it('lands exactly as many of 30 concurrent equal payments as fit, leaving the balance at exactly 0', async () => {
      const invoice = createTestInvoice(server.db, { total: '100.00' });
      const responses = await Promise.all(Array.from({ length: 30 }, () => pay(invoice.id, buildPayment({ amount: '10.00' }))));
      assert.equal(responses.filter((r) => r.status === 200).length, 10);
      assert.ok(
        responses.filter((r) => r.status !== 200).every((r) => r.status === 422 && r.body.detail.code === 'PAYMENT_EXCEEDS_BALANCE'),
      );
      const row = findInvoice(server.db, invoice.id)!;
      assert.deepEqual([row.status, row.amount_paid_cents, row.balance_cents], ['paid', 10000, 0]);
      const balances = responses
        .filter((r) => r.status === 200)
        .map((r) => r.body.invoice_balance as number)
        .sort((a, b) => a - b);
      assert.deepEqual(balances, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
      assert.equal(listNotificationRows(server.db).filter((n) => n.invoice_id === invoice.id).length, 1);
      assertLedgerConsistent(server.db);
    });

    it('never lets concurrent payments that do not divide the total push the balance below zero', async () => {
      const invoice = createTestInvoice(server.db, { total: '100.00' });
      const responses = await Promise.all(Array.from({ length: 30 }, () => pay(invoice.id, buildPayment({ amount: '7.00' }))));
      assert.equal(responses.filter((r) => r.status === 200).length, 14);
      const row = findInvoice(server.db, invoice.id)!;
      assert.deepEqual([row.status, row.amount_paid_cents, row.balance_cents], ['partially_paid', 9800, 200]);
      assertLedgerConsistent(server.db);
    });

    it('records exactly one payment for 20 concurrent retries with one key, answering all of them with it', async () => {
      const invoice = createTestInvoice(server.db, { total: '100.00' });
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => pay(invoice.id, buildPayment({ amount: 25 }), { 'Idempotency-Key': 'retry-storm' })),
      );
      assert.ok(responses.every((r) => r.status === 200));
      assert.equal(new Set(responses.map((r) => r.body.payment_id)).size, 1);
      assert.equal(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 19);
      assert.equal(listPaymentRows(server.db, invoice.id).length, 1);
      assert.equal(findInvoice(server.db, invoice.id)?.balance_cents, 7500);
    });
  });
});

/**
 * POST /payments/{payment_id}/refunds (clinic-api-1.2.md), on the real server. Its rules are
 * REFUND_PAYMENT's table (test/domain/payments/refund-payment.test.ts); here, how the server
 * answers it, what the other endpoints then show, and refunds racing on one server.
 */
describe('refunding payments', () => {
  const server = useTestServer();
  afterEach(() => assertLedgerConsistent(server.db));

  const { pay, refund, detail } = billingRequests(server);
  const refundCount = () => (server.db.prepare('SELECT count(*) AS n FROM refunds').get() as { n: number }).n;

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
