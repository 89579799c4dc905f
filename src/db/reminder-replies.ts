import type { AppointmentRow } from './appointments.js';
import { APPOINTMENT_WITH_PATIENT } from './appointments.js';
import { preparedFor, type Db } from './open-database.js';
import { ENDED_LIST } from './reminders.js';

/** A `reminder_replies` row with the numbers a listing shows. */
export interface ReplyRow {
  id: string;
  provider_id: string;
  received_at: string;
  from_number: string;
  text: string;
  outcome: 'confirm' | 'decline' | 'unknown' | 'unmatched';
  appointment_id: string | null;
  patient_id: string | null;
  appointment_number?: string | null;
  patient_number?: string | null;
}

const statements = preparedFor((db) => ({
  insert: db.prepare<ReplyRow>(
    `INSERT INTO reminder_replies (id, provider_id, received_at, from_number, text, outcome, appointment_id, patient_id)
     VALUES (@id, @provider_id, @received_at, @from_number, @text, @outcome, @appointment_id, @patient_id)`,
  ),
  handled: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM reminder_replies WHERE provider_id = ?'),
  newest: db.prepare<[], { at: string | null }>('SELECT max(received_at) AS at FROM reminder_replies'),
  since: db.prepare<{ since: string; all: number }, ReplyRow>(
    `SELECT r.*, a.appointment_number, p.patient_number
       FROM reminder_replies r LEFT JOIN appointments a ON a.id = r.appointment_id LEFT JOIN patients p ON p.id = r.patient_id
      WHERE r.received_at >= @since AND (@all = 1 OR r.outcome IN ('unknown', 'unmatched'))
      ORDER BY r.received_at DESC, r.id DESC`,
  ),
  purge: db.prepare<[string]>('DELETE FROM reminder_replies WHERE received_at < ?'),
  // The nearest appointment to come, booked or a free status, with an SMS reminder sent to the number.
  concerned: db.prepare<{ number: string; now: string }, AppointmentRow>(
    `${APPOINTMENT_WITH_PATIENT}
      WHERE a.id IN (SELECT appointment_id FROM reminders WHERE state = 'sent' AND channel = 'sms' AND recipient = @number)
        AND a.start_at > @now AND a.status NOT IN (${ENDED_LIST})
      ORDER BY a.start_at, a.seq LIMIT 1`,
  ),
}));

export function insertReply(db: Db, reply: ReplyRow): void {
  statements(db).insert.run(reply);
}

/** Whether the gateway's message `providerId` was handled already. */
export function replyHandled(db: Db, providerId: string): boolean {
  return statements(db).handled.get(providerId) !== undefined;
}

/** When the newest reply handled arrived, or null before the first. */
export function newestReplyAt(db: Db): string | null {
  return statements(db).newest.get()?.at ?? null;
}

/** The replies since `since`, newest first: all, or those the desk must read (unknown, unmatched). */
export function listReplies(db: Db, since: string, all: boolean): ReplyRow[] {
  return statements(db).since.all({ since, all: all ? 1 : 0 });
}

/** Forgets the replies that arrived before `before`. */
export function purgeReplies(db: Db, before: string): number {
  return statements(db).purge.run(before).changes;
}

/** The appointment a reply from `number` concerns, if any. */
export function appointmentConcerned(db: Db, number: string, now: string): AppointmentRow | undefined {
  return statements(db).concerned.get({ number, now });
}
