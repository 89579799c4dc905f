import { findInvoice, updateInvoiceAfterPayment } from '../../db/invoices.js';
import { sha256Hex } from '../audit/sha256.js';
import type { Db } from '../../db/open-database.js';
import { insertPayment, type PaymentRow } from '../../db/payments.js';
import { earlierUseOfKey } from './idempotency-keys.js';
import { PAYMENT_INPUT_FIELDS, PAYMENT_PATH_FIELDS, type PaymentMethodKey } from '../../fields/billing-fields.js';
import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import { newId, nowIso } from '../clock.js';
import { errors } from '../../errors.js';
import { queuePaidInvoiceNotification } from '../notifications/queue-notification.js';
import { defineUseCase, performUseCase } from '../use-case.js';
import { centsToText } from '../validation/decimal.js';
import { presentPayment, type PaymentResult } from './present-payment.js';
import { ROLE_ROWS } from '../people/roles.js';

/** A payment request as it arrives, over HTTP or from the command line: not yet validated. */
export interface PaymentRequest {
  /** `{ invoice_id }`. */
  path: unknown;
  /** Request headers by lowercase name; only `idempotency-key` is read. */
  headers: unknown;
  /** The Payment request of spec 2.9. */
  body: unknown;
}

/** What recording answered: the Payment result, and whether it is the replay of an earlier one. */
export interface RecordedPayment {
  payment: PaymentResult;
  replayed: boolean;
}

interface ValidPayment {
  invoiceId: string;
  amountCents: number;
  method: PaymentMethodKey;
  note: string | null;
  idempotencyKey: string | null;
}

/**
 * What makes two requests "the same request" for an Idempotency-Key (decisions.md §7): the
 * invoice, the amount in cents (so 10, 10.0 and "10.00" agree), the method and the note. Hashed
 * without node:crypto, which a desk command would load for it alone (audit/sha256.ts).
 */
function fingerprint(payment: ValidPayment): string {
  const identity = [payment.invoiceId, payment.amountCents, payment.method, payment.note];
  return sha256Hex(JSON.stringify(identity));
}

/**
 * The body of the payment transaction. It runs under BEGIN IMMEDIATE (access `read-then-write`), so from the first read
 * to the commit no other connection, in this process or another (a CLI, a second server), can
 * write: the balance checked is the balance updated, and a key looked up is still unused when
 * it is stored. A throw anywhere rolls all of it back, which is why a refused request consumes
 * no key and changes nothing.
 */
function applyPayment(db: Db, payment: ValidPayment, requestFingerprint: string): RecordedPayment {
  if (payment.idempotencyKey !== null) {
    const earlier = earlierUseOfKey(db, payment.idempotencyKey, 'payment', requestFingerprint);
    if (earlier !== undefined) return { payment: presentPayment(earlier, findInvoice(db, earlier.invoice_id)!), replayed: true };
  }
  const invoice = findInvoice(db, payment.invoiceId);
  if (invoice === undefined) throw errors.invoiceNotFound();
  // 409 before the coded 422s (clinic-api-1.2.md, "Conflicts"): a void invoice takes nothing.
  if (invoice.status === 'void') throw errors.invoiceVoid();
  // A paid invoice has a balance of zero, so any amount on it is refused here too.
  if (payment.amountCents > invoice.balance_cents) {
    throw errors.paymentExceedsBalance(`${centsToText(invoice.balance_cents)} ${invoice.currency}`);
  }

  const now = nowIso();
  const balanceCents = invoice.balance_cents - payment.amountCents;
  const amountPaidCents = invoice.amount_paid_cents + payment.amountCents;
  const status = balanceCents === 0 ? 'paid' : 'partially_paid';
  const row: PaymentRow = {
    id: newId(),
    invoice_id: invoice.id,
    amount_cents: payment.amountCents,
    method: payment.method,
    note: payment.note,
    idempotency_key: payment.idempotencyKey,
    request_fingerprint: requestFingerprint,
    invoice_status: status,
    invoice_amount_paid_cents: amountPaidCents,
    invoice_balance_cents: balanceCents,
    created_at: now,
  };
  insertPayment(db, row);
  updateInvoiceAfterPayment(db, {
    id: invoice.id,
    status,
    amount_paid_cents: amountPaidCents,
    balance_cents: balanceCents,
    updated_at: now,
  });
  if (status === 'paid') queuePaidInvoiceNotification(db, invoice, now);
  return { payment: presentPayment(row, invoice), replayed: false };
}

/**
 * Records a payment against an invoice (POST /invoices/{invoice_id}/payments and
 * `clinic record-payment`, which mount this use case and so share its guarantees). Schema first
 * (path, header and body issues together); then, in one IMMEDIATE transaction: the
 * Idempotency-Key (replay or IDEMPOTENCY_KEY_REUSED), the invoice (INVOICE_NOT_FOUND), the
 * balance (PAYMENT_EXCEEDS_BALANCE), and the writes: payment, invoice, and the patient's
 * notification when the invoice becomes paid.
 */
export const RECORD_PAYMENT = defineUseCase({
  roles: ROLE_ROWS.takeMoney,
  summary: 'Record a payment against an invoice',
  module: 'payments',
  input: { path: PAYMENT_PATH_FIELDS, header: IDEMPOTENCY_HEADER_FIELDS, body: PAYMENT_INPUT_FIELDS },
  refusals: [errors.invoiceNotFound(), errors.invoiceVoid(), errors.paymentExceedsBalance(), errors.idempotencyKeyReused()],
  access: 'read-then-write',
  // An erased patient's kept invoice may still be paid, by an admin (1.3.0, "Restriction").
  changesRestricted: true,
  run(db, { path, header, body }): RecordedPayment {
    const payment: ValidPayment = {
      invoiceId: path.invoice_id,
      amountCents: body.amount,
      method: body.method,
      note: body.note,
      idempotencyKey: header['idempotency-key'] ?? null,
    };
    return applyPayment(db, payment, fingerprint(payment));
  },
  // A replay shows what was recorded before and records nothing new (clinic-api-1.2.md).
  changes: ({ payment, replayed }) =>
    replayed
      ? []
      : [
          {
            type: 'payment.created',
            patientId: payment.patient_id,
            data: {
              payment_id: payment.payment_id,
              invoice_id: payment.invoice_id,
              amount: payment.amount,
              method: payment.method,
              invoice_status: payment.invoice_status,
              invoice_balance: payment.invoice_balance,
            },
          },
        ],
  audit: ({ payment, replayed }) =>
    replayed ? [] : [{ action: 'payment.create', patientId: payment.patient_id, subjectId: payment.payment_id }],
});

/** RECORD_PAYMENT on a connection of its own (performUseCase), as the command line performs it. */
export function recordPayment(db: Db, request: PaymentRequest): RecordedPayment {
  return performUseCase(
    RECORD_PAYMENT,
    db,
    { path: request.path, header: request.headers, body: request.body },
    { source: 'cli', actor: null },
  );
}
