import type { CreditNoteRow } from '../../db/credit-notes.js';
import type { InvoiceRow } from '../../db/invoices.js';
import type { CREDIT_NOTE_FIELDS, INVOICE_FIELDS } from '../../fields/billing-fields.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import { centsToNumber } from '../validation/decimal.js';

/** The Invoice item of spec 2.8; money as JSON numbers in the invoice's currency. */
export type Invoice = ResponseOf<typeof INVOICE_FIELDS>;

/** The columns an Invoice item is made of. */
export type PresentedInvoiceRow = Omit<InvoiceRow, 'seq' | 'voided_at' | 'void_reason'>;

/** The API shape of an invoice row, shared by GET /invoices and `clinic invoice`. */
export function presentInvoice(row: PresentedInvoiceRow): Invoice {
  return {
    id: row.id,
    invoice_number: row.invoice_number,
    patient_id: row.patient_id,
    status: row.status,
    currency: row.currency,
    total: centsToNumber(row.total_cents),
    amount_paid: centsToNumber(row.amount_paid_cents),
    balance: centsToNumber(row.balance_cents),
    issued_at: row.issued_at,
    amount_credited: centsToNumber(row.amount_credited_cents),
  };
}

/** The Invoice item of an invoice as GET /invoices/{invoice_id} gives it: what GET /invoices lists of it. */
export function invoiceItemOf(detail: Invoice): Invoice {
  const { id, invoice_number, patient_id, status, currency, total, amount_paid, balance, issued_at, amount_credited } = detail;
  return { id, invoice_number, patient_id, status, currency, total, amount_paid, balance, issued_at, amount_credited };
}

/** A credit note as an invoice lists it and a goodwill refund answers it (1.3.0). */
export type CreditNote = ResponseOf<typeof CREDIT_NOTE_FIELDS>;

/** The API shape of a credit note row. */
export function presentCreditNote(row: CreditNoteRow): CreditNote {
  return {
    id: row.id,
    credit_note_number: row.credit_note_number,
    amount: centsToNumber(row.amount_cents),
    reason: row.reason,
    created_at: row.created_at,
  };
}
