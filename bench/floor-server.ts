/**
 * The floors of `npm run bench`: the least a server can do on this runtime and disk.
 *
 * - POST /api/public/v1/patients: node:http, JSON.parse and the very INSERT the program makes
 *   (insertPatient), over a connection opened by openDatabase, so with the same pragmas (WAL,
 *   synchronous = FULL). No framework, validation, authentication or request log.
 * - POST /api/public/v1/invoices/{id}/payments: the statements of a payment (record-payment.ts)
 *   in one BEGIN IMMEDIATE transaction: the Idempotency-Key looked up, the invoice read, the
 *   balance checked, the payment inserted, the invoice updated. No validation or fingerprint.
 * - POST /upload: the request body written to a new file and fsynced, as the program stores a
 *   document, but without parsing the form, hashing, or a row.
 *
 * With the query `?change-event` (WITH_CHANGE_EVENT), POST /patients and a payment also append
 * the change event the program appends for them (issue 30: `patient.created`, `payment.created`
 * with the same data), through the program's own appendChangeEvents, in the same transaction: the
 * patient's INSERT and its event in one BEGIN … COMMIT (without the query, the INSERT commits
 * alone), the payment's event inside its BEGIN IMMEDIATE. Read against the same request without
 * the query, in the same round, the difference is what the event row costs.
 *
 * Each answers 201 (a payment also 404 or 409, as the program); anything else answers 404.
 *
 *   node --import tsx bench/floor-server.ts <data dir> <port>
 *
 * BENCH_NATIVE_BINDING names a better-sqlite3 addon to load instead of node_modules' own, so
 * that the floor can run on the runtime of dist/clinic (Node 24) as well as on the machine's Node.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { betterSqlite3Driver } from '../src/db/drivers/better-sqlite3.js';
import { openDatabase } from '../src/db/open-database.js';
import { useSqliteDriver } from '../src/db/drivers/sqlite-driver.js';
import { appendChangeEvents } from '../src/domain/changes/record-changes.js';
import { centsToNumber } from '../src/domain/validation/decimal.js';
import { findInvoice, updateInvoiceAfterPayment } from '../src/db/invoices.js';
import { findPaymentByIdempotencyKey, insertPayment } from '../src/db/payments.js';
import { newId, nowIso } from '../src/domain/clock.js';
import { insertFloorPatient } from './floor-patient.js';
import { WITH_CHANGE_EVENT } from './scenarios.js';
import { favourMemoryOverSpeed } from '../src/server/memory-mode.js';

const [dataDir, portText] = process.argv.slice(2);
if (!dataDir || !portText) throw new Error('usage: floor-server.ts <data dir> <port>');
// The floor runs on the single executable's runtime, with the addon built for it (bench/run.ts).
const nativeBinding = process.env.BENCH_NATIVE_BINDING;
if (nativeBinding) useSqliteDriver(betterSqlite3Driver(nativeBinding));
const db = openDatabase(dataDir);

const uploads = join(dataDir, 'floor-uploads');
mkdirSync(uploads, { recursive: true });

/** Streams the body into a new file, fsyncs it, and answers 201. */
async function storeUpload(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const file = await open(join(uploads, randomUUID()), 'wx', 0o600);
  try {
    for await (const chunk of request) await file.write(chunk as Buffer);
    await file.sync();
  } finally {
    await file.close();
  }
  response.writeHead(201, { 'content-type': 'application/json' }).end('{}');
}

/**
 * A payment with the program's statements: [status, body]; with `withEvent`, its `payment.created`
 * event too, with the data record-payment.ts gives it. Runs inside the caller's transaction.
 */
function payment(invoiceId: string, key: string, amountCents: number, withEvent: boolean): [number, unknown] {
  const earlier = findPaymentByIdempotencyKey(db, key);
  if (earlier !== undefined) return [201, earlier];
  const invoice = findInvoice(db, invoiceId);
  if (invoice === undefined) return [404, {}];
  if (amountCents > invoice.balance_cents) return [409, {}];
  const now = nowIso();
  const balance = invoice.balance_cents - amountCents;
  const amountPaid = invoice.amount_paid_cents + amountCents;
  const status = balance === 0 ? 'paid' : 'partially_paid';
  const id = newId();
  insertPayment(db, {
    id,
    invoice_id: invoiceId,
    amount_cents: amountCents,
    method: 'card',
    note: null,
    idempotency_key: key,
    request_fingerprint: 'floor',
    invoice_status: status,
    invoice_amount_paid_cents: amountPaid,
    invoice_balance_cents: balance,
    created_at: now,
  });
  updateInvoiceAfterPayment(db, { id: invoiceId, status, amount_paid_cents: amountPaid, balance_cents: balance, updated_at: now });
  if (withEvent) {
    appendChangeEvents(db, [
      {
        type: 'payment.created',
        patientId: invoice.patient_id,
        data: {
          payment_id: id,
          invoice_id: invoiceId,
          amount: centsToNumber(amountCents),
          method: 'card',
          invoice_status: status,
          invoice_balance: centsToNumber(balance),
        },
      },
    ]);
  }
  return [201, { id, invoice_id: invoiceId, invoice_balance: balance }];
}
const pay = db.transaction(payment);

/**
 * The program's INSERT of a patient with the body's names and contact fields: no validation or
 * normalisation runs while serving (bench/floor-patient.ts).
 */
const addPatient = (body: Record<string, unknown>) => insertFloorPatient(db, body);

/** The same INSERT and its `patient.created` event, as create-patient.ts has it, in one transaction. */
const addPatientWithEvent = db.transaction((body: Record<string, unknown>) => {
  const row = addPatient(body);
  appendChangeEvents(db, [{ type: 'patient.created', patientId: row.id, data: { patient_number: row.patient_number } }]);
  return row;
});

const PAYMENT_PATH = /^\/api\/public\/v1\/invoices\/([^/]+)\/payments$/;

const server = createServer((request, response) => {
  if (request.method === 'POST' && request.url === '/upload') {
    storeUpload(request, response).catch((error: unknown) => response.destroy(error as Error));
    return;
  }
  if (request.method !== 'POST') {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const [path = '', query] = (request.url ?? '').split('?', 2);
    const withEvent = query === WITH_CHANGE_EVENT;
    const invoiceId = PAYMENT_PATH.exec(path)?.[1];
    if (invoiceId !== undefined) {
      const [status, answer] = pay.immediate(
        invoiceId,
        String(request.headers['idempotency-key']),
        Math.round(Number(body.amount) * 100),
        withEvent,
      );
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      return;
    }
    const row = withEvent ? addPatientWithEvent(body) : addPatient(body);
    response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: row.id, patient_number: row.patient_number }));
  });
});

// As `clinic serve` does once it has started (src/server/memory-mode.ts).
server.listen(Number(portText), '127.0.0.1', favourMemoryOverSpeed);
process.on('SIGTERM', () => {
  server.close(() => db.close());
  server.closeAllConnections();
});
