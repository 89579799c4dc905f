import { serverActor } from '../audit/system-user.js';
import { hostname } from 'node:os';
import type { Db } from '../../db/open-database.js';
import { endReminder, findDueReminder, leaseReminder, markReminderSent, retryReminder, type DueReminderRow } from '../../db/reminders.js';
import { appendAuditEvents } from '../audit/record-audit.js';
import { appendChangeEvents } from '../changes/record-changes.js';
import { describeError, type NotificationChannels } from '../notifications/deliver-notifications.js';
import { clinicCountry, clinicName, clinicTimeZone } from '../settings.js';
import type { WorkRunner } from '../use-case.js';
import { wallClockAt } from '../validation/calendar.js';
import { e164Mobile } from './mobile-numbers.js';
import { reminderSettings, templatesInForce } from './reminder-settings.js';
import { renderTemplate } from './reminder-templates.js';
import { reminderUpdated } from './reminder-updated.js';
import { dropsRepeats, smsGateway, SmsSendError, type SmsGateway } from './sms-gateway.js';

/**
 * Sending the reminders that are due (interface 1.3.0, "Sending: clinic serve, nothing else"):
 * `clinic serve` alone, in passes a few seconds apart. Each reminder is decided and held in one
 * transaction (what is sent, to whom, by which channel, recorded before it leaves), sent outside
 * any transaction, and its outcome written in another. A reminder is never sent twice: it is
 * held (`lease_until`) while it is sent, and one whose lease ran out (the server stopped
 * mid-send) has an outcome nobody knows, so it is not sent again by e-mail (`outcome_unknown`).
 */

const MINUTE = 60_000;
/** How long a reminder is held while it is sent. */
export const LEASE_MS = 2 * MINUTE;
/** A reminder is sent within this long of its due time while a server runs; one due earlier than this before the server started was missed. */
const SEND_WITHIN_MS = MINUTE;
/**
 * A running server that reaches a reminder this late was not really running (the PC slept, the
 * database stayed locked): treated as missed. Far above a busy pass (a thousand due at once go
 * in half a minute).
 */
const LATE_AFTER_MS = 5 * MINUTE;
/** Reminders sent at once: a thousand due together go in seconds, not one gateway answer after another. */
export const PARALLEL_SENDS = 4;
/** A missed reminder still goes while its appointment is at least this far away; so do retries. */
const STILL_WORTH_MS = 60 * MINUTE;
/** Waits after the 1st, 2nd, … failed try; then hourly. */
const RETRY_WAITS_MIN = [1, 2, 4, 8, 16, 32, 60];

/** How a reminder can go: the e-mail of `serve --smtp-url`, and SMS through the clinic's gateway (`sms-gateway set`) by `sendSms`. */
export type ReminderChannels = NotificationChannels;

/** Which channels are set up now, as decide() weighs them. */
export interface ChannelsSetUp {
  email: boolean;
  /** The clinic's gateway, when SMS can be sent. */
  sms: SmsGateway | null;
}

/** What a pass did to one reminder (ids and states only: fit for the log). */
export interface ReminderOutcome {
  reminder_id: string;
  state: 'sent' | 'retry' | 'failed' | 'expired' | 'skipped';
  reason: string | null;
}

export { serverActor };

/** What to send for a reminder, or the final state it ends in without being sent. */
type Decision =
  | { end: 'skipped' | 'expired' | 'failed'; reason: string }
  | { channel: 'email'; to: string; subject: string; text: string }
  | { channel: 'sms'; to: string; subject: null; text: string };

/** `DD.MM.YYYY` and `HH:MM` of an instant in the clinic's zone. */
function localDateAndTime(iso: string, timeZone: string): { date: string; time: string } {
  const clock = wallClockAt(timeZone, Date.parse(iso));
  const two = (n: number) => String(n).padStart(2, '0');
  return { date: `${two(clock.day)}.${two(clock.month)}.${clock.year}`, time: `${two(clock.hour)}:${two(clock.minute)}` };
}

/**
 * What becomes of a due reminder now: expired when missed and its appointment is less than an
 * hour away; skipped for a patient who opted out, without an address, or with an address whose
 * channel the clinic has not set up; else the message, rendered from the templates in force.
 */
