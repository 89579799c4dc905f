import { preparedFor, type Db } from './open-database.js';

// The two queries `clinic check` runs against tables that the documents and billing modules
// own (schema.sql): documents(id, patient_id, size, sha256 lowercase hex), invoices(id,
// amount_paid_cents) and payments(invoice_id, amount_cents).

/** A document's row: where its file is and what it must contain. */
export interface DocumentFileRow {
  id: string;
  patient_id: string;
  size: number;
  sha256: string;
}

/** An invoice whose recorded amount paid is not the sum of its payments. */
export interface InvoicePaymentMismatch {
  invoice_id: string;
  amount_paid_cents: number;
  payments_cents: number;
}

const documentStatements = preparedFor((db) => ({
  all: db.prepare<[], DocumentFileRow>('SELECT id, patient_id, size, sha256 FROM documents ORDER BY patient_id, id'),
}));

const invoiceStatements = preparedFor((db) => ({
  mismatches: db.prepare<[], InvoicePaymentMismatch>(
    `SELECT i.id AS invoice_id, i.amount_paid_cents, coalesce(sum(p.amount_cents), 0) AS payments_cents
     FROM invoices i LEFT JOIN payments p ON p.invoice_id = i.id
     GROUP BY i.id
     HAVING i.amount_paid_cents IS NOT coalesce(sum(p.amount_cents), 0)
     ORDER BY i.id`,
  ),
}));

/**
 * Every document row. Read at once rather than iterated: the files are hashed between rows, and
 * an open statement would hold a read transaction (and keep the WAL from being checkpointed)
 * for as long as that takes.
 */
export function listDocumentFiles(db: Db): DocumentFileRow[] {
  return documentStatements(db).all.all();
}

/** Every invoice whose amount paid differs from the sum of its payments. */
export function listInvoicePaymentMismatches(db: Db): InvoicePaymentMismatch[] {
  return invoiceStatements(db).mismatches.all();
}
