import { insertCreditNote, takeCreditNoteNumber, type CreditNoteRow } from '../../db/credit-notes.js';
import { findInvoice, updateInvoiceAfterCredit, type InvoiceRow } from '../../db/invoices.js';
import type { Db } from '../../db/open-database.js';
import { CREDIT_NOTE_INPUT_FIELDS, INVOICE_PATH_FIELDS, type InvoiceStatus } from '../../fields/billing-fields.js';
import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import { creditNoteNumber } from '../../fields/human-numbers.js';
import type { AuditRecord } from '../audit/audit-event.js';
import type { ChangeRecord } from '../changes/change-event.js';
import { newId, nowIso } from '../clock.js';
import { errors } from '../../errors.js';
import { queuePaidInvoiceNotification } from '../notifications/queue-notification.js';
import { clinicTimeZone } from '../settings.js';
import { defineUseCase } from '../use-case.js';
import { blankReasonIssues } from '../validation/blank-reason.js';
import { localDateOf } from '../validation/calendar.js';
import { centsToNumber, centsToText } from '../validation/decimal.js';
import { invoiceDetail, type InvoiceDetail } from './read-invoice.js';
import { ROLE_ROWS } from '../people/roles.js';

/**
 * Credit notes (clinic-api-1.3.md, "Credit notes"): a credit note lowers what an invoice asks,
 * because it asked too much or as goodwill; it is numbered and never deleted. Money moves only
 * with payments and refunds, so the balance is total − amount_credited − (paid − refunded), and a
 * balance of 0 with money kept is `paid`.
 */

/** What a credit note asks of its invoice. */
export interface CreditRequest {
  amountCents: number;
  reason: string;
  /** The goodwill refund it comes with, or null. */
  refundId: string | null;
  /** What the invoice has paid and kept once this transaction is done: less a goodwill refund's amount. */
  amountPaidCents: number;
}

/** A credit note made, and the invoice's state as it left it. */
export interface CreditApplied {
  creditNote: CreditNoteRow;
  status: InvoiceStatus;
  amountPaidCents: number;
  balanceCents: number;
}

/** The invoice's state once a credit note of `credit` is made, or the refusal of it (applyCreditNote's rules); nothing is written. */
export function creditOutcome(
  invoice: InvoiceRow,
  credit: Pick<CreditRequest, 'amountCents' | 'amountPaidCents'>,
): { status: InvoiceStatus; balanceCents: number; amountCreditedCents: number } {
  const amountCreditedCents = invoice.amount_credited_cents + credit.amountCents;
  const balanceCents = invoice.total_cents - amountCreditedCents - credit.amountPaidCents;
  if (balanceCents < 0) {
    const asked = balanceCents + credit.amountCents;
    throw errors.creditExceedsBalance(centsToNumber(asked), `${centsToText(asked)} ${invoice.currency}`);
  }
  if (balanceCents === 0 && credit.amountPaidCents === 0) throw errors.invoiceFullyCredited();
  const status: InvoiceStatus = balanceCents === 0 ? 'paid' : credit.amountPaidCents === 0 ? 'issued' : 'partially_paid';
  return { status, balanceCents, amountCreditedCents };
}

/**
 * Lowers what `invoice` asks by a credit note, in the caller's IMMEDIATE transaction: its number
 * is the next of its calendar year's series in clinic time (CN-2026-000001), taken in this
 * transaction so it is never handed out twice. More than the balance is 422
 * CREDIT_EXCEEDS_BALANCE (`detail.balance`); a credit that would leave the invoice asking nothing
 * with nothing paid is 409 INVOICE_FULLY_CREDITED, since that invoice is voided instead (and the
 * invoices' CHECKs allow no such state). An invoice it makes `paid` queues the patient's "paid"
 * notification, as the payment that pays one does. The invoice must not be void (the caller's
 * 409 INVOICE_VOID).
 */
