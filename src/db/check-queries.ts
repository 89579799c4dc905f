import { preparedFor, type Db } from './open-database.js';

// The two queries `clinic check` runs against tables that the documents and billing modules
// own (schema.sql): documents(id, patient_id, size, sha256 lowercase hex), invoices(id,
// amount_paid_cents, amount_credited_cents), payments(invoice_id, amount_cents),
// refunds(invoice_id, amount_cents) and credit_notes(invoice_id, amount_cents).

/** A document's row: where its file is and what it must contain. */
export interface DocumentFileRow {
  id: string;
  patient_id: string;
  size: number;
  sha256: string;
}

/** An invoice whose recorded amount paid is not its payments less its refunds, or whose amount credited is not its credit notes. */
export interface InvoicePaymentMismatch {
  invoice_id: string;
  amount_paid_cents: number;
  /** Its payments less its refunds. */
  payments_cents: number;
  refunds_cents: number;
  /** What the invoice says its credit notes took off (1.3.0). */
  amount_credited_cents: number;
  /** The sum of its credit notes. */
  credit_notes_cents: number;
}

const documentStatements = preparedFor((db) => ({
  all: db.prepare<[], DocumentFileRow>('SELECT id, patient_id, size, sha256 FROM documents ORDER BY patient_id, id'),
}));

const invoiceStatements = preparedFor((db) => ({
  mismatches: db.prepare<[], InvoicePaymentMismatch>(
    `SELECT id AS invoice_id, amount_paid_cents, paid_cents - refunds_cents AS payments_cents, refunds_cents,
            amount_credited_cents, credit_notes_cents FROM (
       SELECT i.id, i.amount_paid_cents, i.amount_credited_cents,
              (SELECT coalesce(sum(p.amount_cents), 0) FROM payments p WHERE p.invoice_id = i.id) AS paid_cents,
              (SELECT coalesce(sum(r.amount_cents), 0) FROM refunds r WHERE r.invoice_id = i.id) AS refunds_cents,
              (SELECT coalesce(sum(c.amount_cents), 0) FROM credit_notes c WHERE c.invoice_id = i.id) AS credit_notes_cents
       FROM invoices i)
     WHERE amount_paid_cents IS NOT paid_cents - refunds_cents OR amount_credited_cents IS NOT credit_notes_cents
     ORDER BY invoice_id`,
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

/** Every invoice whose amount paid differs from its payments less its refunds, or whose amount credited from its credit notes. */
export function listInvoicePaymentMismatches(db: Db): InvoicePaymentMismatch[] {
  return invoiceStatements(db).mismatches.all();
}
