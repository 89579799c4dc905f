import type { NewInvoiceRow } from '../../db/invoices.js';
import type { INVOICE_FIELDS } from '../../fields/billing-fields.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import { centsToNumber } from '../validation/decimal.js';

/** The Invoice item of spec 2.8; money as JSON numbers in the invoice's currency. */
export type Invoice = ResponseOf<typeof INVOICE_FIELDS>;

/** The API shape of an invoice row, shared by GET /invoices and `clinic invoice`. */
export function presentInvoice(row: NewInvoiceRow): Invoice {
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
  };
}
