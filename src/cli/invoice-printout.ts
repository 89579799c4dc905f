import type { DeskContext } from '../domain/desk/desk-context.js';
import type { Invoice } from '../domain/invoices/present-invoice.js';
import type { InvoiceDetail } from '../domain/invoices/read-invoice.js';
import {
  clockTime,
  deskRecord,
  deskTable,
  heading,
  localDateTime,
  localShortDate,
  money,
  patientLabel,
  statusText,
} from './desk-format.js';

/**
 * An invoice printed for people, as `invoice show` prints it and `invoice create`,
 * `record-payment`, `refund` and `invoice credit` print it after they changed it.
 */

/** The local date an invoice was issued on: `23.11.2026`. */
export const issuedOn = (invoice: Invoice, timeZone: string) =>
  invoice.issued_at === null ? '' : localShortDate(invoice.issued_at, timeZone);

/**
 * `clinic invoice show` for people: the invoice, its patient, its payments in the order recorded
 * (numbered when there are several: the numbers `clinic refund --payment N` takes), its
 * refunds and voiding (1.2.0), and its credit notes (1.3.0).
 */
export function formatInvoice(invoice: InvoiceDetail, { timeZone }: DeskContext): string {
  const refunded = invoice.refunds.length > 0;
  // Numbered where a refund must say which one (`clinic refund --payment N`).
  const numbered = invoice.payments.length > 1;
  const payments = deskTable(
    [
      ...(numbered ? [{ header: '#', align: 'right' as const }] : []),
      { header: 'Date' },
      { header: 'Time' },
      { header: 'Method' },
      { header: 'Amount', align: 'right' },
      ...(refunded ? [{ header: 'Refunded', align: 'right' as const }] : []),
      { header: 'Note', shrink: true },
    ],
    invoice.payments.map((payment, index) => [
      ...(numbered ? [String(index + 1)] : []),
      localShortDate(payment.created_at, timeZone),
      clockTime(payment.created_at, timeZone),
      payment.method,
      money(payment.amount, invoice.currency),
      ...(refunded ? [payment.refunded_amount === 0 ? '' : money(payment.refunded_amount, invoice.currency)] : []),
      payment.note ?? '',
    ]),
    'No payments yet.',
  );
  const paymentNumber = new Map(invoice.payments.map((payment, index) => [payment.payment_id, index + 1]));
  const refunds = refunded
    ? `\n${heading('Refunds')}${deskTable(
        [
          { header: 'Date' },
          { header: 'Time' },
          { header: 'Payment', align: 'right' },
          { header: 'Method' },
          { header: 'Amount', align: 'right' },
          { header: 'Reason', shrink: true },
        ],
        invoice.refunds.map((refund) => [
          localShortDate(refund.created_at, timeZone),
          clockTime(refund.created_at, timeZone),
          `#${paymentNumber.get(refund.payment_id) ?? '?'}`,
          refund.method,
          money(-refund.amount, invoice.currency),
          refund.reason,
        ]),
      )}`
    : '';
  const credited = invoice.credit_notes.length > 0;
  const creditNotes = credited
    ? `\n${heading('Credit notes')}${deskTable(
        [
          { header: 'Date' },
          { header: 'Time' },
          { header: 'Credit note' },
          { header: 'Amount', align: 'right' },
          { header: 'Reason', shrink: true },
        ],
        invoice.credit_notes.map((note) => [
          localShortDate(note.created_at, timeZone),
          clockTime(note.created_at, timeZone),
          note.credit_note_number,
          money(-note.amount, invoice.currency),
          note.reason,
        ]),
      )}`
    : '';
  return (
    heading(`Invoice ${invoice.invoice_number}`) +
    deskRecord([
      ['Patient', patientLabel(invoice.patient_number, invoice.patient_first_name, invoice.patient_last_name)],
      ['Issued', invoice.issued_at === null ? null : localDateTime(invoice.issued_at, timeZone)],
      ['Status', statusText(invoice.status)],
      ['Voided', invoice.voided_at === null ? null : `${localDateTime(invoice.voided_at, timeZone)}: ${invoice.void_reason ?? ''}`],
      ['Total', money(invoice.total, invoice.currency)],
      ['Credited', credited ? money(invoice.amount_credited, invoice.currency) : null],
      ['Paid', money(invoice.amount_paid, invoice.currency)],
      ['Balance', money(invoice.balance, invoice.currency)],
    ]) +
    `\n${heading('Payments')}${payments}${refunds}${creditNotes}`
  );
}
