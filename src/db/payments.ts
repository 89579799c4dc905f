import type { InvoiceStatus, PaymentMethodKey } from '../fields/billing-fields.js';
import { preparedFor, type Db } from './open-database.js';

/**
 * A `payments` row: the payment and the state it left its invoice in. Rows are only ever
 * inserted (triggers refuse UPDATE and DELETE).
 */
export interface PaymentRow {
  id: string;
  invoice_id: string;
  amount_cents: number;
  method: PaymentMethodKey;
  note: string | null;
  idempotency_key: string | null;
  request_fingerprint: string;
  invoice_status: InvoiceStatus;
  invoice_amount_paid_cents: number;
  invoice_balance_cents: number;
  created_at: string;
}

const COLUMNS =
  'id, invoice_id, amount_cents, method, note, idempotency_key, request_fingerprint, invoice_status, invoice_amount_paid_cents, invoice_balance_cents, created_at';

const statements = preparedFor((db) => ({
  insert: db.prepare<PaymentRow>(
    `INSERT INTO payments (${COLUMNS})
     VALUES (@id, @invoice_id, @amount_cents, @method, @note, @idempotency_key, @request_fingerprint, @invoice_status,
             @invoice_amount_paid_cents, @invoice_balance_cents, @created_at)`,
  ),
  byIdempotencyKey: db.prepare<[string], PaymentRow>(`SELECT ${COLUMNS} FROM payments WHERE idempotency_key = ?`),
  byId: db.prepare<[string], PaymentRow>(`SELECT ${COLUMNS} FROM payments WHERE id = ?`),
  byInvoice: db.prepare<[string], PaymentRow>(`SELECT ${COLUMNS} FROM payments WHERE invoice_id = ? ORDER BY seq`),
}));

/** Stores a payment; the UNIQUE idempotency_key refuses a second row with the same key. */
export function insertPayment(db: Db, row: PaymentRow): void {
  statements(db).insert.run(row);
}

/** The payment recorded under this Idempotency-Key, or undefined. */
export function findPaymentByIdempotencyKey(db: Db, key: string): PaymentRow | undefined {
  return statements(db).byIdempotencyKey.get(key);
}

/** The payment with this id, or undefined. */
export function findPayment(db: Db, id: string): PaymentRow | undefined {
  return statements(db).byId.get(id);
}

/** An invoice's payments in the order they were recorded. */
export function listPaymentRows(db: Db, invoiceId: string): PaymentRow[] {
  return statements(db).byInvoice.all(invoiceId);
}
