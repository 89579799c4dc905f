import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import type { Invoice } from '../../../src/domain/invoices/present-invoice.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { untouchedInvoiceDetail } from '../../helpers/api-shapes.js';
import { billingRequests } from '../../helpers/billing-requests.js';
import { buildInvoice, buildPatient, buildPayment, createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { runClinic } from '../../helpers/run-cli.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { assertLedgerConsistent } from '../../helpers/ledger.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import type { Patient } from '../../../src/domain/patients/present-patient.js';
import { setModuleEnabled } from '../../../src/domain/settings.js';

describe('GET /invoices', () => {
  let server: TestServer;
  let patientId: string;
  let otherPatientId: string;
  let open: Invoice;
  let partly: Invoice;
  let paid: Invoice;
  let other: Invoice;
  before(async () => {
    server = await startTestServer();
    const db = server.db;
    patientId = createPatient(db, buildPatient()).id;
    otherPatientId = createPatient(db, buildPatient()).id;
    open = createInvoice(db, buildInvoice(patientId, { total: '120.50', issued_at: '2026-01-10T10:00:00Z' }));
    partly = createInvoice(db, buildInvoice(patientId, { total: '80', issued_at: '2026-02-10T10:00:00Z' }));
    paid = createInvoice(db, buildInvoice(patientId, { total: '15.25', issued_at: '2026-03-10T10:00:00Z' }));
    other = createInvoice(db, buildInvoice(otherPatientId, { total: '1', issued_at: '2026-01-01T10:00:00Z' }));
    recordPayment(db, { path: { invoice_id: partly.id }, headers: {}, body: buildPayment({ amount: '30.10' }) });
    recordPayment(db, { path: { invoice_id: paid.id }, headers: {}, body: buildPayment({ amount: '15.25' }) });
  });
  after(() => server.close());

  it('lists every invoice newest first as Invoice items with money as JSON numbers', async () => {
    const response = await server.request('GET', '/invoices');
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.body.map((i: Invoice) => i.invoice_number),
      [paid, partly, open, other].map((i) => i.invoice_number),
    );
    assert.deepEqual(response.body[1], {
      id: partly.id,
      invoice_number: partly.invoice_number,
      patient_id: patientId,
      status: 'partially_paid',
      currency: 'EUR',
      total: 80,
      amount_paid: 30.1,
      balance: 49.9,
      issued_at: '2026-02-10T10:00:00.000Z',
      amount_credited: 0,
    });
    assert.match(response.text, /"total":120\.5,/);
  });

  it('filters to one patient, given in any letter case', async () => {
    const response = await server.request('GET', `/invoices?patient_id=${otherPatientId.toUpperCase()}`);
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.body.map((i: Invoice) => i.id),
      [other.id],
    );
  });

  it('answers an unknown patient with an empty list', async () => {
    const response = await server.request('GET', '/invoices?patient_id=00000000-0000-4000-8000-000000000000');
    assert.deepEqual([response.status, response.body], [200, []]);
  });

  const unpaidCases: [string, boolean][] = [
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ];
  for (const [value, onlyOpen] of unpaidCases) {
    it(`reads unpaid=${value} as ${onlyOpen}`, async () => {
      const response = await server.request('GET', `/invoices?patient_id=${patientId}&unpaid=${value}`);
      assert.equal(response.status, 200);
      const expected = onlyOpen ? [partly.id, open.id] : [paid.id, partly.id, open.id];
      assert.deepEqual(
        response.body.map((i: Invoice) => i.id),
        expected,
      );
    });
  }

  for (const value of ['yes', 'TRUE', 'True', '', '2', 'on', 'null']) {
    it(`refuses unpaid=${JSON.stringify(value)} with bool_parsing`, async () => {
      const response = await server.request('GET', `/invoices?unpaid=${encodeURIComponent(value)}`);
      assert.equal(response.status, 422);
      assert.deepEqual(response.body.detail, [
        {
          type: 'bool_parsing',
          loc: ['query', 'unpaid'],
          msg: 'Input should be a valid boolean, unable to interpret input',
          input: value,
        },
      ]);
    });
  }

  it('reports a malformed patient_id and unpaid together', async () => {
    const response = await server.request('GET', '/invoices?patient_id=42&unpaid=maybe');
    assert.equal(response.status, 422);
    assert.deepEqual(
      response.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
      [
        ['uuid_parsing', ['query', 'patient_id']],
        ['bool_parsing', ['query', 'unpaid']],
      ],
    );
  });

  it('ignores unknown query parameters', async () => {
    const response = await server.request('GET', `/invoices?patient_id=${otherPatientId}&page=2`);
    assert.equal(response.status, 200);
  });

  it('requires a key (401) holding invoices:read (403 FORBIDDEN)', async () => {
    const none = await server.request('GET', '/invoices', { key: null });
    assert.deepEqual([none.status, none.body.detail.code], [401, 'UNAUTHENTICATED']);
    const lookupsOnly = server.createKey(['lookups:read', 'payments:write']);
    const forbidden = await server.request('GET', '/invoices', { key: lookupsOnly });
    assert.deepEqual([forbidden.status, forbidden.body.detail.code], [403, 'FORBIDDEN']);
  });

  it('answers 405 with Allow for another method', async () => {
    const response = await server.request('DELETE', '/invoices');
    assert.equal(response.status, 405);
    assert.equal(response.body.detail.code, 'METHOD_NOT_ALLOWED');
    assert.match(response.headers.get('allow') ?? '', /GET/);
  });

  it('answers 403 MODULE_DISABLED at once when billing is switched off on the running server, before checking the query', async () => {
    const off = await runClinic(['module', 'disable', 'billing', '--data', server.dataDir]);
    assert.equal(off.code, 0, off.stderr);
    try {
      const response = await server.request('GET', '/invoices?unpaid=maybe');
      assert.equal(response.status, 403);
      assert.deepEqual(response.body, { detail: { code: 'MODULE_DISABLED', message: 'The billing module is disabled for this clinic.' } });
      // Credentials and scope are still checked first.
      assert.equal((await server.request('GET', '/invoices', { key: null })).status, 401);
      const forbidden = await server.request('GET', '/invoices', { key: server.createKey(['lookups:read']) });
      assert.equal(forbidden.body.detail.code, 'FORBIDDEN');
    } finally {
      const on = await runClinic(['module', 'enable', 'billing', '--data', server.dataDir]);
      assert.equal(on.code, 0, on.stderr);
    }
    assert.equal((await server.request('GET', '/invoices')).status, 200);
  });

  it('is not affected by the payments module', async () => {
    const off = await runClinic(['module', 'disable', 'payments', '--data', server.dataDir]);
    assert.equal(off.code, 0, off.stderr);
    try {
      assert.equal((await server.request('GET', '/invoices')).status, 200);
    } finally {
      await runClinic(['module', 'enable', 'payments', '--data', server.dataDir]);
    }
  });
});

