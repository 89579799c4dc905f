import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import type { Invoice } from '../../../src/domain/invoices/present-invoice.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { buildInvoice, buildPatient, buildPayment } from '../../helpers/builders.js';
import { runClinic } from '../../helpers/run-cli.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

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
