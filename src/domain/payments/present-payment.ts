import type { InvoiceRow } from '../../db/invoices.js';
import type { PaymentRow } from '../../db/payments.js';
import type { PAYMENT_RESULT_FIELDS } from '../../fields/billing-fields.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import { centsToNumber } from '../validation/decimal.js';

/** The Payment result of spec 2.10. */
export type PaymentResult = ResponseOf<typeof PAYMENT_RESULT_FIELDS>;

/**
 * The result of a payment: the invoice fields that never change (patient, currency, total) come
 * from the invoice, its state from the payment row as the payment left it, so a replay
 * reproduces the original answer even after later payments.
 */
export function presentPayment(payment: PaymentRow, invoice: InvoiceRow): PaymentResult {
  return {
    payment_id: payment.id,
    invoice_id: payment.invoice_id,
    patient_id: invoice.patient_id,
    amount: centsToNumber(payment.amount_cents),
    method: payment.method,
    currency: invoice.currency,
    created_at: payment.created_at,
    invoice_status: payment.invoice_status,
    invoice_total: centsToNumber(invoice.total_cents),
    invoice_amount_paid: centsToNumber(payment.invoice_amount_paid_cents),
    invoice_balance: centsToNumber(payment.invoice_balance_cents),
  };
}