describe('POST /patients outstanding balance', () => {
  const server = useTestServer();

  it('is "0" with a null currency for a new patient', async () => {
    const response = await server.request('POST', '/patients', { body: buildPatient() });
    assert.equal(response.status, 201);
    assert.equal(response.body.outstanding_balance, '0');
    assert.equal(response.body.outstanding_currency, null);
  });
});

interface CreditNote {
  id: string;
  credit_note_number: string;
  amount: number;
  reason: string;
  created_at: string;
}

/**
 * Credit notes (clinic-api-1.3.md, "Credit notes"): POST /invoices/{invoice_id}/credit-notes and
 * the goodwill refund, on the real server. Issue 42, finding 8: a goodwill refund made the patient
 * a debtor, and nothing could lower what an invoice asks.
 */
describe('credit notes and goodwill refunds', () => {
  const server = useTestServer();
  afterEach(() => assertLedgerConsistent(server.db));

  const pay = async (invoiceId: string, amount: string, headers: Record<string, string> = {}) => {
    const answer = await server.request('POST', `/invoices/${invoiceId}/payments`, { body: buildPayment({ amount }), headers });
    assert.equal(answer.status, 200, answer.text);
    return answer.body as { payment_id: string };
  };
  const credit = (invoiceId: string, body: unknown, headers: Record<string, string> = {}) =>
    server.request('POST', `/invoices/${invoiceId}/credit-notes`, { body, headers });
  const { refund, detail } = billingRequests(server);
  const count = (table: string) => (server.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  const lastSeq = async () => {
    const feed = (await server.request('GET', '/events?limit=1000')).body as { seq: number }[];
    return feed.at(-1)?.seq ?? 0;
  };
  const year = new Date().getUTCFullYear();

  it('keeps a paid invoice paid through a goodwill refund: the patient owes nothing (finding 8)', async () => {
    const invoice = createTestInvoice(server.db, { total: '60.00' });
    const { payment_id } = await pay(invoice.id, '60.00');
    const before = await lastSeq();

    const answer = await refund(payment_id, { amount: '10.00', reason: 'Waited an hour', goodwill: true });
    assert.equal(answer.status, 201, answer.text);
    assert.deepEqual(
      [answer.body.amount, answer.body.invoice_status, answer.body.invoice_amount_paid, answer.body.invoice_balance],
      [10, 'paid', 50, 0],
    );
    const note = answer.body.credit_note as CreditNote;
    assert.match(note.credit_note_number, new RegExp(`^CN-${year}-\\d{6}$`));
    assert.deepEqual([note.amount, note.reason, note.created_at], [10, 'Waited an hour', answer.body.created_at]);

    const shown = await detail(invoice.id);
    assert.deepEqual([shown.status, shown.total, shown.amount_paid, shown.balance, shown.amount_credited], ['paid', 60, 50, 0, 10]);
    assert.deepEqual(shown.credit_notes, [note]);
    assert.deepEqual(
      Object.keys(shown).slice(-4),
      ['voided_at', 'void_reason', 'amount_credited', 'credit_notes'],
      'appended after the 1.2.0 fields',
    );
    assert.equal((await server.request('GET', `/patients/${invoice.patient_id}`)).body.outstanding_balance, '0');
    assert.deepEqual((await server.request('GET', `/invoices?patient_id=${invoice.patient_id}&unpaid=true`)).body, []);

    const events = (await server.request('GET', `/events?after=${before}`)).body as { type: string; data: unknown }[];
    assert.deepEqual(
      events.map((event) => [event.type, event.data]),
      [
        [
          'refund.created',
          { refund_id: answer.body.refund_id, payment_id, invoice_id: invoice.id, amount: 10, invoice_status: 'paid', invoice_balance: 0 },
        ],
        [
          'invoice.credited',
          {
            invoice_id: invoice.id,
            credit_note_id: note.id,
            credit_note_number: note.credit_note_number,
            amount: 10,
            invoice_status: 'paid',
            invoice_balance: 0,
          },
        ],
      ],
    );
    const trail = (await server.request('GET', `/audit-events?patient_id=${invoice.patient_id}&action=refund.create,invoice.credit`))
      .body as { action: string; subject_id: string }[];
    assert.deepEqual(
      trail.map((event) => [event.action, event.subject_id]),
      [
        ['refund.create', answer.body.refund_id],
        ['invoice.credit', invoice.id],
      ],
    );
  });

  it('replays a goodwill refund with its credit note, and a plain refund still reopens the invoice (credit_note null)', async () => {
    const invoice = createTestInvoice(server.db, { total: '40.00' });
    const { payment_id } = await pay(invoice.id, '40.00');
    const key = { 'idempotency-key': `goodwill-${randomUUID()}` };
    const first = await refund(payment_id, { amount: 5, reason: 'goodwill', goodwill: true }, key);
    const again = await refund(payment_id, { amount: '5.00', reason: 'goodwill', goodwill: true }, key);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    const other = await refund(payment_id, { amount: 5, reason: 'goodwill' }, key);
    assert.deepEqual([other.status, other.body.detail.code], [422, 'IDEMPOTENCY_KEY_REUSED'], 'goodwill is part of the request');

    const plain = await refund(payment_id, { amount: 5, reason: 'charged twice' });
    assert.equal(plain.status, 201);
    assert.equal(plain.body.credit_note, null);
    assert.deepEqual([plain.body.invoice_status, plain.body.invoice_balance], ['partially_paid', 5]);
  });

  it('refuses a goodwill refund of everything paid that would leave the invoice asking nothing (409 INVOICE_FULLY_CREDITED)', async () => {
    const invoice = createTestInvoice(server.db, { total: '30.00' });
    const { payment_id } = await pay(invoice.id, '30.00');
    const refused = await refund(payment_id, { reason: 'all of it', goodwill: true });
    assert.deepEqual([refused.status, refused.body.detail.code], [409, 'INVOICE_FULLY_CREDITED']);
    assert.deepEqual([(await detail(invoice.id)).refunds, (await detail(invoice.id)).credit_notes], [[], []]);
    // Refunded, then voided: the way to give everything back.
    assert.equal((await refund(payment_id, { reason: 'all of it' })).status, 201);
    assert.equal((await server.request('POST', `/invoices/${invoice.id}/void`, { body: { reason: 'given back' } })).body.status, 'void');
  });

  it('lowers what an invoice asks with a credit note: 201 with the invoice, numbered in its year, and a paid status once money covers the rest', async () => {
    const invoice = createTestInvoice(server.db, { total: '100.00' });
    await pay(invoice.id, '60.00');
    const answer = await credit(invoice.id, { amount: '15.50', reason: 'X-ray billed twice' });
    assert.equal(answer.status, 201, answer.text);
    assert.deepEqual(answer.body, await detail(invoice.id));
    assert.deepEqual(
      [answer.body.status, answer.body.amount_paid, answer.body.amount_credited, answer.body.balance],
      ['partially_paid', 60, 15.5, 24.5],
    );
    const listed = (await server.request('GET', `/invoices?patient_id=${invoice.patient_id}`)).body;
    assert.deepEqual(Object.keys(listed[0]).at(-1), 'amount_credited', 'the Invoice item appends it too');
    assert.equal(listed[0].amount_credited, 15.5);

    const rest = await credit(invoice.id, { amount: 24.5, reason: 'Goodwill' });
    assert.deepEqual([rest.body.status, rest.body.balance, rest.body.amount_credited], ['paid', 0, 40]);
    const [first, second] = rest.body.credit_notes as CreditNote[];
    const serial = (note: CreditNote) => Number(note.credit_note_number.slice(-6));
    assert.equal(serial(second!), serial(first!) + 1, 'one series, never reused');
    const notified = server.db.prepare('SELECT count(*) AS n FROM notification_outbox WHERE invoice_id = ?').get(invoice.id) as {
      n: number;
    };
    assert.equal(notified.n, 1, 'paid by the credit note: the patient is told, as when a payment pays it');
    const paying = await server.request('POST', `/invoices/${invoice.id}/payments`, { body: buildPayment({ amount: '0.01' }) });
    assert.deepEqual([paying.status, paying.body.detail.code], [422, 'PAYMENT_EXCEEDS_BALANCE']);
  });

  // Every refusal of a credit note is a row of CREATE_CREDIT_NOTE's table
  // (test/domain/invoices/credit-invoice.test.ts); here, how the API shows each kind.
  it('shows its refusals as the API does: 404, 409 with its code, 422 with detail.balance, 422 at the field; nothing made', async () => {
    const open = createTestInvoice(server.db, { total: '50.00' });
    const notes = count('credit_notes');
    const missing = await credit(randomUUID(), { amount: 1, reason: 'x' });
    assert.deepEqual([missing.status, missing.body.detail.code], [404, 'INVOICE_NOT_FOUND']);
    const fully = await credit(open.id, { amount: 50, reason: 'all of it' });
    assert.deepEqual([fully.status, fully.body.detail.code], [409, 'INVOICE_FULLY_CREDITED']);
    const tooMuch = await credit(open.id, { amount: '50.01', reason: 'too much' });
    assert.deepEqual([tooMuch.status, tooMuch.body.detail.code, tooMuch.body.detail.balance], [422, 'CREDIT_EXCEEDS_BALANCE', 50]);
    const blank = await credit(open.id, { amount: 1, reason: '   ' });
    assert.deepEqual([blank.status, blank.body.detail[0].loc, blank.body.detail[0].type], [422, ['body', 'reason'], 'value_error']);
    assert.equal(count('credit_notes'), notes, 'nothing was made');
    assert.deepEqual([(await detail(open.id)).balance, (await detail(open.id)).status], [50, 'issued']);
  });

  it('answers an Idempotency-Key once: a replay with Idempotent-Replayed, recording nothing, another request refused', async () => {
    const invoice = createTestInvoice(server.db, { total: '80.00' });
    const key = `credit-${randomUUID()}`;
    const first = await credit(invoice.id, { amount: 10, reason: 'discount' }, { 'idempotency-key': key });
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const before = await lastSeq();
    const replay = await credit(invoice.id, { amount: '10.00', reason: 'discount' }, { 'idempotency-key': key });
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replay.body, first.body);
    assert.equal((await detail(invoice.id)).credit_notes.length, 1, 'recorded once');
    assert.equal(await lastSeq(), before, 'a replay records nothing');

    const reused = await credit(invoice.id, { amount: 11, reason: 'discount' }, { 'idempotency-key': key });
    assert.deepEqual([reused.status, reused.body.detail.code], [422, 'IDEMPOTENCY_KEY_REUSED']);
  });
});

