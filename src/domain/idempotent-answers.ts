import { createHash } from 'node:crypto';
import { findIdempotentAnswer, insertIdempotentAnswer, removeExpiredAnswers } from '../db/idempotent-answers.js';
import type { Db } from '../db/open-database.js';
import { findPaymentByIdempotencyKey } from '../db/payments.js';
import { findRefundByIdempotencyKey } from '../db/refunds.js';
import { canonicalJson } from './audit/audit-event.js';
import { nowIso } from './clock.js';
import { errors } from '../errors.js';

/**
 * The stored answers of POSTs sent with an Idempotency-Key (clinic-api-1.3.md, "Versions,
 * failures, retries"), for the operations that keep no row of their own to replay from, as
 * payments and refunds do. The same key and request within 24 hours gets the first status and
 * body again, recording nothing; the key with another request is 422 IDEMPOTENCY_KEY_REUSED; a
 * refused request stores nothing, so its key stays free. One key space with payments and refunds
 * (whose keys last forever): a key one of them holds is refused here, and theirs refuse a key held
 * here (heldByStoredAnswer). Everything runs in the request's own IMMEDIATE transaction
 * (`read-then-write`), so a key checked free is still free when the answer is stored.
 */

/** How long an answer is replayed: 24 hours, then its key may be used again. */
export const ANSWER_KEPT_MS = 24 * 60 * 60 * 1000;

/** The results that are replays of an earlier request's answer: parsed from its stored body, so each is a new object. */
const replays = new WeakSet<object>();

/** Whether `result` replays the answer of an earlier request with the same key (the API's `Idempotent-Replayed: true`). */
export function wasReplayed(result: unknown): boolean {
  return typeof result === 'object' && result !== null && replays.has(result);
}

/** An operation that answers a key once: its name (the interface's operationId), the status of its answer, and what it makes. */
export interface IdempotentOperation {
  operation: string;
  status: number;
  /** What the request makes, for people: the desk says a replay is "this key was already used for this <what>". */
  what: string;
}

/**
 * What makes two requests "the same request" for a key: the operation, the ids of its path and
 * its body's values as the use case reads them (money in cents, so `10`, `10.0` and `"10.00"`
 * agree, as they do for payments), as canonical JSON, hashed.
 */
export function requestFingerprint(operation: string, path: Readonly<Record<string, unknown>>, body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson([operation, path, body]))
    .digest('hex');
}

/** Whether an answer stored for another operation holds `key` now: a payment or refund must not take it. */
export function heldByStoredAnswer(db: Db, key: string, now = nowIso()): boolean {
  const stored = findIdempotentAnswer(db, key);
  return stored !== undefined && stored.expires_at > now;
}

/**
 * `work`'s result, answered once per key: without a key, `work` runs; with one that a payment or
 * refund holds, or an answer of another request, 422 IDEMPOTENCY_KEY_REUSED, before anything the
 * request names is looked up; with one an answer of this request holds, that answer again
 * (wasReplayed says so); else `work` runs and its result is stored under the key for
 * ANSWER_KEPT_MS. Answers whose time is over are removed as new ones are stored.
 */
export function answerOnce<R>(db: Db, operation: IdempotentOperation, key: string | null, fingerprint: string, work: () => R): R {
  if (key === null) return work();
  if (findPaymentByIdempotencyKey(db, key) !== undefined || findRefundByIdempotencyKey(db, key) !== undefined) {
    throw errors.idempotencyKeyReused();
  }
  const now = nowIso();
  const stored = findIdempotentAnswer(db, key);
  if (stored !== undefined && stored.expires_at > now) {
    if (stored.operation !== operation.operation || stored.fingerprint !== fingerprint) throw errors.idempotencyKeyReused();
    const replay = JSON.parse(stored.body) as R;
    replays.add(replay as object);
    return replay;
  }
  const result = work();
  // An expired answer under this key goes too, so the key can be stored again.
  removeExpiredAnswers(db, now);
  insertIdempotentAnswer(db, {
    idempotency_key: key,
    operation: operation.operation,
    fingerprint,
    status: operation.status,
    body: JSON.stringify(result),
    created_at: now,
    expires_at: new Date(Date.parse(now) + ANSWER_KEPT_MS).toISOString(),
  });
  return result;
}
