import type { PaymentMethodKey } from '../fields/billing-fields.js';
import { preparedFor, type Db } from './open-database.js';

/** What the day's report reads beside each payment, refund and credit note (dayRowsSql). */
export interface DayRowInvoiceAndPatient {
  invoice_number: string;
  currency: string;
  patient_number: string;
  /** Null for an erased patient (1.3.0): the report keeps the number and the amount. */
  patient_first_name: string | null;
  patient_last_name: string | null;
}

/** A payment as the end-of-day cash count lists it: with its invoice's number and currency and its patient. */
export interface DayPaymentRow extends DayRowInvoiceAndPatient {
  payment_id: string;
  created_at: string;
  method: PaymentMethodKey;
  amount_cents: number;
}

/**
 * The rows of a money table (payments, refunds, credit notes) recorded in [@from, @to), with their
 * invoice's number and currency and their patient: a range on the table's `…_by_created_at`, then
 * one probe each into the invoice and the patient. Ordered by seq, the order recorded, which a
 * wall clock set back between two of them would not give; the sort is over one day's rows only.
 * An erased patient's rows keep their amounts and number, without the name (1.3.0).
 */
export const dayRowsSql = (table: string, alias: string, columns: string) => `SELECT ${columns}, i.invoice_number, i.currency,
            pt.patient_number,
            CASE WHEN pt.erased_at IS NULL THEN pt.first_name END AS patient_first_name,
            CASE WHEN pt.erased_at IS NULL THEN pt.last_name END AS patient_last_name
       FROM ${table} ${alias}
       JOIN invoices i ON i.id = ${alias}.invoice_id
       JOIN patients pt ON pt.id = i.patient_id
      WHERE ${alias}.created_at >= @from AND ${alias}.created_at < @to
      ORDER BY ${alias}.seq`;

const DAY_PAYMENTS_SQL = dayRowsSql('payments', 'p', 'p.id AS payment_id, p.created_at, p.method, p.amount_cents');

/** A refund as the end-of-day cash count lists it (1.2.0), as a payment is listed. */
export interface DayRefundRow extends Omit<DayPaymentRow, 'payment_id'> {
  refund_id: string;
}

const DAY_REFUNDS_SQL = dayRowsSql('refunds', 'r', 'r.id AS refund_id, r.created_at, r.method, r.amount_cents');

type DayParams = { from: string; to: string };

const statements = preparedFor((db) => ({
  dayPayments: db.prepare<DayParams, DayPaymentRow>(DAY_PAYMENTS_SQL),
  dayRefunds: db.prepare<DayParams, DayRefundRow>(DAY_REFUNDS_SQL),
}));

/** Every refund recorded from `from` (inclusive) to `to` (exclusive), in the order recorded. */
export function listRefundsBetween(db: Db, from: string, to: string): DayRefundRow[] {
  return statements(db).dayRefunds.all({ from, to });
}

/** Every payment recorded from `from` (inclusive) to `to` (exclusive), UTC ISO instants, in the order recorded. */
export function listPaymentsBetween(db: Db, from: string, to: string): DayPaymentRow[] {
  return statements(db).dayPayments.all({ from, to });
}

/** SQLite's plan for listPaymentsBetween, one line per step (tests prove it reads payments_by_created_at). */
export function explainPaymentsBetween(db: Db): string[] {
  return db
    .prepare<DayParams, { detail: string }>(`EXPLAIN QUERY PLAN ${DAY_PAYMENTS_SQL}`)
    .all({ from: '', to: '' })
    .map((step) => step.detail);
}