export function decide(db: Db, row: DueReminderRow, channels: ChannelsSetUp, now: number, runningSince: number = now): Decision {
  // Its lease ran out mid-send: only a gateway told the reminder's id drops a repeat, so only there it is tried again.
  if (row.lease_until !== null && !(row.channel === 'sms' && dropsRepeats(channels.sms)))
    return { end: 'failed', reason: 'outcome_unknown' };
  const away = Date.parse(row.start_at) - now;
  // Missed: its minute had passed before the server started, or it is reached far too late; one a
  // busy server reaches a little late still goes. None goes once its appointment has begun.
  const dueMs = Date.parse(row.due_at);
  const missed = dueMs + SEND_WITHIN_MS < runningSince || now - dueMs > LATE_AFTER_MS;
  if (row.attempts === 0 && ((missed && away < STILL_WORTH_MS) || away <= 0)) return { end: 'expired', reason: 'missed' };
  // A retry (or a repeat after a lost lease) goes only while the appointment is an hour away, also after a stop.
  if (row.attempts > 0 && away < STILL_WORTH_MS) return { end: 'failed', reason: 'retries_exhausted' };
  if (row.reminders_opt_out === 1) return { end: 'skipped', reason: 'opted_out' };
  const settings = reminderSettings(db);
  const mobile = settings.channel === 'email' ? null : e164Mobile(row.mobile, clinicCountry(db));
  const email = settings.channel === 'sms' || row.email === '' ? null : row.email;
  const channel = mobile !== null && channels.sms !== null ? 'sms' : email !== null && channels.email ? 'email' : undefined;
  if (channel === undefined) return { end: 'skipped', reason: mobile === null && email === null ? 'no_address' : 'no_channel' };
  const timeZone = clinicTimeZone(db);
  const templates = templatesInForce(db, settings);
  const values = {
    first_name: row.first_name,
    ...localDateAndTime(row.start_at, timeZone),
    clinic_name: clinicName(db) ?? '',
    doctor: row.doctor_name ?? '',
    code: row.appointment_number,
  };
  // A repeat after a lost lease goes only as it went before (the gateway drops it by its reference): same channel, same number.
  if (row.lease_until !== null && (channel !== 'sms' || mobile !== row.recipient)) return { end: 'failed', reason: 'outcome_unknown' };
  if (channel === 'sms') return { channel, to: mobile!, subject: null, text: renderTemplate(templates.sms, values) };
  return { channel, to: email!, subject: renderTemplate(templates.email_subject, values), text: renderTemplate(templates.email, values) };
}

/** An SMTP refusal (5xx) is final; a 4xx reply, no connection or no answer may pass on a later try. */
function isTransient(error: unknown): boolean {
  if (error instanceof SmsSendError) return error.transient;
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  if (typeof code === 'number') return code < 500;
  return (error as { code?: unknown } | null)?.code !== 'EENVELOPE';
}

/**
 * Takes the reminder due first and decides it, in one transaction: a final state is written at
 * once (with its feed event); a message is held for sending. Undefined when nothing is due.
 */
function claim(db: Db, channels: ReminderChannels, now: number, runningSince: number): Claimed | undefined {
  const at = new Date(now).toISOString();
  const row = findDueReminder(db, at);
  if (row === undefined) return undefined;
  const gateway = channels.sendSms === null ? null : smsGateway(db);
  const decision = decide(db, row, { email: channels.mailer !== null, sms: gateway }, now, runningSince);
  if ('end' in decision) {
    endReminder(db, { seq: row.seq, state: decision.end, reason: decision.reason, error: null, now: at });
    appendChangeEvents(db, [reminderUpdated(row, decision.end, decision.reason, row.channel)]);
  } else {
    leaseReminder(db, {
      seq: row.seq,
      lease_until: new Date(now + LEASE_MS).toISOString(),
      channel: decision.channel,
      recipient: decision.to,
      subject: decision.subject,
      text: decision.text,
      now: at,
    });
  }
  return { row, decision, gateway };
}

/** A reminder taken: what was decided, and the gateway of the moment for an SMS. */
interface Claimed {
  row: DueReminderRow;
  decision: Decision;
  gateway: SmsGateway | null;
}

/** Sends one held reminder by its channel: the provider's id of it. */
async function deliver(channels: ReminderChannels, claimed: Claimed, message: Exclude<Decision, { end: string }>): Promise<string | null> {
  if (message.channel === 'sms')
    return channels.sendSms!(claimed.gateway!, { to: message.to, text: message.text, reference: claimed.row.id });
  const messageId = `<${claimed.row.id}@${hostname()}>`;
  await channels.mailer!.send({ to: message.to, subject: message.subject, text: message.text, messageId });
  return messageId;
}

