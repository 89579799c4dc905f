import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import { insertInvoice, sumOpenBalances, takeInvoiceNumber, type NewInvoiceRow } from '../../db/invoices.js';
import type { Db } from '../../db/open-database.js';
import { patientExists } from '../../db/patients.js';
import { INVOICE_INPUT_FIELDS } from '../../fields/billing-fields.js';
import { invoiceNumber } from '../../fields/human-numbers.js';
import { newId, nowIso } from '../clock.js';
import { errors } from '../../errors.js';
import { clinicCurrency, clinicTimeZone } from '../settings.js';
import { defineUseCase, performUseCase } from '../use-case.js';
import { dateError, wallClockAt } from '../validation/calendar.js';
import { isPlainObject } from '../validation/structs.js';
import { invoiceDetail, type InvoiceDetail } from './read-invoice.js';
import { invoiceData } from '../changes/change-event.js';
import { ROLE_ROWS } from '../people/roles.js';

/** Staff type `--issued-at 2026-03-01`: a calendar date alone means midnight, clinic time. */
export function withIssuedDateAsMidnight(input: unknown): unknown {
  if (!isPlainObject(input)) return input;
  const issuedAt = input.issued_at;
  if (typeof issuedAt !== 'string' || dateError(issuedAt) !== undefined) return input;
  return { ...input, issued_at: `${issuedAt}T00:00` };
}

/** The calendar year of an instant in the clinic's time zone: an invoice issued on New Year's Eve belongs to that year's series. */
function yearIn(timeZone: string, isoInstant: string): number {
  return wallClockAt(timeZone, Date.parse(isoInstant)).year;
}

/**
 * Issues an invoice (`clinic invoice create`): status `issued`, nothing paid, numbered
 * INV-<year of issue>-NNNNNN. The number is taken and the invoice stored in one transaction, so
 * numbers are unique and never reused. A patient's open invoices share one currency, so that
 * their outstanding balance is one amount in one currency (read, then written: IMMEDIATE); only
 * a refund that reopens an invoice can make a second, and no invoice adds a third.
 */
export const CREATE_INVOICE = defineUseCase({
  roles: ROLE_ROWS.takeMoney,
  summary: 'Issue an invoice',
  module: 'billing',
  input: { header: IDEMPOTENCY_HEADER_FIELDS, body: INVOICE_INPUT_FIELDS },
  answersOnce: { operation: 'createInvoice', status: 201, what: 'invoice' },
  refusals: [errors.patientNotFound(422), errors.invoiceCurrencyMismatch('EUR'), errors.idempotencyKeyReused()],
  access: 'read-then-write',
  run(db, { body: values }): InvoiceDetail {
    const timeZone = clinicTimeZone(db);
    const patientId = values.patient_id;
    const currency = values.currency ?? clinicCurrency(db);
    const now = nowIso();
    const issuedAt = values.issued_at ?? now;
    if (!patientExists(db, patientId)) throw errors.patientNotFound(422);
    // A currency the patient already owes in adds none; one more is refused. (Owing in two,
    // after a refund reopened an invoice, either may still be invoiced: the patient can be billed.)
    const owed = sumOpenBalances(db, patientId).map((open) => open.currency);
    if (owed.length > 0 && !owed.includes(currency)) throw errors.invoiceCurrencyMismatch(...owed);
    const year = yearIn(timeZone, issuedAt);
    const totalCents = values.total;
    const row: NewInvoiceRow = {
      id: newId(),
      invoice_number: invoiceNumber(year, takeInvoiceNumber(db, year)),
      patient_id: patientId,
      status: 'issued',
      currency,
      total_cents: totalCents,
      amount_paid_cents: 0,
      balance_cents: totalCents,
      issued_at: issuedAt,
      created_at: now,
      updated_at: now,
    };
    insertInvoice(db, row);
    // As GET /invoices/{invoice_id} gives it (POST /invoices answers so, clinic-api-1.3.md).
    return invoiceDetail(db, row.id);
  },
  changes: (invoice) => [{ type: 'invoice.created', patientId: invoice.patient_id, data: invoiceData(invoice) }],
  audit: (invoice) => [{ action: 'invoice.create', patientId: invoice.patient_id, subjectId: invoice.id }],
});

/** CREATE_INVOICE on a connection of its own; a bare `issued_at` date is midnight, clinic time. */
export function createInvoice(db: Db, body: unknown): InvoiceDetail {
  return performUseCase(CREATE_INVOICE, db, { body: withIssuedDateAsMidnight(body) }, { source: 'cli', actor: null });
}
