import type { Db } from '../../db/open-database.js';
import {
  appointmentConcerned,
  insertReply,
  listReplies,
  newestReplyAt,
  purgeReplies,
  replyHandled,
  type ReplyRow,
} from '../../db/reminder-replies.js';
import { field } from '../../fields/field-spec.js';
import { answerChanges, answerForPatient, answerRecords } from '../appointments/confirm-appointment.js';
import { appendAuditEvents } from '../audit/record-audit.js';
import { perDistinctPatient } from '../audit/record-audit.js';
import { appendChangeEvents } from '../changes/record-changes.js';
import { newId } from '../clock.js';
import { ROLE_ROWS } from '../people/roles.js';
import { clinicCountry } from '../settings.js';
import { defineUseCase } from '../use-case.js';
import { e164Mobile } from './mobile-numbers.js';
import { serverActor } from './send-reminders.js';
import { smsGateway, type SmsGateway } from './sms-gateway.js';
import type { WorkRunner } from '../use-case.js';

/**
 * Replies to SMS reminders (interface 1.3.0, "Channels and replies"): read by `clinic serve` from
 * the gateway, outbound only, each message once. A reply that says yes or no confirms or declines
 * the nearest appointment to come whose SMS reminder went to that number; anything else waits for
 * the desk (`clinic reminders replies`).
 */

const DAY = 86_400_000;
/** How long replies are kept, and how far back the desk's list reaches by default. */
export const REPLIES_KEPT_MS = 90 * DAY;
const REPLIES_SHOWN_MS = 30 * DAY;

const CONFIRM_WORDS = new Set(['C', 'J', 'JA', 'YES', 'OK']);
const DECLINE_WORDS = new Set(['X', 'N', 'NEIN', 'NO', 'STORNO']);

/** What a reply's text says: confirm, decline, or unknown. Trimmed of white space and punctuation, in any case. */
export function answerOf(text: string): 'confirm' | 'decline' | 'unknown' {
  const word = text.replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, '').toUpperCase();
  if (CONFIRM_WORDS.has(word)) return 'confirm';
  if (DECLINE_WORDS.has(word)) return 'decline';
  return 'unknown';
}

/** One message the gateway has for the clinic. */
export interface IncomingReply {
  providerId: string;
  from: string;
  text: string;
  receivedAt: string;
}

/**
 * Handles one reply, in its transaction: nothing when it was handled before; else recorded with
 * its outcome, and a yes or no written on the appointment it concerns (appointment.confirm or
 * .decline by `clinic serve`, `via` sms; a reply that changes nothing records nothing more).
 */
export function handleReply(db: Db, reply: IncomingReply, now: string): ReplyRow | undefined {
  if (replyHandled(db, reply.providerId)) return undefined;
  const number = e164Mobile(reply.from, clinicCountry(db)) ?? reply.from;
  const appointment = appointmentConcerned(db, number, now);
  const said = answerOf(reply.text);
  const outcome = appointment === undefined ? 'unmatched' : said;
  const row: ReplyRow = {
    id: newId(),
    provider_id: reply.providerId,
    received_at: reply.receivedAt,
    from_number: number,
    text: reply.text.slice(0, 2000),
    outcome,
    appointment_id: appointment?.id ?? null,
    patient_id: appointment?.patient_id ?? null,
  };
  insertReply(db, row);
  if (appointment !== undefined && (said === 'confirm' || said === 'decline')) {
    const answered = answerForPatient(db, appointment, said, 'sms');
    appendChangeEvents(db, answerChanges(answered));
    appendAuditEvents(db, serverActor(), answerRecords(answered));
  }
  return row;
}

/** Where the next reading of replies starts: the newest reply handled (first: a day ago). */
export function repliesSince(db: Db, now: number): Date {
  const newest = newestReplyAt(db);
  return new Date(newest === null ? now - DAY : Date.parse(newest));
}

/** Asks the gateway for the replies it holds since a time (the adapter: sms-gateway-client.ts). */
export type ReplyFetcher = (gateway: SmsGateway, since: Date, now: number) => Promise<IncomingReply[]>;

/**
 * One reading of replies: from the gateway, since the newest handled, each handled in its own
 * transaction (so one that fails leaves the others done), then the old ones forgotten. Replies are
 * remembered by the preset and the gateway's id. Nothing without a gateway that has replies.
 */
export async function readReplies(
  db: Db,
  runner: WorkRunner,
  fetchReplies: ReplyFetcher,
  now: () => number = Date.now,
): Promise<ReplyRow[]> {
  const gateway = await runner.run('read', () => smsGateway(db));
  if (gateway === null || (gateway.preset === 'generic' && gateway.inboundUrl === null)) return [];
  const started = now();
  const since = await runner.run('read', () => repliesSince(db, started));
  const handled: ReplyRow[] = [];
  let failure: unknown;
  for (const reply of await fetchReplies(gateway, since, started)) {
    try {
      const row = await runner.run('read-then-write', () =>
        handleReply(db, { ...reply, providerId: `${gateway.preset}:${reply.providerId}` }, new Date(now()).toISOString()),
      );
      if (row !== undefined) handled.push(row);
    } catch (error) {
      // The others are handled; this one is asked for again next pass (it was not remembered).
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
  await runner.run('write', () => purgeOldReplies(db, started));
  return handled;
}

/** Forgets replies older than 90 days. */
export const purgeOldReplies = (db: Db, now: number) => purgeReplies(db, new Date(now - REPLIES_KEPT_MS).toISOString());

/** A reply as `reminders replies --json` gives it. */
export interface Reply {
  id: string;
  received_at: string;
  from: string;
  text: string;
  outcome: ReplyRow['outcome'];
  appointment_id: string | null;
  appointment_number: string | null;
  patient_id: string | null;
  patient_number: string | null;
}

/**
 * `clinic reminders replies [--all]`: the last 30 days' replies the desk must read (unknown and
 * unmatched), or with `all` every outcome, newest first. Each patient shown is recorded
 * (`reminder.read`).
 */
export const LIST_REPLIES = defineUseCase({
  roles: ROLE_ROWS.readReminders,
  summary: 'The replies to SMS reminders the desk must read (unknown, unmatched), newest first',
  input: { query: [field.boolean('all', { description: 'every outcome, confirmations and declines too' })] },
  refusals: [],
  access: 'read',
  run: (db, { query }): Reply[] =>
    listReplies(db, new Date(Date.now() - REPLIES_SHOWN_MS).toISOString(), query.all === true).map((row) => ({
      id: row.id,
      received_at: row.received_at,
      from: row.from_number,
      text: row.text,
      outcome: row.outcome,
      appointment_id: row.appointment_id,
      appointment_number: row.appointment_number ?? null,
      patient_id: row.patient_id,
      patient_number: row.patient_number ?? null,
    })),
  audit: (replies) => perDistinctPatient(replies, (reply) => reply.patient_id, { action: 'reminder.read' }),
});