export function applyCreditNote(db: Db, invoice: InvoiceRow, credit: CreditRequest, now: string): CreditApplied {
  const { status, balanceCents, amountCreditedCents } = creditOutcome(invoice, credit);
  const year = localDateOf(Date.parse(now), clinicTimeZone(db)).year;
  const creditNote: CreditNoteRow = {
    id: newId(),
    credit_note_number: creditNoteNumber(year, takeCreditNoteNumber(db, year)),
    invoice_id: invoice.id,
    amount_cents: credit.amountCents,
    reason: credit.reason,
    refund_id: credit.refundId,
    created_at: now,
  };
  insertCreditNote(db, creditNote);
  updateInvoiceAfterCredit(db, {
    id: invoice.id,
    status,
    amount_paid_cents: credit.amountPaidCents,
    balance_cents: balanceCents,
    amount_credited_cents: amountCreditedCents,
    updated_at: now,
  });
  if (status === 'paid' && invoice.status !== 'paid') queuePaidInvoiceNotification(db, invoice, now);
  return { creditNote, status, amountPaidCents: credit.amountPaidCents, balanceCents };
}

/** The feed's event of a credit note (clinic-api-1.3.md): the credit note and the invoice as it left it. */
export function creditedChange(
  patientId: string,
  creditNote: { id: string; credit_note_number: string; amount: number },
  invoice: { id: string; status: string; balance: number },
): ChangeRecord {
  return {
    type: 'invoice.credited',
    patientId,
    data: {
      invoice_id: invoice.id,
      credit_note_id: creditNote.id,
      credit_note_number: creditNote.credit_note_number,
      amount: creditNote.amount,
      invoice_status: invoice.status,
      invoice_balance: invoice.balance,
    },
  };
}

/** The audit record of a credit note: what its patient's invoice asks was changed. */
export const creditRecord = (patientId: string, invoiceId: string): AuditRecord => ({
  action: 'invoice.credit',
  patientId,
  subjectId: invoiceId,
});

/**
 * Lowers what an invoice asks (POST /invoices/{invoice_id}/credit-notes, `clinic invoice credit`):
 * in one IMMEDIATE transaction the Idempotency-Key (answersOnce: a replay of the first answer, or
 * 422 IDEMPOTENCY_KEY_REUSED), the invoice (404 INVOICE_NOT_FOUND; void: 409 INVOICE_VOID), then
 * applyCreditNote's rules and writes. Answers the invoice as GET /invoices/{invoice_id} gives it,
 * its new credit note the last of `credit_notes`.
 */
export const CREATE_CREDIT_NOTE = defineUseCase({
  roles: ROLE_ROWS.giveMoneyBack,
  summary: 'Lower what an invoice asks with a credit note',
  module: 'billing',
  input: { path: INVOICE_PATH_FIELDS, header: IDEMPOTENCY_HEADER_FIELDS, body: CREDIT_NOTE_INPUT_FIELDS },
  answersOnce: { operation: 'createCreditNote', status: 201, what: 'credit note' },
  refusals: [
    errors.invoiceNotFound(),
    errors.invoiceVoid(),
    errors.invoiceFullyCredited(),
    errors.creditExceedsBalance(40, '40.00 EUR'),
    errors.idempotencyKeyReused(),
  ],
  access: 'read-then-write',
  moreIssues: ({ body }, fieldIssues) => blankReasonIssues(body, fieldIssues),
  run(db, { path, body }): InvoiceDetail {
    const invoice = findInvoice(db, path.invoice_id);
    if (invoice === undefined) throw errors.invoiceNotFound();
    // 409 before the coded 422s (clinic-api-1.2.md, "Conflicts"): a void invoice asks nothing.
    if (invoice.status === 'void') throw errors.invoiceVoid();
    const credit = { amountCents: body.amount, reason: body.reason, refundId: null, amountPaidCents: invoice.amount_paid_cents };
    applyCreditNote(db, invoice, credit, nowIso());
    return invoiceDetail(db, invoice.id);
  },
  changes: (invoice) => [creditedChange(invoice.patient_id, invoice.credit_notes.at(-1)!, invoice)],
  audit: (invoice) => [creditRecord(invoice.patient_id, invoice.id)],
});
