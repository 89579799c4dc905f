import type { InvoiceRow } from '../../db/invoices.js';
import { centsToNumber } from '../validation/decimal.js';

/** The Invoice item of spec 2.8; money as JSON numbers in the invoice's currency. */
export interface Invoice {
  id: string;
  invoice_number: string;
  patient_id: string;
  status: string;
  currency: string;
  total: number;
  amount_paid: number;
  balance: number;
  issued_at: string | null;
}

/** The API shape of an invoice row, shared by GET /invoices and `clinic invoice`. */
export function presentInvoice(row: InvoiceRow): Invoice {
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
