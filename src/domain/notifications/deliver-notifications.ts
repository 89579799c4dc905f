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
import { e164Mobile } from '../reminders/mobile-numbers.js';
import { dropsRepeats, smsGateway, SmsSendError, type SmsGateway, type SmsSender } from '../reminders/sms-gateway.js';
import { clinicCountry, clinicName } from '../settings.js';

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

/** The "invoice paid" SMS, to a patient without e-mail: as little as the e-mail says, and who sends it. */
export function paidInvoiceSms(invoiceNumber: string, clinic: string | null): string {
  return `${clinic === null ? '' : `${clinic}: `}invoice ${invoiceNumber} is now paid in full. Thank you.`;
}

/** How notifications go: e-mail through `serve --smtp-url`, SMS through the clinic's gateway (`sms-gateway set`). */
export interface NotificationChannels {
  mailer: Mailer | null;
  sendSms: SmsSender | null;
}

const MAX_ERROR_LENGTH = 500;

/** A failure's message, cut to what an outbox row or a reminder keeps (500 characters). */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}

/** Sends one claimed row by its channel; throws what the channel refused. */
async function sendRow(db: Db, channels: NotificationChannels, row: NotificationRow, gateway: SmsGateway | null): Promise<void> {
  const invoice = findInvoice(db, row.invoice_id);
  if (!invoice || row.recipient === null) throw new Error('the notification names no invoice or recipient');
  if (row.channel === 'email') {
    await channels.mailer!.send(paidInvoiceEmail(row.recipient, invoice.invoice_number));
    return;
  }
  const to = e164Mobile(row.recipient, clinicCountry(db));
  if (to === null) throw new UnusableNumberError();
  // The row's id as the reference: a gateway told it drops a repeat after a lost lease.
  await channels.sendSms!(gateway!, { to, text: paidInvoiceSms(invoice.invoice_number, clinicName(db)), reference: row.id });
}

/**
 * Stands in an SMS row's last_error while it is sent. Found again (the server stopped mid-send),
 * the SMS may have gone: it is repeated only through a gateway that drops a repeat of its
 * reference, else it fails, so that no patient gets it twice (interface 1.3.0, "Never twice").
 */
export const SMS_SENDING = 'being sent; if this stays, the server stopped meanwhile and the SMS may have gone out';
const SMS_NOT_REPEATED =
  'the server stopped while this SMS was being sent, so it may have gone out; it is not sent again (the gateway cannot drop a repeat)';

/** A mobile number no gateway can reach (not E.164 by the rules of interface 1.3.0): no retry helps. */
class UnusableNumberError extends Error {
  constructor() {
    super('the mobile number is not a usable international number (set the clinic country: clinic settings set-country)');
  }
}

async function deliverOne(
  db: Db,
  runner: WorkRunner,
  channels: NotificationChannels,
  claimed: { row: NotificationRow; gateway: SmsGateway | null },
  policy: RetryPolicy,
  now: () => number,
): Promise<DeliveryOutcome> {
  const { row } = claimed;
  const base = { notification_id: row.id, attempts: row.attempts };
  try {
    await sendRow(db, channels, row, claimed.gateway);
  } catch (error) {
    const reason = describeError(error);
    const refused = error instanceof UnusableNumberError || (error instanceof SmsSendError && !error.transient);
    if (row.attempts >= policy.maxAttempts || refused) {
      await runner.run('write', () => markNotificationFailed(db, row.id, reason));
      return { ...base, outcome: 'failed', error: reason };
    }
    const nextAttemptAt = new Date(now() + retryDelayMs(policy, row.attempts)).toISOString();
    await runner.run('write', () => scheduleNotificationRetry(db, row.id, nextAttemptAt, reason));
    return { ...base, outcome: 'retry', error: reason };
  }
  // Waits out another process's lock: a sent row left unmarked would be sent again after its lease.
  await runner.run('write', () => markNotificationSent(db, row.id, new Date(now()).toISOString()));
  return { ...base, outcome: 'sent' };
}

/**
 * One delivery pass over the rows that are due: e-mail rows when there is a mailer, SMS rows when
 * there is a sender and the clinic has a gateway (read each pass: `sms-gateway set` reaches a
 * running server). Each is claimed (attempt counted), sent, then marked sent, or left pending
 * with a later next_attempt_at (exponential back-off), or marked failed after the last attempt.
 * Rows of a channel not set up stay pending. Sending happens outside any transaction, and never
 * touches a payment.
 */
export async function deliverDueNotifications(
  db: Db,
  runner: WorkRunner,
  channels: NotificationChannels,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  now: () => number = Date.now,
): Promise<DeliveryOutcome[]> {
  const outcomes: DeliveryOutcome[] = [];
  const gateway = channels.sendSms === null ? null : await runner.run('read', () => smsGateway(db));
  const ways = [...(channels.mailer === null ? [] : (['email'] as const)), ...(gateway === null ? [] : (['sms'] as const))];
  for (const channel of ways) {
    while (outcomes.length < policy.batchSize) {
      const started = now();
      // What it reads (the row due) decides what it writes (that row's lease): no other worker may
      // write between the two, so two workers never take one row.
      const claimed = await runner.run('read-then-write', () =>
        claimDueNotification(db, {
          channel,
          now: new Date(started).toISOString(),
          leaseUntil: new Date(started + policy.leaseMs).toISOString(),
          sendingNote: channel === 'sms' ? SMS_SENDING : null,
        }),
      );
      if (claimed === undefined) break;
      const { row, previousError } = claimed;
      if (previousError === SMS_SENDING && !dropsRepeats(gateway)) {
        await runner.run('write', () => markNotificationFailed(db, row.id, SMS_NOT_REPEATED));
        outcomes.push({ notification_id: row.id, outcome: 'failed', attempts: row.attempts, error: SMS_NOT_REPEATED });
        continue;
      }
      outcomes.push(await deliverOne(db, runner, channels, { row, gateway }, policy, now));
    }
  }
  return outcomes;
}
