import type { InvoiceStatus, PaymentMethodKey } from '../fields/billing-fields.js';
import { preparedFor, type Db } from './open-database.js';

/**
 * A `refunds` row: the refund and the state it left its invoice in. Rows are only ever inserted
 * (triggers refuse UPDATE and DELETE), as payments are.
 */
export interface RefundRow {
  id: string;
  payment_id: string;
  invoice_id: string;
  amount_cents: number;
  method: PaymentMethodKey;
  reason: string;
  idempotency_key: string | null;
  request_fingerprint: string;
  invoice_status: InvoiceStatus;
  invoice_amount_paid_cents: number;
  invoice_balance_cents: number;
  /** All that is refunded of the payment once this refund is: the next refund reads it, not every refund before. */
  payment_refunded_cents: number;
  created_at: string;
}

const COLUMNS =
  'id, payment_id, invoice_id, amount_cents, method, reason, idempotency_key, request_fingerprint, invoice_status, invoice_amount_paid_cents, invoice_balance_cents, payment_refunded_cents, created_at';

const statements = preparedFor((db) => ({
  insert: db.prepare<RefundRow>(
    `INSERT INTO refunds (${COLUMNS})
     VALUES (@id, @payment_id, @invoice_id, @amount_cents, @method, @reason, @idempotency_key, @request_fingerprint,
             @invoice_status, @invoice_amount_paid_cents, @invoice_balance_cents, @payment_refunded_cents, @created_at)`,
  ),
  byIdempotencyKey: db.prepare<[string], RefundRow>(`SELECT ${COLUMNS} FROM refunds WHERE idempotency_key = ?`),
  byInvoice: db.prepare<[string], RefundRow>(`SELECT ${COLUMNS} FROM refunds WHERE invoice_id = ? ORDER BY seq`),
  // The payment's latest refund, from refunds_by_payment (whose entries end in the rowid): one
  // index probe however many refunds the payment has had.
  refundedOfPayment: db.prepare<[string], { cents: number }>(
    'SELECT payment_refunded_cents AS cents FROM refunds WHERE payment_id = ? ORDER BY seq DESC LIMIT 1',
  ),
}));

/** Stores a refund; the UNIQUE idempotency_key refuses a second row with the same key. */
export function insertRefund(db: Db, row: RefundRow): void {
  statements(db).insert.run(row);
}

/** The refund recorded under this Idempotency-Key, or undefined. */
export function findRefundByIdempotencyKey(db: Db, key: string): RefundRow | undefined {
  return statements(db).byIdempotencyKey.get(key);
}

/** An invoice's refunds in the order they were recorded. */
export function listRefundRows(db: Db, invoiceId: string): RefundRow[] {
  return statements(db).byInvoice.all(invoiceId);
}

/** How much of a payment has been refunded, in cents. */
export function refundedCents(db: Db, paymentId: string): number {
  return statements(db).refundedOfPayment.get(paymentId)?.cents ?? 0;
}