// GET /invoices/{invoice_id} of interface 1.1.0 (clinic-api-1.1.md), black box over HTTP.

/** The [type, loc] of each item of a 422 detail array. */
const issuesOf = (body: any): [string, unknown[]][] => body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]);

describe('GET /invoices/{invoice_id}', () => {
  const server = useTestServer();
  let patient: Patient;
  let invoice: Invoice;
  let untouched: Invoice;
  const payments: Record<string, any>[] = [];

  before(async () => {
    patient = createTestPatient(server.db, { first_name: 'Ida', last_name: 'Rechnung' });
    invoice = createInvoice(server.db, buildInvoice(patient.id, { total: '120.50', issued_at: '2026-02-10T10:00:00Z' }));
    untouched = createInvoice(server.db, buildInvoice(patient.id, { total: '15.00', issued_at: '2026-02-11T10:00:00Z' }));
    // Recorded in this order, back to back: the order recorded is the only order they have.
    for (const body of [
      buildPayment({ amount: '10.00', method: 'cash' }),
      buildPayment({ amount: 20.5, method: 'card', note: 'terminal 2' }),
      buildPayment({ amount: '5', method: 'other', note: 'voucher' }),
      buildPayment({ amount: '0.01', method: 'bank', note: null }),
    ]) {
      const response = await server.request('POST', `/invoices/${invoice.id}/payments`, { body });
      assert.equal(response.status, 200, response.text);
      payments.push(response.body);
    }
  });

  /** The Invoice item of `id` as GET /invoices lists it now. */
  async function listed(id: string): Promise<Record<string, unknown>> {
    const response = await server.request('GET', `/invoices?patient_id=${patient.id}`);
    assert.equal(response.status, 200, response.text);
    return response.body.find((i: { id: string }) => i.id === id);
  }

  it('answers the Invoice item plus the patient and the payments in the order recorded', async () => {
    const response = await server.request('GET', `/invoices/${invoice.id}`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      [response.body.status, response.body.total, response.body.amount_paid, response.body.balance],
      ['partially_paid', 120.5, 35.51, 84.99],
    );
    assert.deepEqual(response.body, {
      ...(await listed(invoice.id)),
      patient_number: patient.patient_number,
      patient_first_name: 'Ida',
      patient_last_name: 'Rechnung',
      payments: payments.map((p, index) => ({
        payment_id: p.payment_id,
        amount: [10, 20.5, 5, 0.01][index],
        method: ['cash', 'card', 'other', 'bank'][index],
        note: [null, 'terminal 2', 'voucher', null][index],
        created_at: p.created_at,
        refunded_amount: 0,
      })),
      refunds: [],
      voided_at: null,
      void_reason: null,
      amount_credited: 0,
      credit_notes: [],
    });
  });

  it('answers an invoice without payments with an empty payments array', async () => {
    const response = await server.request('GET', `/invoices/${untouched.id.toUpperCase()}`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.status, 'issued');
    assert.deepEqual(response.body, {
      ...(await listed(untouched.id)),
      patient_number: patient.patient_number,
      patient_first_name: 'Ida',
      patient_last_name: 'Rechnung',
      ...untouchedInvoiceDetail(),
    });
  });

  it('answers 404 INVOICE_NOT_FOUND for an unknown id', async () => {
    const response = await server.request('GET', `/invoices/${randomUUID()}`);
    assert.equal(response.status, 404, response.text);
    assert.equal(response.body.detail.code, 'INVOICE_NOT_FOUND');
  });

  it('answers 404 INVOICE_NOT_FOUND for the id of a patient', async () => {
    const response = await server.request('GET', `/invoices/${patient.id}`);
    assert.equal(response.status, 404, response.text);
    assert.equal(response.body.detail.code, 'INVOICE_NOT_FOUND');
  });

  for (const id of ['not-a-uuid', 'INV-2026-000001']) {
    it(`refuses the malformed id ${JSON.stringify(id)} with 422 uuid_parsing at ["path","invoice_id"]`, async () => {
      const response = await server.request('GET', `/invoices/${id}`);
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(issuesOf(response.body), [['uuid_parsing', ['path', 'invoice_id']]]);
    });
  }

  it('answers 403 MODULE_DISABLED with billing off, before looking at the id, and again 200 once it is on', async () => {
    setModuleEnabled(server.db, 'billing', false);
    try {
      for (const id of [invoice.id, randomUUID(), 'not-a-uuid']) {
        const response = await server.request('GET', `/invoices/${id}`);
        assert.equal(response.status, 403, `${id}: ${response.text}`);
        assert.equal(response.body.detail.code, 'MODULE_DISABLED');
      }
      // Credentials and scope come first.
      assert.equal((await server.request('GET', `/invoices/${invoice.id}`, { key: null })).status, 401);
      const forbidden = await server.request('GET', `/invoices/${invoice.id}`, { key: server.createKey(['patients:read']) });
      assert.deepEqual([forbidden.status, forbidden.body.detail.code], [403, 'FORBIDDEN']);
    } finally {
      setModuleEnabled(server.db, 'billing', true);
    }
    assert.equal((await server.request('GET', `/invoices/${invoice.id}`)).status, 200);
  });

  it('answers DELETE with 405 and Allow naming GET', async () => {
    const response = await server.request('DELETE', `/invoices/${invoice.id}`);
    assert.equal(response.status, 405, response.text);
    assert.match(response.headers.get('allow') ?? '', /\bGET\b/);
  });

  it('does not depend on the payments module', async () => {
    setModuleEnabled(server.db, 'payments', false);
    try {
      assert.equal((await server.request('GET', `/invoices/${invoice.id}`)).status, 200);
    } finally {
      setModuleEnabled(server.db, 'payments', true);
    }
  });
});

/**
 * POST /invoices/{invoice_id}/void (clinic-api-1.2.md), on the real server. Its rules are
 * VOID_INVOICE's table (test/domain/invoices/void-invoice.test.ts); here, how the server answers
 * it and what the other endpoints then show.
 */
describe('voiding invoices', () => {
  const server = useTestServer();
  afterEach(() => assertLedgerConsistent(server.db));

  const { pay, refund, detail } = billingRequests(server);
  const voidInvoice = (invoiceId: string, body: unknown = { reason: 'Issued to the wrong patient' }) =>
    server.request('POST', `/invoices/${invoiceId}/void`, { body });

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
});
