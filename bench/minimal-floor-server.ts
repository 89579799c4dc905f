/**
 * The minimal floors of `npm run bench` (issue 15): what a durable write costs on this runtime and
 * disk when nothing else is done. Bare node:http and better-sqlite3 over a small database of its
 * own, in WAL mode with synchronous = FULL (one fsync of the WAL per commit, as the program):
 *
 * - POST /api/public/v1/patients: JSON.parse, then one 8-column row inserted (autocommit).
 * - POST /api/public/v1/invoices/{id}/payments: one BEGIN IMMEDIATE transaction over three small
 *   tables, the shape of a payment: the Idempotency-Key looked up, the invoice read, its balance
 *   checked, the payment and its key inserted, the invoice updated.
 *
 * No framework, validation, authentication, request log, search terms or secondary indexes: the
 * figures the program's write scenarios are held to (bench/README.md). Answers 201, 404 or 409.
 *
 *   node --import tsx bench/minimal-floor-server.ts <data dir> <port>
 *
 * BENCH_NATIVE_BINDING names the better-sqlite3 addon to load (the one of dist/clinic's runtime).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MINIMAL_FLOOR_INVOICES, minimalFloorInvoiceId, MINIMAL_HOT_INVOICE } from './scenarios.js';

const [dataDir, portText] = process.argv.slice(2);
if (!dataDir || !portText) throw new Error('usage: minimal-floor-server.ts <data dir> <port>');
mkdirSync(dataDir, { recursive: true });
const nativeBinding = process.env.BENCH_NATIVE_BINDING;
const db = new Database(join(dataDir, 'minimal-floor.db'), nativeBinding ? { nativeBinding } : {});
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(`
  CREATE TABLE IF NOT EXISTS patients (
    seq INTEGER PRIMARY KEY, id TEXT NOT NULL, first_name TEXT, last_name TEXT, email TEXT, mobile TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS invoices (
    id TEXT PRIMARY KEY, balance_cents INTEGER NOT NULL, amount_paid_cents INTEGER NOT NULL, status TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS payments (
    seq INTEGER PRIMARY KEY, id TEXT NOT NULL, invoice_id TEXT NOT NULL, amount_cents INTEGER NOT NULL, created_at TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS idempotency_keys (key TEXT PRIMARY KEY, payment_id TEXT NOT NULL);
`);
// The invoices the payment floors pay, made once: many open ones, and one that takes every payment.
db.transaction(() => {
  const insert = db.prepare(`INSERT OR IGNORE INTO invoices VALUES (?, ?, 0, 'open')`);
  for (let i = 0; i < MINIMAL_FLOOR_INVOICES; i++) insert.run(minimalFloorInvoiceId(i), 1_000_000);
  insert.run(MINIMAL_HOT_INVOICE, 9_999_999_999);
})();

const insertPatient = db.prepare(
  'INSERT INTO patients (id, first_name, last_name, email, mobile, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
);
const findKey = db.prepare<[string], { payment_id: string }>('SELECT payment_id FROM idempotency_keys WHERE key = ?');
const findInvoice = db.prepare<[string], { balance_cents: number; amount_paid_cents: number }>(
  'SELECT balance_cents, amount_paid_cents FROM invoices WHERE id = ?',
);
const insertPayment = db.prepare('INSERT INTO payments (id, invoice_id, amount_cents, created_at) VALUES (?, ?, ?, ?)');
const insertKey = db.prepare('INSERT INTO idempotency_keys (key, payment_id) VALUES (?, ?)');
const updateInvoice = db.prepare('UPDATE invoices SET balance_cents = ?, amount_paid_cents = ?, status = ? WHERE id = ?');

/** The payment transaction: 201 with the new payment, 404 for no invoice, 409 over the balance. */
const pay = db.transaction((invoiceId: string, key: string, amountCents: number): [number, unknown] => {
  const earlier = findKey.get(key);
  if (earlier !== undefined) return [201, { id: earlier.payment_id, replayed: true }];
  const invoice = findInvoice.get(invoiceId);
  if (invoice === undefined) return [404, {}];
  if (amountCents > invoice.balance_cents) return [409, {}];
  const id = randomUUID();
  const balance = invoice.balance_cents - amountCents;
  insertPayment.run(id, invoiceId, amountCents, new Date().toISOString());
  insertKey.run(key, id);
  updateInvoice.run(balance, invoice.amount_paid_cents + amountCents, balance === 0 ? 'paid' : 'partially_paid', invoiceId);
  return [201, { id, balance_cents: balance }];
});

const PAYMENT_PATH = /^\/api\/public\/v1\/invoices\/([^/]+)\/payments$/;

function answer(request: IncomingMessage, body: Record<string, unknown>): [number, unknown] {
  if (request.url === '/api/public/v1/patients') {
    const now = new Date().toISOString();
    const id = randomUUID();
    const { lastInsertRowid } = insertPatient.run(id, body.first_name, body.last_name, body.email, body.mobile, now, now);
    return [201, { id, seq: Number(lastInsertRowid) }];
  }
  const invoiceId = PAYMENT_PATH.exec(request.url ?? '')?.[1];
  if (invoiceId === undefined) return [404, {}];
  const amountCents = Math.round(Number(body.amount) * 100);
  return pay.immediate(invoiceId, String(request.headers['idempotency-key']), amountCents);
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const [status, body] =
      request.method === 'POST'
        ? answer(request, JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>)
        : [404, {}];
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
});

server.listen(Number(portText), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close(() => db.close());
  server.closeAllConnections();
});
