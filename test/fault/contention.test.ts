import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { BUSY_TIMEOUT_MS } from '../../src/db/open-database.js';
import { addDoctor } from '../../src/domain/catalog.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { buildPatient, buildPayment } from '../helpers/builders.js';
import { holdWriteLock, releaseWriteLock } from '../helpers/faults.js';
import { multipartBody } from '../helpers/multipart.js';
import { useTestServer } from '../helpers/fixtures.js';
import { type ApiResponse } from '../helpers/test-server.js';

function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
  } catch {
    return [];
  }
}

function assertBusy(response: ApiResponse, what: string): void {
  assert.equal(response.status, 503, `${what}: ${response.status} ${response.text}`);
  assert.deepEqual(response.body, {
    detail: { code: 'DATABASE_BUSY', message: 'The database is busy with another writer; nothing was changed. Retry shortly.' },
  });
  assert.equal(response.headers.get('retry-after'), '1', what);
}

describe(`another process holding the write lock past busy_timeout (${BUSY_TIMEOUT_MS} ms)`, { timeout: 90_000 }, () => {
  const server = useTestServer();
  let patientId: string;
  let doctorId: string;
  let invoiceId: string;
  before(async () => {
    patientId = createPatient(server.db, buildPatient()).id;
    doctorId = addDoctor(server.db, { name: 'Dr. Wait', color: '#123456' }).id;
    invoiceId = createInvoice(server.db, { patient_id: patientId, total: '100.00' }).id;
  });

  /** Every row count and file the four writes could change. */
  function snapshot() {
    const count = (table: string) => (server.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return {
      patients: count('patients'),
      appointments: count('appointments'),
      payments: count('payments'),
      documents: count('documents'),
      notifications: count('notification_outbox'),
      auditEvents: count('audit_events'),
      invoice: server.db.prepare('SELECT amount_paid_cents, balance_cents, status FROM invoices WHERE id = ?').get(invoiceId),
      documentFiles: filesUnder(join(server.dataDir, 'documents')).length,
      tempFiles: filesUnder(join(server.dataDir, 'tmp')),
    };
  }

  const form = multipartBody([
    { name: 'type', data: 'scans' },
    { name: 'file', filename: 'scan.pdf', contentType: 'application/pdf', data: Buffer.alloc(256 * 1024, 7) },
  ]);
  const writes = () => ({
    patient: server.request('POST', '/patients', { body: buildPatient() }),
    appointment: server.request('POST', '/appointments', {
      body: { patient_id: patientId, resource_id: doctorId, start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T09:30Z' },
    }),
    payment: server.request('POST', `/invoices/${invoiceId}/payments`, {
      body: buildPayment({ amount: '100.00' }),
      headers: { 'idempotency-key': 'busy-1' },
    }),
    upload: server.request('POST', `/patients/${patientId}/documents`, {
      rawBody: form.body,
      headers: { 'content-type': form.contentType },
    }),
    // A read of patient data records its audit event before it answers, so it needs the write
    // lock too: it is refused like a write and shows nothing (clinic-api-1.2.md, "Audit trail").
    'patient read': server.request('GET', `/patients/${patientId}`),
    'invoice list': server.request('GET', `/invoices?patient_id=${patientId}`),
  });

  it('answers every write and audited read 503 DATABASE_BUSY with Retry-After, leaves no row, file or temporary file, and serves lookups meanwhile', async () => {
    const before = snapshot();
    const holder = await holdWriteLock(server.dataDir);
    try {
      const started = performance.now();
      const pending = writes();
      // The writes wait by timer, so reads are answered at once the whole time; before, each
      // waiting write stopped the server for up to 5 s, and a read waited behind it.
      const took: Record<string, number[]> = {};
      while (performance.now() - started < BUSY_TIMEOUT_MS - 500) {
        for (const path of ['/document-types', '/doctors', '/services']) {
          const sent = performance.now();
          assert.equal((await server.request('GET', path)).status, 200);
          (took[path] ??= []).push(performance.now() - sent);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const answers = await Promise.all(Object.values(pending));
      // Within 100 ms, allowing one answer in ten to be late by the machine's own scheduling (two
      // test files, the server and the lock holder share two cores), never by a second.
      for (const [path, ms] of Object.entries(took)) {
        const sorted = [...ms].sort((a, b) => a - b);
        const summary = `GET ${path} while writes waited: ${sorted.map((t) => t.toFixed(0)).join(', ')} ms`;
        assert.ok(sorted.length >= 10, summary);
        assert.ok(sorted[Math.floor(sorted.length * 0.9) - 1]! < 100, summary);
        assert.ok(sorted.at(-1)! < 1000, summary);
      }
      for (const [index, what] of Object.keys(pending).entries()) assertBusy(answers[index]!, what);
      const waited = performance.now() - started;
      assert.ok(
        waited >= BUSY_TIMEOUT_MS - 100 && waited < BUSY_TIMEOUT_MS + 2000,
        `the writes were refused after ${waited.toFixed(0)} ms`,
      );
    } finally {
      await releaseWriteLock(holder);
    }
    assert.deepEqual(snapshot(), before);
  });

  it('takes a write that waited, as soon as the other process lets go', async () => {
    const holder = await holdWriteLock(server.dataDir);
    const pending = server.request('POST', '/patients', { body: buildPatient() });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await releaseWriteLock(holder);
    assert.equal((await pending).status, 201);
  });

  it('takes the same requests once the lock is released: a refused payment consumed no Idempotency-Key', async () => {
    const answered = writes();
    assert.equal((await answered.patient).status, 201);
    assert.equal((await answered.appointment).status, 201);
    assert.equal((await answered.upload).status, 201);
    const payment = await answered.payment;
    assert.equal(payment.status, 200);
    assert.equal(payment.headers.get('idempotent-replayed'), null);
    assert.equal(payment.body.invoice_status, 'paid');
    assert.deepEqual(snapshot().tempFiles, []);
  });
});
