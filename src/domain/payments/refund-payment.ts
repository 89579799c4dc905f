import { findCreditNoteOfRefund, type CreditNoteRow } from '../../db/credit-notes.js';
import { sha256Hex } from '../audit/sha256.js';
import { findInvoice, updateInvoiceAfterPayment, type InvoiceRow } from '../../db/invoices.js';
import { findPayment } from '../../db/payments.js';
import { insertRefund, refundedCents, type RefundRow } from '../../db/refunds.js';
import { earlierUseOfKey } from './idempotency-keys.js';
import type { REFUND_RESULT_FIELDS } from '../../fields/billing-fields.js';
import { REFUND_INPUT_FIELDS, REFUND_PATH_FIELDS } from '../../fields/billing-fields.js';
import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import { newId, nowIso } from '../clock.js';
import { errors } from '../../errors.js';
import { defineUseCase, type RawRequest } from '../use-case.js';
import { centsToNumber, centsToText } from '../validation/decimal.js';
import { blankReasonIssues } from '../validation/blank-reason.js';
import { applyCreditNote, creditedChange, creditOutcome, creditRecord } from '../invoices/credit-invoice.js';
import { presentCreditNote } from '../invoices/present-invoice.js';
import type { InvoiceStatus } from '../../fields/billing-fields.js';
import { ROLE_ROWS } from '../people/roles.js';

/** The Refund of clinic-api-1.2.md: the refund and the invoice's state as it left it. */
export type RefundResult = ResponseOf<typeof REFUND_RESULT_FIELDS>;

/** What recording answered: the Refund, and whether it is the replay of an earlier one. */
export interface RecordedRefund {
  refund: RefundResult;
  replayed: boolean;
}

/** A refund's result: the invoice fields that never change from the invoice, its state from the row, and a goodwill refund's credit note. */
export function presentRefund(refund: RefundRow, invoice: InvoiceRow, creditNote: CreditNoteRow | undefined): RefundResult {
  return {
    refund_id: refund.id,
    payment_id: refund.payment_id,
    invoice_id: refund.invoice_id,
    patient_id: invoice.patient_id,
    amount: centsToNumber(refund.amount_cents),
    method: refund.method,
    reason: refund.reason,
    currency: invoice.currency,
    created_at: refund.created_at,
    invoice_status: refund.invoice_status,
    invoice_total: centsToNumber(invoice.total_cents),
    invoice_amount_paid: centsToNumber(refund.invoice_amount_paid_cents),
    invoice_balance: centsToNumber(refund.invoice_balance_cents),
    credit_note: creditNote === undefined ? null : presentCreditNote(creditNote),
  };
}

/**
 * What makes two refund requests "the same request" for an Idempotency-Key: the payment, the
 * amount in cents as asked (none: all that is left), the method asked and the reason; and for a
 * goodwill refund (1.3.0) that it is one, appended so that every refund stored before keeps its
 * fingerprint.
 */
function fingerprint(paymentId: string, amountCents: number | null, method: string | null, reason: string, goodwill: boolean): string {
  return sha256Hex(JSON.stringify(['refund', paymentId, amountCents, method, reason, ...(goodwill ? ['goodwill'] : [])]));
}

/**
 * Gives back part or all of a payment (POST /payments/{payment_id}/refunds, `clinic refund`).
 * Schema first; then in one IMMEDIATE transaction: the Idempotency-Key, whose space it shares
 * with payments (a replay, or IDEMPOTENCY_KEY_REUSED), the payment (PAYMENT_NOT_FOUND), what it
 * can still give back, its amount less its refunds (more, or nothing left: REFUND_EXCEEDS_PAYMENT),
 * and the writes: the refund, and its invoice's amount paid down and balance up by the amount,
 * `issued` once nothing is paid, else `partially_paid`. A refund is final, as a payment is.
 * With `goodwill` (1.3.0) a credit note of the same amount and reason comes with it in the same
 * transaction (applyCreditNote), so the balance stays as it was and a paid invoice stays `paid`;
 * one that would leave the invoice asking nothing with nothing paid is 409 INVOICE_FULLY_CREDITED
 * (refund it, then void it).
 */
