import type { Db } from '../../db/open-database.js';
import { findPaymentByIdempotencyKey, type PaymentRow } from '../../db/payments.js';
import { findRefundByIdempotencyKey, type RefundRow } from '../../db/refunds.js';
import { errors } from '../../errors.js';
import { heldByStoredAnswer } from '../idempotent-answers.js';

/**
 * The row an Idempotency-Key already stands for, of the kind `kind` asks for, when it was used
 * for the same request (`fingerprint`): a replay. Payments and refunds share one key space
 * (clinic-api-1.2.md), and from 1.3.0 the stored answers of other POSTs share it too
 * (idempotent-answers.ts): a key used for the other kind, for another request, or held by a
 * stored answer, is 422 IDEMPOTENCY_KEY_REUSED; an unused key is undefined. Checked before
 * anything the request names is looked up, so a reused key is refused whatever it names
 * (decisions.md §7).
 */
export function earlierUseOfKey(db: Db, key: string, kind: 'payment', fingerprint: string): PaymentRow | undefined;
export function earlierUseOfKey(db: Db, key: string, kind: 'refund', fingerprint: string): RefundRow | undefined;
export function earlierUseOfKey(db: Db, key: string, kind: 'payment' | 'refund', fingerprint: string): PaymentRow | RefundRow | undefined {
  const payment = findPaymentByIdempotencyKey(db, key);
  const refund = payment === undefined ? findRefundByIdempotencyKey(db, key) : undefined;
  const earlier = payment ?? refund;
  if (earlier === undefined) {
    if (heldByStoredAnswer(db, key)) throw errors.idempotencyKeyReused();
    return undefined;
  }
  if ((kind === 'payment') !== (payment !== undefined) || earlier.request_fingerprint !== fingerprint) throw errors.idempotencyKeyReused();
  return earlier;
}
