import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import { findInvoice, voidInvoiceRow } from '../../db/invoices.js';
import { INVOICE_PATH_FIELDS, VOID_INPUT_FIELDS } from '../../fields/billing-fields.js';
import { nowIso } from '../clock.js';
import { errors } from '../../errors.js';
import { blankReasonIssues } from '../validation/blank-reason.js';
import { defineUseCase } from '../use-case.js';
import { centsToText } from '../validation/decimal.js';
import { invoiceData } from '../changes/change-event.js';
import { invoiceDetail, type InvoiceDetail } from './read-invoice.js';
import { ROLE_ROWS } from '../people/roles.js';

/** The invoice as voiding left it, and whether this request voided it (false: it was void already). */
export interface VoidedInvoice {
  invoice: InvoiceDetail;
  voided: boolean;
}

/**
 * Voids an invoice issued in error (POST /invoices/{invoice_id}/void, `clinic invoice void`):
 * allowed while nothing is paid on it (never paid, or every payment refunded), else 409
 * INVOICE_HAS_PAYMENTS. It then owes nothing, takes no payment (409 INVOICE_VOID) and keeps its
 * number. Voiding a void invoice changes nothing: the first reason stays.
 */
export const VOID_INVOICE = defineUseCase({
  roles: ROLE_ROWS.giveMoneyBack,
  summary: 'Void an invoice issued in error',
  module: 'billing',
  input: { path: INVOICE_PATH_FIELDS, header: IDEMPOTENCY_HEADER_FIELDS, body: VOID_INPUT_FIELDS },
  answersOnce: { operation: 'voidInvoice', status: 200, what: 'void' },
  refusals: [errors.invoiceNotFound(), errors.invoiceHasPayments(), errors.idempotencyKeyReused()],
  access: 'read-then-write',
  moreIssues: ({ body }, fieldIssues) => blankReasonIssues(body, fieldIssues),
  run(db, { path, body }): VoidedInvoice {
    const invoice = findInvoice(db, path.invoice_id);
    if (invoice === undefined) throw errors.invoiceNotFound();
    const voided = invoice.status !== 'void';
    if (voided) {
      if (invoice.amount_paid_cents > 0) throw errors.invoiceHasPayments(`${centsToText(invoice.amount_paid_cents)} ${invoice.currency}`);
      const now = nowIso();
      voidInvoiceRow(db, { id: invoice.id, voided_at: now, void_reason: body.reason, updated_at: now });
    }
    return { invoice: invoiceDetail(db, invoice.id), voided };
  },
  // Voiding a void invoice changes nothing, so no event; it is recorded as a void all the same.
  changes: ({ invoice, voided }) => (voided ? [{ type: 'invoice.voided', patientId: invoice.patient_id, data: invoiceData(invoice) }] : []),
  audit: ({ invoice }) => [{ action: 'invoice.void', patientId: invoice.patient_id, subjectId: invoice.id }],
});
