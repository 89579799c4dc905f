import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../../src/db/open-database.js';

// Stand-ins for the documents, invoices and payments tables that other modules are adding, in
// the shapes src/db/check-queries.ts assumes. Each is created only where the real one is missing;
// once the real tables exist, the inserts below are the one place to adjust.

/** Creates `documents(id, patient_id, size, sha256)` unless the database has a documents table. */
export function ensureDocumentsTable(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS documents (id TEXT PRIMARY KEY, patient_id TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL)');
}

/** Stores `content` as a document of `patientId`: its file under documents/ and its row. Returns the document id. */
export function addDocument(db: Db, dataDir: string, patientId: string, content: Buffer): string {
  ensureDocumentsTable(db);
  const id = randomUUID();
  mkdirSync(join(dataDir, 'documents', patientId), { recursive: true });
  writeFileSync(join(dataDir, 'documents', patientId, id), content);
  db.prepare('INSERT INTO documents (id, patient_id, size, sha256) VALUES (?, ?, ?, ?)').run(
    id,
    patientId,
    content.length,
    createHash('sha256').update(content).digest('hex'),
  );
  return id;
}

/** Creates `invoices(id, amount_paid_cents)` and `payments(invoice_id, amount_cents)` unless present. */
export function ensureBillingTables(db: Db): void {
  db.exec(`CREATE TABLE IF NOT EXISTS invoices (id TEXT PRIMARY KEY, amount_paid_cents INTEGER NOT NULL);
           CREATE TABLE IF NOT EXISTS payments (id TEXT PRIMARY KEY, invoice_id TEXT NOT NULL REFERENCES invoices (id), amount_cents INTEGER NOT NULL)`);
}

/** An invoice whose recorded amount paid is `amountPaidCents`, with one payment per entry of `paymentsCents`. */
export function addInvoice(db: Db, amountPaidCents: number, paymentsCents: readonly number[]): string {
  ensureBillingTables(db);
  const id = randomUUID();
  db.prepare('INSERT INTO invoices (id, amount_paid_cents) VALUES (?, ?)').run(id, amountPaidCents);
  for (const cents of paymentsCents) db.prepare('INSERT INTO payments (id, invoice_id, amount_cents) VALUES (?, ?, ?)').run(randomUUID(), id, cents);
  return id;
}
