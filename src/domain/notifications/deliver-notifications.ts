import { findInvoice } from '../../db/invoices.js';
import {
  claimDueNotification,
  markNotificationFailed,
  markNotificationSent,
  scheduleNotificationRetry,
  type NotificationRow,
} from '../../db/notifications.js';
import type { WorkRunner } from '../use-case.js';
import type { Db } from '../../db/open-database.js';

/** An email to send: plain text, one recipient. */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  /** The Message-ID header, `<id@host>`, where the sender keeps it (a reminder's provider_message_id). */
  messageId?: string;
}

/** Sends email; rejects when the message was not accepted. The SMTP mailer is one. */
export interface Mailer {
  send(message: EmailMessage): Promise<void>;
}

/** How often and how patiently a notification is retried. */
export interface RetryPolicy {
  /** After this many failed attempts a row is marked failed. */
  maxAttempts: number;
  /** Wait after the first failure; each further failure doubles it ... */
  firstDelayMs: number;
  /** ... up to this. */
  maxDelayMs: number;
  /** How long a claimed row is left alone before another attempt may take it (a crash mid-send). */
  leaseMs: number;
  /** Rows handled per pass at most, so that stopping the worker never waits long. */
  batchSize: number;
}

/**
 * 8 attempts over about an hour (waits of 30 s, 1, 2, 4, 8, 16, 32 min): an SMTP server
 * down for a maintenance window still gets the mail; one that is misconfigured gives up the
 * same day, and `clinic notifications list --status failed` shows why.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 8,
  firstDelayMs: 30_000,
  maxDelayMs: 3_600_000,
  leaseMs: 600_000,
  batchSize: 50,
};

/** What happened to one row in a delivery pass (ids and counts only: fit for the log). */
export interface DeliveryOutcome {
  notification_id: string;
  outcome: 'sent' | 'retry' | 'failed';
  attempts: number;
  error?: string;
}

/** The wait before attempt `attempts + 1`, doubling from the first delay up to the maximum. */
export function retryDelayMs(policy: RetryPolicy, attempts: number): number {
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.max(0, attempts - 1));
}

/**
 * The "invoice paid" email. It names the invoice and nothing else: no amount, no patient name,
 * no treatment, since a mailbox may be read by others.
 */
export function paidInvoiceEmail(to: string, invoiceNumber: string): EmailMessage {
  return {
    to,
    subject: `Invoice ${invoiceNumber} is paid`,
    text: `Hello,\n\nthank you: invoice ${invoiceNumber} is now paid in full.\n\nThis message was sent automatically; please do not reply to it.\n`,
  };
}

const MAX_ERROR_LENGTH = 500;

function describeError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}

async function deliverOne(
  db: Db,
  runner: WorkRunner,
  mailer: Mailer,
  row: NotificationRow,
  policy: RetryPolicy,
  now: () => number,
): Promise<DeliveryOutcome> {
  const base = { notification_id: row.id, attempts: row.attempts };
  try {
    const invoice = findInvoice(db, row.invoice_id);
    if (!invoice || row.recipient === null) throw new Error('the notification names no invoice or recipient');
    await mailer.send(paidInvoiceEmail(row.recipient, invoice.invoice_number));
  } catch (error) {
    const reason = describeError(error);
    if (row.attempts >= policy.maxAttempts) {
      await runner.run('write', () => markNotificationFailed(db, row.id, reason));
      return { ...base, outcome: 'failed', error: reason };
    }
    const nextAttemptAt = new Date(now() + retryDelayMs(policy, row.attempts)).toISOString();
    await runner.run('write', () => scheduleNotificationRetry(db, row.id, nextAttemptAt, reason));
    return { ...base, outcome: 'retry', error: reason };
  }
  // Waits out another process's lock: a sent email left unmarked would be sent again after its lease.
  await runner.run('write', () => markNotificationSent(db, row.id, new Date(now()).toISOString()));
  return { ...base, outcome: 'sent' };
}

/**
 * One delivery pass over the email rows that are due: each is claimed (attempt counted), sent,
 * then marked sent, or left pending with a later next_attempt_at (exponential back-off), or
 * marked failed after the last attempt. SMS rows are left alone: there is no SMS gateway.
 * Sending happens outside any transaction, and never touches a payment.
 */
export async function deliverDueNotifications(
  db: Db,
  runner: WorkRunner,
  mailer: Mailer,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  now: () => number = Date.now,
): Promise<DeliveryOutcome[]> {
  const outcomes: DeliveryOutcome[] = [];
  while (outcomes.length < policy.batchSize) {
    const started = now();
    // What it reads (the row due) decides what it writes (that row's lease): no other worker may
    // write between the two, so two workers never take one row.
    const row = await runner.run('read-then-write', () =>
      claimDueNotification(db, 'email', new Date(started).toISOString(), new Date(started + policy.leaseMs).toISOString()),
    );
    if (row === undefined) break;
    outcomes.push(await deliverOne(db, runner, mailer, row, policy, now));
  }
  return outcomes;
}
