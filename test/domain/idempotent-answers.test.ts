import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { addDoctor } from '../../src/domain/catalog.js';
import { buildPatient, createTestInvoice, createTestPatient, idempotencyHeader } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';
import { multipartBody } from '../helpers/multipart.js';
import type { ApiResponse } from '../helpers/test-server.js';

// Idempotency-Key on every POST that creates or changes (clinic-api-1.3.md, "Versions, failures,
// retries"), for the five that took none before 1.3.0: POST /patients, /appointments, /invoices,
// /invoices/{id}/void and /patients/{id}/documents. 1.0.0's rules: the same key and request
// replays the first status and body with Idempotent-Replayed: true and records nothing; the key
// with another request is 422 IDEMPOTENCY_KEY_REUSED; a refused request uses no key; one key space.

describe('Idempotency-Key on the POSTs of 1.3.0', () => {
  const server = useTestServer();
  let doctorId: string;

  before(() => {
    doctorId = addDoctor(server.db, { name: 'Dr. Once', color: '#336699' }).id;
  });

  const count = (table: string) => (server.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  /** What a request may have recorded: rows of every kind it makes, the audit trail and the change feed. */
  const recorded = () =>
    ['patients', 'appointments', 'invoices', 'documents', 'audit_events', 'change_events'].map((table) => [table, count(table)]);
  /** The documents' files (not their patients' folders). */
  const storedFiles = () =>
    existsSync(join(server.dataDir, 'documents'))
      ? readdirSync(join(server.dataDir, 'documents'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length
      : 0;

  const post = (path: string, body: unknown, key?: string) =>
    server.request('POST', path, { body, ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }) });
  const upload = (patientId: string, bytes: string, key?: string, title = 'Referral') => {
    const { body, contentType } = multipartBody([
      { name: 'title', data: title },
      { name: 'file', filename: 'referral.pdf', contentType: 'application/pdf', data: bytes },
    ]);
    return server.request('POST', `/patients/${patientId}/documents`, {
      rawBody: body,
      headers: { 'content-type': contentType, ...idempotencyHeader(key) },
    });
  };

  /** The five requests, each made anew (a new patient, a new invoice) so that each test starts clean. */
  const requests = () => {
    const patient = createTestPatient(server.db);
    const invoice = createTestInvoice(server.db, { patient_id: patient.id, total: '80.00' });
    return {
      createPatient: {
        send: (key?: string) => post('/patients', buildPatient({ last_name: 'Once' }), key),
        other: (key: string) => post('/patients', buildPatient({ last_name: 'Twice' }), key),
        refused: (key: string) => post('/patients', { first_name: 'No', last_name: 'Contact' }, key),
        status: 201,
      },
      bookAppointment: {
        send: (key?: string) =>
          post(
            '/appointments',
            {
              patient_id: patient.id,
              resource_id: doctorId,
              start_at: '2026-12-07T09:00:00Z',
              end_at: '2026-12-07T09:30:00Z',
              overlap: 'allow',
            },
            key,
          ),
        other: (key: string) =>
          post(
            '/appointments',
            {
              patient_id: patient.id,
              resource_id: doctorId,
              start_at: '2026-12-07T10:00:00Z',
              end_at: '2026-12-07T10:30:00Z',
              overlap: 'allow',
            },
            key,
          ),
        refused: (key: string) =>
          post('/appointments', { patient_id: randomUUID(), start_at: '2026-12-07T09:00:00Z', end_at: '2026-12-07T09:30:00Z' }, key),
        status: 201,
      },
      createInvoice: {
        send: (key?: string) => post('/invoices', { patient_id: patient.id, total: '45.00' }, key),
        other: (key: string) => post('/invoices', { patient_id: patient.id, total: '46.00' }, key),
        refused: (key: string) => post('/invoices', { patient_id: randomUUID(), total: '45.00' }, key),
        status: 201,
      },
      voidInvoice: {
        send: (key?: string) => post(`/invoices/${invoice.id}/void`, { reason: 'issued twice' }, key),
        other: (key: string) => post(`/invoices/${invoice.id}/void`, { reason: 'another reason' }, key),
        refused: (key: string) => post(`/invoices/${randomUUID()}/void`, { reason: 'issued twice' }, key),
        status: 200,
      },
      uploadDocument: {
        send: (key?: string) => upload(patient.id, 'the referral', key),
        other: (key: string) => upload(patient.id, 'another referral', key),
        refused: (key: string) => upload(randomUUID(), 'the referral', key),
        status: 201,
      },
    };
  };

  for (const operation of ['createPatient', 'bookAppointment', 'createInvoice', 'voidInvoice', 'uploadDocument'] as const) {
    describe(operation, () => {
      it('replays the first status and body with Idempotent-Replayed: true, recording nothing', async () => {
        const request = requests()[operation];
        const key = `once-${randomUUID()}`;
        const first = await request.send(key);
        assert.equal(first.status, request.status, first.text);
        assert.equal(first.headers.get('idempotent-replayed'), null);
        const after = { recorded: recorded(), files: storedFiles() };
        for (let i = 0; i < 2; i++) {
          const again = await request.send(key);
          assert.equal(again.status, request.status, again.text);
          assert.equal(again.headers.get('idempotent-replayed'), 'true');
          assert.deepEqual(again.body, first.body);
        }
        assert.deepEqual({ recorded: recorded(), files: storedFiles() }, after, 'nothing recorded by the replays');
      });

      it('refuses the key for another request (422 IDEMPOTENCY_KEY_REUSED), changing nothing', async () => {
        const request = requests()[operation];
        const key = `once-${randomUUID()}`;
        assert.equal((await request.send(key)).status, request.status);
        const after = recorded();
        const other = await request.other(key);
        assert.equal(other.status, 422, other.text);
        assert.equal(other.body.detail.code, 'IDEMPOTENCY_KEY_REUSED');
        assert.deepEqual(recorded(), after);
      });

      it('keeps no key for a refused request: the key then serves the request that succeeds', async () => {
        const request = requests()[operation];
        const key = `once-${randomUUID()}`;
        const refused = await request.refused(key);
        assert.ok(refused.status >= 400 && refused.status < 500, `${refused.status} ${refused.text}`);
        const first = await request.send(key);
        assert.equal(first.status, request.status, first.text);
        assert.equal(first.headers.get('idempotent-replayed'), null);
      });

      it('refuses a key held by a payment or by another operation: one key space', async () => {
        const request = requests()[operation];
        const paid = createTestInvoice(server.db, { total: '10.00' });
        const paymentKey = `pay-${randomUUID()}`;
        const payment = await post(`/invoices/${paid.id}/payments`, { amount: '1.00', method: 'cash' }, paymentKey);
        assert.equal(payment.status, 200, payment.text);
        const afterPayment: ApiResponse = await request.send(paymentKey);
        assert.equal(afterPayment.status, 422, afterPayment.text);
        assert.equal(afterPayment.body.detail.code, 'IDEMPOTENCY_KEY_REUSED');

        const elsewhere = `else-${randomUUID()}`;
        const patient = await post('/patients', buildPatient({ last_name: operation === 'createPatient' ? 'Other' : 'Once' }), elsewhere);
        assert.equal(patient.status, 201);
        if (operation !== 'createPatient') {
          const taken = await request.send(elsewhere);
          assert.equal(taken.status, 422, taken.text);
          assert.equal(taken.body.detail.code, 'IDEMPOTENCY_KEY_REUSED');
        }
        // A payment cannot take a key another operation holds either.
        const paying = await post(`/invoices/${paid.id}/payments`, { amount: '1.00', method: 'cash' }, elsewhere);
        assert.equal(paying.status, 422, paying.text);
      });
    });
  }

  it('refuses a malformed key with 422 at ["header","idempotency-key"], also on an upload', async () => {
    const patient = createTestPatient(server.db);
    const before = recorded();
    for (const response of [await post('/patients', buildPatient(), 'has space'), await upload(patient.id, 'bytes', 'x'.repeat(256))]) {
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(
        response.body.detail.map((issue: { loc: unknown[] }) => issue.loc),
        [['header', 'idempotency-key']],
      );
    }
    assert.deepEqual(recorded(), before);
  });

  it('answers an upload repeated with its key with the first document, and keeps one file', async () => {
    const patient = createTestPatient(server.db);
    const key = `scan-${randomUUID()}`;
    const files = storedFiles();
    const first = await upload(patient.id, 'scanned once', key);
    const again = await upload(patient.id, 'scanned once', key);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body.id, first.body.id);
    assert.equal(storedFiles(), files + 1);
    const tmp = readdirSync(join(server.dataDir, 'tmp'));
    assert.deepEqual(tmp, [], 'the second copy of the bytes is not left behind');
    assert.equal(readFileSync(join(server.dataDir, 'documents', patient.id, first.body.id), 'utf8'), 'scanned once');
    // Another title with the same bytes is another request.
    const retitled = await upload(patient.id, 'scanned once', key, 'Another title');
    assert.equal(retitled.status, 422);
  });
});
