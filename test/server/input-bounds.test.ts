import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { buildPatient, buildPayment } from '../helpers/builders.js';
import { assertMatchesContract } from '../helpers/contract.js';
import { rawRequest } from '../helpers/raw-request.js';
import { useTestServer } from '../helpers/fixtures.js';

describe('headers, text and list bounds', () => {
  const server = useTestServer();
  let invoiceId: string;
  before(async () => {
    const patient = createPatient(server.db, buildPatient());
    invoiceId = createInvoice(server.db, { patient_id: patient.id, total: '100.00' }).id;
  });

  const pay = (headers: Record<string, string>) =>
    rawRequest(server.baseUrl, {
      method: 'POST',
      path: `/invoices/${invoiceId}/payments`,
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(buildPayment()),
    });

  it('honours an Idempotency-Key sent after 1,100 other headers: the same payment is recorded once', async () => {
    const junk = Object.fromEntries(Array.from({ length: 1100 }, (_, i) => [`x-j${i}`, '1']));
    const first = await pay({ ...junk, 'idempotency-key': 'after-junk' });
    const second = await pay({ ...junk, 'idempotency-key': 'after-junk' });
    assert.equal(first.status, 200, first.text);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    const count = server.db.prepare('SELECT count(*) AS n FROM payments WHERE invoice_id = ?').get(invoiceId) as { n: number };
    assert.equal(count.n, 1);
  });

  it('refuses headers over 16 KiB in all with 431 HEADERS_TOO_LARGE, in the API error shape', async () => {
    const junk = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`x-j${i}`, 'a'.repeat(500)]));
    const response = await pay({ ...junk, 'idempotency-key': 'too-large' });
    assert.equal(response.status, 431);
    assert.equal(JSON.parse(response.text).detail.code, 'HEADERS_TOO_LARGE');
    assert.ok(response.headers['x-request-id']);
    assertMatchesContract('POST', `${server.baseUrl}/invoices/${invoiceId}/payments`, response);
  });

  it('refuses text that is not Unicode (a lone surrogate) with 422 string_unicode and stores nothing', async () => {
    const before = (server.db.prepare('SELECT count(*) AS n FROM patients').get() as { n: number }).n;
    const body = JSON.stringify(buildPatient()).replace('"Ada"', '"Ada\\ud800"');
    const response = await server.request('POST', '/patients', { rawBody: body, headers: { 'content-type': 'application/json' } });
    assert.equal(response.status, 422);
    assert.deepEqual(
      response.body.detail.map((i: { type: string; loc: unknown }) => [i.type, i.loc]),
      [['string_unicode', ['body', 'first_name']]],
    );
    assert.equal((server.db.prepare('SELECT count(*) AS n FROM patients').get() as { n: number }).n, before);
    const paired = await server.request('POST', '/patients', { body: buildPatient({ first_name: `Ada 😀${'x'.repeat(123)}` }) });
    assert.equal(paired.status, 201);
    assert.equal(paired.body.first_name.length, 129, 'an emoji is one character of 128 but two UTF-16 units');
  });

  it('bounds service_ids at 20 entries (too_long)', async () => {
    const patient = createPatient(server.db, buildPatient());
    const response = await server.request('POST', '/appointments', {
      body: {
        patient_id: patient.id,
        start_at: '2026-12-01T09:00Z',
        end_at: '2026-12-01T09:30Z',
        service_ids: Array.from({ length: 21 }, () => randomUUID()),
      },
    });
    assert.equal(response.status, 422);
    assert.deepEqual(response.body.detail, [
      {
        type: 'too_long',
        loc: ['body', 'service_ids'],
        msg: 'List should have at most 20 items after validation, not 21',
        input: response.body.detail[0].input,
        ctx: { field_type: 'List', max_length: 20, actual_length: 21 },
      },
    ]);
  });

  it('bounds communication_prefs: 32 keys of 64 characters, 32 entries of 200 characters each', async () => {
    const cases: [unknown, string, (string | number)[]][] = [
      [Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, []])), 'too_long', ['body', 'communication_prefs']],
      [{ email: Array(33).fill('x') }, 'too_long', ['body', 'communication_prefs', 'email']],
      [{ email: ['x'.repeat(201)] }, 'string_too_long', ['body', 'communication_prefs', 'email', 0]],
      [{ ['k'.repeat(65)]: [] }, 'string_too_long', ['body', 'communication_prefs', 'k'.repeat(65), '[key]']],
    ];
    for (const [prefs, type, loc] of cases) {
      const response = await server.request('POST', '/patients', { body: buildPatient({ communication_prefs: prefs }) });
      assert.equal(response.status, 422, type);
      assert.deepEqual(
        response.body.detail.map((i: { type: string; loc: unknown }) => [i.type, i.loc]),
        [[type, loc]],
      );
    }
    const full = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`.padEnd(64, 'k'), Array(32).fill('y'.repeat(200))]));
    assert.equal((await server.request('POST', '/patients', { body: buildPatient({ communication_prefs: full }) })).status, 201);
  });
});