/** Sends one held reminder and writes what came of it. */
async function send(db: Db, runner: WorkRunner, channels: ReminderChannels, claimed: Claimed, now: () => number): Promise<ReminderOutcome> {
  const { row } = claimed;
  const message = claimed.decision as Exclude<Decision, { end: string }>;
  let providerId: string | null;
  try {
    providerId = await deliver(channels, claimed, message);
  } catch (error) {
    const failedAt = now();
    const error500 = describeError(error);
    const wait = (RETRY_WAITS_MIN[row.attempts] ?? 60) * MINUTE;
    const retry = isTransient(error) && Date.parse(row.start_at) - (failedAt + wait) >= STILL_WORTH_MS;
    const at = new Date(failedAt).toISOString();
    if (retry) {
      await runner.run('write', () =>
        retryReminder(db, { seq: row.seq, next_attempt_at: new Date(failedAt + wait).toISOString(), error: error500, now: at }),
      );
      return { reminder_id: row.id, state: 'retry', reason: null };
    }
    const reason = isTransient(error) ? 'retries_exhausted' : 'rejected';
    await runner.run('write', () => {
      // Withdrawn while it was tried (a cancel meanwhile): it keeps that one final state.
      if (endReminder(db, { seq: row.seq, state: 'failed', reason, error: error500, now: at })) {
        appendChangeEvents(db, [reminderUpdated(row, 'failed', reason, message.channel)]);
      }
    });
    return { reminder_id: row.id, state: 'failed', reason };
  }
  const sentAt = new Date(now()).toISOString();
  // Waits out another process's lock: a sent reminder left unmarked would end as outcome_unknown.
  await runner.run('write', () => {
    // Withdrawn while it was sent: the row keeps its one final state, but the message went out, so the trail says so.
    if (markReminderSent(db, { seq: row.seq, appointment_id: row.appointment_id, provider_message_id: providerId, now: sentAt })) {
      appendChangeEvents(db, [reminderUpdated(row, 'sent', null, message.channel)]);
    }
    appendAuditEvents(db, serverActor(), [{ action: 'reminder.send', patientId: row.patient_id, subjectId: row.id, detail: null }]);
  });
  return { reminder_id: row.id, state: 'sent', reason: null };
}

/** How a pass runs: its clock, when the server began sending (what was due before is missed), and when to stop taking reminders. */
export interface SendOptions {
  now?: () => number;
  /** When this sender started (the server's start): a reminder due a minute before it was missed. Default: the pass's start. */
  runningSince?: number;
  /** Aborted when the server stops: sends in flight finish, no further reminder is taken. */
  signal?: AbortSignal;
  parallel?: number;
}

/**
 * One pass: every reminder due now, each decided, sent or ended, until none is due or `signal`
 * is aborted. Up to `parallel` are sent at once; taking one is a transaction of its own, so two
 * never take the same reminder. A pass ends: each reminder taken ends final or waits for a later
 * retry.
 */
export async function sendDueReminders(
  db: Db,
  runner: WorkRunner,
  channels: ReminderChannels,
  options: SendOptions = {},
): Promise<ReminderOutcome[]> {
  const { now = Date.now, parallel = PARALLEL_SENDS } = options;
  const runningSince = options.runningSince ?? now();
  // A lane that fails (the database stayed locked, say) stops the others taking more; each
  // finishes what it holds, so the pass ends with nothing in flight.
  const failed = new AbortController();
  const stopped = () => options.signal?.aborted === true || failed.signal.aborted;
  const outcomes: ReminderOutcome[] = [];
  const lane = async () => {
    while (!stopped()) {
      // A look first, without the write lock: most passes find nothing due.
      if ((await runner.run('read', () => findDueReminder(db, new Date(now()).toISOString()))) === undefined) return;
      // What it reads (the due row) decides what it writes (the row's lease or end): no other
      // writer may come between, so two servers never take one reminder.
      const claimed = await runner.run('read-then-write', () => claim(db, channels, now(), runningSince));
      if (claimed === undefined) return;
      const { row, decision } = claimed;
      if ('end' in decision) outcomes.push({ reminder_id: row.id, state: decision.end, reason: decision.reason });
      else outcomes.push(await send(db, runner, channels, claimed, now));
    }
  };
  const lanes = await Promise.allSettled(
    Array.from({ length: parallel }, () =>
      lane().catch((error: unknown) => {
        failed.abort();
        throw error;
      }),
    ),
  );
  const failure = lanes.find((settled) => settled.status === 'rejected');
  if (failure !== undefined) throw (failure as PromiseRejectedResult).reason;
  return outcomes;
}
