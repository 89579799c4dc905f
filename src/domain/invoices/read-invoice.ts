import { findInvoiceWithPatient } from '../../db/invoices.js';
import type { Db } from '../../db/open-database.js';
import { listPaymentRows } from '../../db/payments.js';
import { listRefundRows } from '../../db/refunds.js';
import { INVOICE_PATH_FIELDS, type INVOICE_DETAIL_FIELDS } from '../../fields/billing-fields.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import { errors } from '../../errors.js';
import { centsToNumber } from '../validation/decimal.js';
import { defineUseCase, performUseCase } from '../use-case.js';
import { listCreditNoteRows } from '../../db/credit-notes.js';
import { presentCreditNote, presentInvoice } from './present-invoice.js';
import { ROLE_ROWS } from '../people/roles.js';

/** GET /invoices/{invoice_id} (clinic-api-1.1.md). */
export type InvoiceDetail = ResponseOf<typeof INVOICE_DETAIL_FIELDS>;

/** One invoice with its patient's number and name, its payments, refunds and credit notes in the order recorded; 404 INVOICE_NOT_FOUND. */
export const READ_INVOICE = defineUseCase({
  roles: ROLE_ROWS.readInvoices,
  summary: 'Read an invoice with its payments',
  module: 'billing',
  input: { path: INVOICE_PATH_FIELDS },
  refusals: [errors.invoiceNotFound()],
  access: 'read',
  run: (db, { path }) => invoiceDetail(db, path.invoice_id),
  audit: (invoice) => [{ action: 'invoice.read', patientId: invoice.patient_id, subjectId: invoice.id }],
});

/** READ_INVOICE on a connection of its own. */
export function readInvoice(db: Db, invoiceId: unknown): InvoiceDetail {
  return performUseCase(READ_INVOICE, db, { path: { invoice_id: invoiceId } }, { source: 'cli', actor: null });
}

/** The invoice as GET /invoices/{invoice_id} gives it; 404 INVOICE_NOT_FOUND. */
export function invoiceDetail(db: Db, id: string): InvoiceDetail {
  const row = findInvoiceWithPatient(db, id);
  if (!row) throw errors.invoiceNotFound();
  const refunds = listRefundRows(db, id);
  const refundedOf = (paymentId: string) =>
    refunds.filter((refund) => refund.payment_id === paymentId).reduce((sum, refund) => sum + refund.amount_cents, 0);
  // The item's 1.3.0 field goes after the detail's 1.2.0 fields, as the specification appends it.
  const { amount_credited, ...item } = presentInvoice(row);
  return {
    ...item,
    patient_number: row.patient_number,
    patient_first_name: row.patient_first_name,
    patient_last_name: row.patient_last_name,
    payments: listPaymentRows(db, id).map((payment) => ({
      payment_id: payment.id,
      amount: centsToNumber(payment.amount_cents),
      method: payment.method,
      note: payment.note,
      created_at: payment.created_at,
      refunded_amount: centsToNumber(refundedOf(payment.id)),
    })),
    refunds: refunds.map((refund) => ({
      refund_id: refund.id,
      payment_id: refund.payment_id,
      amount: centsToNumber(refund.amount_cents),
      method: refund.method,
      reason: refund.reason,
      created_at: refund.created_at,
    })),
    voided_at: row.voided_at,
    void_reason: row.void_reason,
    amount_credited,
    credit_notes: listCreditNoteRows(db, id).map(presentCreditNote),
  };
}
