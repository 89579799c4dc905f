import { listCreditNotesBetween, type DayCreditNoteRow } from '../../db/credit-notes.js';
import { listPaymentsBetween, listRefundsBetween, type DayPaymentRow, type DayRefundRow } from '../../db/day-report.js';
import type { Db } from '../../db/open-database.js';
import { PAYMENT_METHOD_KEYS, type PaymentMethodKey } from '../../fields/billing-fields.js';
import { clinicCurrency, clinicTimeZone } from '../settings.js';
import { nextDay, parseDate, startOfDay } from '../validation/calendar.js';
import { centsToNumber } from '../validation/decimal.js';
import { deskDate } from './desk-date.js';
import { field } from '../../fields/field-spec.js';
import { defineUseCase } from '../use-case.js';
import { perDistinctPatient } from '../audit/record-audit.js';
import { resolvePatientReference } from '../references.js';
import { ROLE_ROWS } from '../people/roles.js';

/** One payment of the cash count (clinic-api-1.1.md, `clinic report day --json`). */
export interface DayReportPayment {
  payment_id: string;
  created_at: string;
  invoice_number: string;
  patient_number: string;
  patient_name: string | null;
  method: PaymentMethodKey;
  amount: number;
}

/** One refund of the cash count (1.2.0): its amount positive, subtracted in the totals. */
export interface DayReportRefund extends Omit<DayReportPayment, 'payment_id'> {
  refund_id: string;
}

/** One credit note of the day (1.3.0): what an invoice asks less. No money moved, so it is in no total. */
export interface DayReportCreditNote {
  credit_note_id: string;
  credit_note_number: string;
  created_at: string;
  invoice_number: string;
  patient_number: string;
  patient_name: string | null;
  amount: number;
  reason: string;
}

/**
 * `clinic report day --json`: one clinic day's payments and refunds in the clinic currency, and
 * their totals per method and overall, net: payments less refunds (1.2.0); and the day's credit
 * notes (1.3.0), appended, which are neither money taken nor given back.
 */
export interface DayReport {
  date: string;
  time_zone: string;
  currency: string;
  payments: DayReportPayment[];
  refunds: DayReportRefund[];
  totals: Record<PaymentMethodKey, number>;
  total: number;
  credit_notes: DayReportCreditNote[];
}

/** A payment of the day on an invoice in another currency than the clinic's: received, but not in the totals. */
export type ForeignPayment = DayReportPayment & { currency: string };

/** A refund of the day on an invoice in another currency than the clinic's: given back, but not in the totals. */
export type ForeignRefund = DayReportRefund & { currency: string };

/** A credit note of the day on an invoice in another currency than the clinic's. */
export type ForeignCreditNote = DayReportCreditNote & { currency: string };

/** The cash count and, apart, what the day brought and gave back in other currencies. */
export interface DayReportResult {
  report: DayReport;
  /** Payments the report's one currency cannot add up; the command shows them apart. */
  otherCurrencies: ForeignPayment[];
  /** Refunds the report's one currency cannot add up, shown apart as well. */
  otherCurrencyRefunds: ForeignRefund[];
  /** Credit notes on invoices in another currency, shown apart as well. */
  otherCurrencyCreditNotes: ForeignCreditNote[];
}

/** What a payment's and a refund's report line share: when, which invoice and patient, how, how much. */
function reportLine(row: Omit<DayPaymentRow, 'payment_id'>): Omit<DayReportPayment, 'payment_id'> {
  return {
    created_at: row.created_at,
    invoice_number: row.invoice_number,
    patient_number: row.patient_number,
    patient_name: patientNameOf(row),
    method: row.method,
    amount: centsToNumber(row.amount_cents),
  };
}

const reportPayment = (row: DayPaymentRow): DayReportPayment => ({ payment_id: row.payment_id, ...reportLine(row) });

const reportRefund = (row: DayRefundRow): DayReportRefund => ({ refund_id: row.refund_id, ...reportLine(row) });

const reportCreditNote = (row: DayCreditNoteRow): DayReportCreditNote => ({
  credit_note_id: row.credit_note_id,
  credit_note_number: row.credit_note_number,
  created_at: row.created_at,
  invoice_number: row.invoice_number,
  patient_number: row.patient_number,
  patient_name: patientNameOf(row),
  amount: centsToNumber(row.amount_cents),
  reason: row.reason,
});