export const REFUND_PAYMENT = defineUseCase({
  roles: ROLE_ROWS.giveMoneyBack,
  summary: 'Refund a payment, in part or in full',
  module: 'payments',
  input: { path: REFUND_PATH_FIELDS, header: IDEMPOTENCY_HEADER_FIELDS, body: REFUND_INPUT_FIELDS },
  refusals: [errors.paymentNotFound(), errors.invoiceFullyCredited(), errors.refundExceedsPayment(), errors.idempotencyKeyReused()],
  access: 'read-then-write',
  // An erased patient's kept payment may still be refunded, by an admin (1.3.0, "Restriction").
  changesRestricted: true,
  moreIssues: ({ body }: RawRequest, fieldIssues) => blankReasonIssues(body, fieldIssues),
  run(db, { path, header, body }): RecordedRefund {
    const key = header['idempotency-key'] ?? null;
    const requestFingerprint = fingerprint(path.payment_id, body.amount ?? null, body.method ?? null, body.reason, body.goodwill);
    if (key !== null) {
      const earlier = earlierUseOfKey(db, key, 'refund', requestFingerprint);
      if (earlier !== undefined) {
        return {
          refund: presentRefund(earlier, findInvoice(db, earlier.invoice_id)!, findCreditNoteOfRefund(db, earlier.id)),
          replayed: true,
        };
      }
    }
    const payment = findPayment(db, path.payment_id);
    if (payment === undefined) throw errors.paymentNotFound();
    const invoice = findInvoice(db, payment.invoice_id)!;
    const refundableCents = payment.amount_cents - refundedCents(db, payment.id);
    const amountCents = body.amount ?? refundableCents;
    if (refundableCents === 0 || amountCents > refundableCents) {
      throw errors.refundExceedsPayment(`${centsToText(refundableCents)} ${invoice.currency}`);
    }

    const now = nowIso();
    const amountPaidCents = invoice.amount_paid_cents - amountCents;
    // The refund row keeps the invoice as the whole transaction leaves it, its credit note included.
    const { status, balanceCents }: { status: InvoiceStatus; balanceCents: number } = body.goodwill
      ? creditOutcome(invoice, { amountCents, amountPaidCents })
      : { status: amountPaidCents === 0 ? 'issued' : 'partially_paid', balanceCents: invoice.balance_cents + amountCents };
    const row: RefundRow = {
      id: newId(),
      payment_id: payment.id,
      invoice_id: invoice.id,
      amount_cents: amountCents,
      method: body.method ?? payment.method,
      reason: body.reason,
      idempotency_key: key,
      request_fingerprint: requestFingerprint,
      invoice_status: status,
      invoice_amount_paid_cents: amountPaidCents,
      invoice_balance_cents: balanceCents,
      payment_refunded_cents: payment.amount_cents - refundableCents + amountCents,
      created_at: now,
    };
    insertRefund(db, row);
    if (!body.goodwill) {
      updateInvoiceAfterPayment(db, {
        id: invoice.id,
        status,
        amount_paid_cents: amountPaidCents,
        balance_cents: balanceCents,
        updated_at: now,
      });
      return { refund: presentRefund(row, invoice, undefined), replayed: false };
    }
    const credit = { amountCents, reason: body.reason, refundId: row.id, amountPaidCents };
    const { creditNote } = applyCreditNote(db, invoice, credit, now);
    return { refund: presentRefund(row, invoice, creditNote), replayed: false };
  },
  changes: ({ refund, replayed }) =>
    replayed
      ? []
      : [
          {
            type: 'refund.created',
            patientId: refund.patient_id,
            data: {
              refund_id: refund.refund_id,
              payment_id: refund.payment_id,
              invoice_id: refund.invoice_id,
              amount: refund.amount,
              invoice_status: refund.invoice_status,
              invoice_balance: refund.invoice_balance,
            },
          },
          ...(refund.credit_note === null
            ? []
            : [
                creditedChange(refund.patient_id, refund.credit_note, {
                  id: refund.invoice_id,
                  status: refund.invoice_status,
                  balance: refund.invoice_balance,
                }),
              ]),
        ],
  audit: ({ refund, replayed }) =>
    replayed
      ? []
      : [
          { action: 'refund.create', patientId: refund.patient_id, subjectId: refund.refund_id },
          ...(refund.credit_note === null ? [] : [creditRecord(refund.patient_id, refund.invoice_id)]),
        ],
});
