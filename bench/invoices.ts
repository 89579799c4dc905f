/**
 * How GET /invoices and payments perform on a large clinic database.
 *
 *   npm run bench                      # 1,000,000 invoices over 100,000 patients
 *   BENCH_INVOICES=200000 npm run bench
 *   BENCH_DIR=/some/disk npm run bench # where the database goes (default: the OS temp dir)
 *
 * The invoices are written straight through the data layer in large transactions (as
 * createInvoice writes them, minus a fsync per invoice), then every figure is taken through the
 * domain functions and the real HTTP server, as clients use them.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explainInvoiceList, insertInvoice, takeInvoiceNumber } from '../src/db/invoices.js';
import { DATABASE_FILE, openDatabase } from '../src/db/open-database.js';
import { createApiKey } from '../src/domain/api-keys.js';
import { newId } from '../src/domain/clock.js';
import { listInvoices } from '../src/domain/invoices/list-invoices.js';
import { outstandingBalance } from '../src/domain/invoices/outstanding-balance.js';
import { createPatient } from '../src/domain/patients/create-patient.js';
import { recordPayment } from '../src/domain/payments/record-payment.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES, DEFAULT_JSON_BODY_LIMIT_BYTES } from '../src/server/config.js';
import { silentLogger } from '../src/server/logger.js';
import { startServer } from '../src/server/start-server.js';

const INVOICES = Number(process.env.BENCH_INVOICES ?? 1_000_000);
const PATIENTS = Math.max(1, Math.round(INVOICES / 10));
const OPEN_SHARE = 0.3;
const SAMPLES = 500;

/** A small seeded generator, so that every run builds the same database. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function percentiles(millis: number[]): string {
  const sorted = [...millis].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(3);
  return `median ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${sorted.at(-1)!.toFixed(3)} ms (${sorted.length} samples)`;
}

function time(action: () => unknown): number {
  const started = process.hrtime.bigint();
  action();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function timeAsync(action: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await action();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const dataDir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'clinic-bench-'));
const db = openDatabase(dataDir);
const next = random(42);
try {
  console.log(`node ${process.version}; data in ${dataDir}`);

  let started = Date.now();
  const patientIds: string[] = [];
  db.transaction(() => {
    for (let i = 0; i < PATIENTS; i++) patientIds.push(createPatient(db, { first_name: 'P', last_name: String(i), email: `p${i}@example.org`, mobile: '+1 555 0100' }).id);
  })();
  console.log(`${PATIENTS.toLocaleString('en')} patients in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  started = Date.now();
  const openInvoiceIds: string[] = [];
  const fiveYears = 5 * 365 * 86_400_000;
  const firstDay = Date.parse('2021-01-01T00:00:00Z');
  const BATCH = 50_000;
  for (let done = 0; done < INVOICES; done += BATCH) {
    db.transaction(() => {
      for (let i = done; i < Math.min(INVOICES, done + BATCH); i++) {
        const issuedAt = new Date(firstDay + Math.floor(next() * fiveYears)).toISOString();
        const year = Number(issuedAt.slice(0, 4));
        const total = 1000 + Math.floor(next() * 100_000);
        const open = next() < OPEN_SHARE;
        const id = newId();
        if (open) openInvoiceIds.push(id);
        insertInvoice(db, {
          id,
          invoice_number: `INV-${year}-${String(takeInvoiceNumber(db, year)).padStart(6, '0')}`,
          patient_id: patientIds[Math.floor(next() * PATIENTS)]!,
          status: open ? 'issued' : 'paid',
          currency: 'EUR',
          total_cents: total,
          amount_paid_cents: open ? 0 : total,
          balance_cents: open ? total : 0,
          issued_at: issuedAt,
          created_at: issuedAt,
          updated_at: issuedAt,
        });
      }
    })();
  }
  db.pragma('optimize');
  const megabytes = statSync(join(dataDir, DATABASE_FILE)).size / 1024 / 1024;
  console.log(`${INVOICES.toLocaleString('en')} invoices (${Math.round(OPEN_SHARE * 100)} % open) in ${((Date.now() - started) / 1000).toFixed(1)} s; database ${megabytes.toFixed(0)} MB`);

  const somePatient = () => patientIds[Math.floor(next() * PATIENTS)]!;
  console.log('\nquery plans:');
  for (const filter of [
    { patientId: somePatient(), unpaid: false },
    { patientId: somePatient(), unpaid: true },
    { patientId: null, unpaid: true },
    { patientId: null, unpaid: false },
  ]) {
    console.log(`  patient=${filter.patientId ? 'one' : 'all'} unpaid=${filter.unpaid}: ${explainInvoiceList(db, filter).join('; ')}`);
  }

  console.log('\ndomain (listInvoices, no HTTP):');
  const onePatient = Array.from({ length: SAMPLES }, () => time(() => listInvoices(db, { patient_id: somePatient() })));
  console.log(`  one patient's invoices:        ${percentiles(onePatient)}`);
  const onePatientOpen = Array.from({ length: SAMPLES }, () => time(() => listInvoices(db, { patient_id: somePatient(), unpaid: 'true' })));
  console.log(`  one patient's open invoices:   ${percentiles(onePatientOpen)}`);
  const balance = Array.from({ length: SAMPLES }, () => time(() => outstandingBalance(db, somePatient())));
  console.log(`  a patient's outstanding balance: ${percentiles(balance)}`);
  let openCount = 0;
  const allOpen = time(() => (openCount = listInvoices(db, { unpaid: 'true' }).length));
  console.log(`  every open invoice (${openCount.toLocaleString('en')}): ${allOpen.toFixed(0)} ms`);

  const server = await startServer(
    db,
    { dataDir, jsonBodyLimitBytes: DEFAULT_JSON_BODY_LIMIT_BYTES, documentLimitBytes: DEFAULT_DOCUMENT_LIMIT_BYTES, logger: silentLogger },
    '127.0.0.1',
    0,
  );
  try {
    const base = `http://127.0.0.1:${server.port}/api/public/v1`;
    const headers = { authorization: `Bearer ${createApiKey(db, { name: 'bench' }).key}`, 'content-type': 'application/json' };
    console.log('\nHTTP (real server on loopback, sequential requests):');
    const overHttp: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      overHttp.push(await timeAsync(async () => {
        const response = await fetch(`${base}/invoices?patient_id=${somePatient()}`, { headers });
        if (response.status !== 200) throw new Error(`GET /invoices answered ${response.status}`);
        await response.arrayBuffer();
      }));
    }
    console.log(`  GET /invoices?patient_id=…:    ${percentiles(overHttp)}`);

    // Each payment is a BEGIN IMMEDIATE transaction fsynced at commit (synchronous = FULL), so
    // the disk's flush latency bounds these figures.
    const PAYMENTS = 1000;
    const payments = openInvoiceIds.slice(0, PAYMENTS * 2);
    let index = 0;
    const pay = async () => {
      const invoiceId = payments[index++ % payments.length]!;
      const response = await fetch(`${base}/invoices/${invoiceId}/payments`, { method: 'POST', headers, body: JSON.stringify({ amount: '0.01', method: 'cash' }) });
      if (response.status !== 200) throw new Error(`payment answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    };
    let elapsed = await timeAsync(async () => {
      for (let i = 0; i < PAYMENTS; i++) await pay();
    });
    console.log(`  POST payments, one client:     ${(PAYMENTS / (elapsed / 1000)).toFixed(0)} payments/s (${(elapsed / PAYMENTS).toFixed(2)} ms each)`);
    elapsed = await timeAsync(() => Promise.all(Array.from({ length: 16 }, async () => {
      for (let i = 0; i < PAYMENTS / 16; i++) await pay();
    })));
    console.log(`  POST payments, 16 clients:     ${(PAYMENTS / (elapsed / 1000)).toFixed(0)} payments/s`);
  } finally {
    await server.close();
  }

  console.log('\ndomain (recordPayment, no HTTP):');
  const domainPayments = openInvoiceIds.slice(-1000);
  const elapsed = time(() => {
    for (const invoiceId of domainPayments) recordPayment(db, { path: { invoice_id: invoiceId }, headers: {}, body: { amount: '0.01', method: 'card' } });
  });
  console.log(`  recordPayment:                 ${(domainPayments.length / (elapsed / 1000)).toFixed(0)} payments/s (${(elapsed / domainPayments.length).toFixed(2)} ms each)`);
} finally {
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
}