/** The input of `clinic report day`: the clinic day, `today` or YYYY-MM-DD (deskDate reads it). */
const DAY_REPORT_QUERY = [
  field.string('date', { description: 'the clinic day: 30.11.2026, 2026-11-30, today or tomorrow (default: today)' }),
] as const;

/** `clinic report day`: the end-of-day cash count (billing module). */
export const DAY_REPORT = defineUseCase({
  roles: ROLE_ROWS.readInvoices,
  summary: "The end-of-day cash count: the clinic day's payments and refunds, net totals per method and overall, and its credit notes",
  module: 'billing',
  input: { query: DAY_REPORT_QUERY },
  refusals: [],
  access: 'read',
  run: (db, { query }) => readDayReport(db, query.date === undefined ? {} : { date: query.date }),
  // One invoice.read per patient on the report, in any currency (clinic-api-1.2.md).
  audit: (result, _values, db) =>
    perDistinctPatient(
      [
        result.report.payments,
        result.report.refunds,
        result.report.credit_notes,
        result.otherCurrencies,
        result.otherCurrencyRefunds,
        result.otherCurrencyCreditNotes,
      ].flat(),
      (line) => resolvePatientReference(db, line.patient_number),
      { action: 'invoice.read' },
    ),
});

/**
 * `clinic report day`: the end-of-day cash count. Every payment recorded during the clinic-local
 * day `date` (default today; a DST day is 23 or 25 hours long) in the order recorded, totals per
 * method and overall, summed in cents so that no float error creeps into the count. The shape
 * carries one currency, the clinic's; a payment on an invoice in another currency is kept out of
 * it and returned apart rather than added to euros. The day's credit notes (1.3.0) come apart
 * from the money: they lower what invoices ask, and no money changed hands.
 */
export function readDayReport(db: Db, query: { date?: string }, now = Date.now()): DayReportResult {
  const timeZone = clinicTimeZone(db);
  const currency = clinicCurrency(db);
  const date = deskDate(query.date, timeZone, now);
  const day = parseDate(date);
  const [from, to] = [startOfDay(day, timeZone), startOfDay(nextDay(day), timeZone)];
  const rows = listPaymentsBetween(db, from, to);
  const cents = Object.fromEntries(PAYMENT_METHOD_KEYS.map((method) => [method, 0])) as Record<PaymentMethodKey, number>;
  const payments: DayReportPayment[] = [];
  const otherCurrencies: ForeignPayment[] = [];
  for (const row of rows) {
    if (row.currency !== currency) {
      otherCurrencies.push({ ...reportPayment(row), currency: row.currency });
      continue;
    }
    payments.push(reportPayment(row));
    cents[row.method] += row.amount_cents;
  }
  const refunds: DayReportRefund[] = [];
  const otherCurrencyRefunds: ForeignRefund[] = [];
  for (const row of listRefundsBetween(db, from, to)) {
    if (row.currency !== currency) {
      otherCurrencyRefunds.push({ ...reportRefund(row), currency: row.currency });
      continue;
    }
    refunds.push(reportRefund(row));
    cents[row.method] -= row.amount_cents;
  }
  const totals = Object.fromEntries(PAYMENT_METHOD_KEYS.map((method) => [method, centsToNumber(cents[method])])) as Record<
    PaymentMethodKey,
    number
  >;
  const total = centsToNumber(PAYMENT_METHOD_KEYS.reduce((sum, method) => sum + cents[method], 0));
  const creditNotes: DayReportCreditNote[] = [];
  const otherCurrencyCreditNotes: ForeignCreditNote[] = [];
  for (const row of listCreditNotesBetween(db, from, to)) {
    if (row.currency === currency) creditNotes.push(reportCreditNote(row));
    else otherCurrencyCreditNotes.push({ ...reportCreditNote(row), currency: row.currency });
  }
  return {
    report: { date, time_zone: timeZone, currency, payments, refunds, totals, total, credit_notes: creditNotes },
    otherCurrencies,
    otherCurrencyRefunds,
    otherCurrencyCreditNotes,
  };
}

/** The patient's name on the report; null for an erased patient, whose number alone is kept (1.3.0). */
function patientNameOf(row: { patient_first_name: string | null; patient_last_name: string | null }): string | null {
  return row.patient_first_name === null ? null : `${row.patient_first_name} ${row.patient_last_name}`;
}
