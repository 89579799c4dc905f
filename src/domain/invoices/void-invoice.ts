import { findInvoice, voidInvoiceRow } from '../../db/invoices.js';
import { INVOICE_PATH_FIELDS, VOID_INPUT_FIELDS } from '../../fields/billing-fields.js';
import { nowIso } from '../clock.js';
import { errors } from '../errors.js';
import { blankReasonIssues } from '../validation/blank-reason.js';
import { defineUseCase } from '../use-case.js';
import { centsToText } from '../validation/decimal.js';
import { invoiceDetail, type InvoiceDetail } from './read-invoice.js';

/**
 * Voids an invoice issued in error (POST /invoices/{invoice_id}/void, `clinic invoice void`):
 * allowed while nothing is paid on it (never paid, or every payment refunded), else 409
 * INVOICE_HAS_PAYMENTS. It then owes nothing, takes no payment (409 INVOICE_VOID) and keeps its
 * number. Voiding a void invoice changes nothing: the first reason stays.
 */
export const VOID_INVOICE = defineUseCase({
  summary: 'Void an invoice issued in error',
  module: 'billing',
  input: { path: INVOICE_PATH_FIELDS, body: VOID_INPUT_FIELDS },
  refusals: [errors.invoiceNotFound(), errors.invoiceHasPayments()],
  access: 'read-then-write',
  moreIssues: ({ body }, fieldIssues) => blankReasonIssues(body, fieldIssues),
  run(db, { path, body }): InvoiceDetail {
    const invoice = findInvoice(db, path.invoice_id);
    if (invoice === undefined) throw errors.invoiceNotFound();
    if (invoice.status !== 'void') {
      if (invoice.amount_paid_cents > 0) throw errors.invoiceHasPayments(`${centsToText(invoice.amount_paid_cents)} ${invoice.currency}`);
      const now = nowIso();
      voidInvoiceRow(db, { id: invoice.id, voided_at: now, void_reason: body.reason, updated_at: now });
    }
    return invoiceDetail(db, invoice.id);
  },
  audit: (invoice) => [{ action: 'invoice.void', patientId: invoice.patient_id, subjectId: invoice.id }],
});
