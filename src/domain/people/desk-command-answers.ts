import type { DeskCommandFile } from '../desk/desk-command-files.js';
import { findIdempotentAnswer, insertIdempotentAnswer, removeExpiredAnswers } from '../../db/idempotent-answers.js';
import type { Db } from '../../db/open-database.js';
import { findPaymentByIdempotencyKey } from '../../db/payments.js';
import { findRefundByIdempotencyKey } from '../../db/refunds.js';
import { errors } from '../../errors.js';
import { nowIso } from '../clock.js';
import { ANSWER_KEPT_MS, requestFingerprint } from '../idempotent-answers.js';
import { inTransaction } from '../use-case.js';

/**
 * The answers of desk commands sent with an Idempotency-Key (interface 1.3.0, "Versions, failures,
 * retries"): a desk PC whose answer was lost sends the command once more with the same key, and
 * gets the first answer instead of a second booking or payment. One key space with the API's POSTs
 * (idempotent-answers.ts); kept 24 hours. Unlike those, a command runs its own transactions, over
 * awaits: its key is checked before, its answer stored after, and a second request with a key
 * whose command still runs waits for it (keyInFlight) rather than running it again.
 */

const OPERATION = 'runDeskCommand';

/** What makes two desk commands the same: the command line, the files sent with it (their options and bytes) and the person who sent it. */
export function deskCommandFingerprint(argv: readonly string[], personId: string, files: readonly DeskCommandFile[] = []): string {
  const sent = files.map((file) => [file.option, file.sha256]).sort();
  return requestFingerprint(OPERATION, {}, { argv, person: personId, ...(sent.length === 0 ? {} : { files: sent }) });
}

/**
 * What `key` holds for this command: its stored answer (`replay`); a payment or refund of its own
 * (`kept`: a desk's `record-payment` or `refund` passes the key on to the command, whose payment
 * keeps it for ever and replays itself, so the command runs again and nothing more is stored); or
 * nothing (`free`). 422 IDEMPOTENCY_KEY_REUSED when it holds another request's answer.
 */
export function keyState<A>(db: Db, key: string, fingerprint: string): { replay: A } | 'kept' | 'free' {
  const stored = findIdempotentAnswer(db, key);
  if (stored !== undefined && stored.expires_at > nowIso()) {
    if (stored.operation !== OPERATION || stored.fingerprint !== fingerprint) throw errors.idempotencyKeyReused();
    return { replay: JSON.parse(stored.body) as A };
  }
  if (findPaymentByIdempotencyKey(db, key) !== undefined || findRefundByIdempotencyKey(db, key) !== undefined) return 'kept';
  return 'free';
}

/** Stores `answer` under `key` for 24 hours (committed before the answer is sent). */
export function rememberAnswer(db: Db, key: string, fingerprint: string, answer: unknown): void {
  inTransaction(db, 'read-then-write', () => {
    const now = nowIso();
    removeExpiredAnswers(db, now);
    // Another request stored this key meanwhile (only through the API's other POSTs): the first answer stands.
    if (findIdempotentAnswer(db, key) !== undefined) return;
    insertIdempotentAnswer(db, {
      idempotency_key: key,
      operation: OPERATION,
      fingerprint,
      status: 200,
      body: JSON.stringify(answer),
      created_at: now,
      expires_at: new Date(Date.parse(now) + ANSWER_KEPT_MS).toISOString(),
    });
  });
}

/** The keys whose command runs now, and how it ends. */
const inFlight = new Map<string, Promise<unknown>>();

/** Runs `work` for `key`, after any run of the same key still going has ended (whose stored answer it then replays). */
export async function keyInFlight<T>(key: string, work: () => Promise<T>): Promise<T> {
  while (inFlight.has(key)) await inFlight.get(key)!.catch(() => {});
  const running = work();
  inFlight.set(key, running);
  try {
    return await running;
  } finally {
    inFlight.delete(key);
  }
}
