import type { DeskContext } from '../domain/desk/desk-context.js';
import type { Invoice } from '../domain/invoices/present-invoice.js';
import type { InvoiceDetail } from '../domain/invoices/read-invoice.js';
import {
  clockTime,
  deskRecord,
  deskTable,
  heading,
  invoiceState,
  localDateTime,
  localShortDate,
  money,
  patientLabel,
} from './desk-format.js';

/**
 * An invoice printed for people, as `invoice show` prints it and `invoice create` and
 * `record-payment` print it after they changed it.
 */

/** The local date an invoice was issued on: `23.11.2026`. */
export const issuedOn = (invoice: Invoice, timeZone: string) =>
  invoice.issued_at === null ? '' : localShortDate(invoice.issued_at, timeZone);

/** `clinic invoice show` for people: the invoice, its patient, and its payments in the order recorded. */
export function formatInvoice(invoice: InvoiceDetail, { timeZone }: DeskContext): string {
  const payments = deskTable(
    [{ header: 'Date' }, { header: 'Time' }, { header: 'Method' }, { header: 'Amount', align: 'right' }, { header: 'Note', shrink: true }],
    invoice.payments.map((payment) => [
      localShortDate(payment.created_at, timeZone),
      clockTime(payment.created_at, timeZone),
      payment.method,
      money(payment.amount, invoice.currency),
      payment.note ?? '',
    ]),
    'No payments yet.',
  );
  return (
    heading(`Invoice ${invoice.invoice_number}`) +
    deskRecord([
      ['Patient', patientLabel(invoice.patient_number, invoice.patient_first_name, invoice.patient_last_name)],
      ['Issued', invoice.issued_at === null ? null : localDateTime(invoice.issued_at, timeZone)],
      ['Status', invoiceState(invoice.status)],
      ['Total', money(invoice.total, invoice.currency)],
      ['Paid', money(invoice.amount_paid, invoice.currency)],
      ['Balance', money(invoice.balance, invoice.currency)],
    ]) +
    `\n${heading('Payments')}${payments}`
  );
}
