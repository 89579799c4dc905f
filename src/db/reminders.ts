import type { Statement } from './drivers/sqlite-driver.js';
import { preparedFor, type Db } from './open-database.js';

/** A `reminders` row (schema.sql). */
export interface ReminderRow {
  seq: number;
  id: string;
  appointment_id: string;
  patient_id: string;
  rule_ms: number;
  due_at: string;
  state: string;
  reason: string | null;
  channel: string | null;
  recipient: string | null;
  subject: string | null;
  text: string | null;
  attempts: number;
  next_attempt_at: string | null;
  lease_until: string | null;
  sent_at: string | null;
  provider_message_id: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** A reminder as planned: the columns a new row is given. */
export type PlannedReminder = Pick<
  ReminderRow,
  'id' | 'appointment_id' | 'patient_id' | 'rule_ms' | 'due_at' | 'state' | 'reason' | 'created_at'
>;

/** A future appointment reminders may be planned for: a patient's, neither held nor ended. */
export interface PlannableAppointment {
  id: string;
  patient_id: string;
  start_at: string;
}

/** The statuses after which no reminder is due; every other (booked, a 1.0.0 free string) has them. */
export const ENDED_STATUSES = ['cancelled', 'no_show', 'arrived', 'completed'] as const;
/** The ended statuses as an SQL list, for `status NOT IN (…)`. */
export const ENDED_LIST = ENDED_STATUSES.map((status) => `'${status}'`).join(', ');

/** Whether an appointment in `status` is past reminding and answering: cancelled, no-show, arrived or completed. */
export const hasEnded = (status: string) => (ENDED_STATUSES as readonly string[]).includes(status);

const statements = preparedFor((db) => ({
  withdrawOfAppointment: db.prepare<[string, string, string]>(
    `UPDATE reminders SET state = 'withdrawn', reason = ?, updated_at = ? WHERE appointment_id = ? AND state = 'scheduled'`,
  ),
  withdrawOfRule: db.prepare<[string, number]>(
    `UPDATE reminders SET state = 'withdrawn', reason = 'rules_changed', updated_at = ? WHERE state = 'scheduled' AND rule_ms = ?`,
  ),
  scheduledWithStart: db.prepare<[], ScheduledReminder>(
    `SELECT r.seq, r.id, r.appointment_id, a.appointment_number, r.patient_id, r.channel, r.rule_ms, a.start_at, r.due_at
       FROM reminders r JOIN appointments a ON a.id = r.appointment_id
      WHERE r.state = 'scheduled'`,
  ),
  moveDue: db.prepare<[string, string, number]>(`UPDATE reminders SET due_at = ?, updated_at = ? WHERE seq = ? AND state = 'scheduled'`),
  plannable: db.prepare<[string], PlannableAppointment>(
    `SELECT id, patient_id, start_at FROM appointments
     WHERE start_at > ? AND patient_id IS NOT NULL AND status NOT IN (${ENDED_LIST})
     ORDER BY start_at`,
  ),
}));

const REMINDER_COLUMNS = [
  'id',
  'appointment_id',
  'patient_id',
  'rule_ms',
  'due_at',
  'state',
  'reason',
  'created_at',
  'created_at',
] as const;

/** One INSERT of `count` rows, prepared once per connection and count (a clinic has 1 to 5 rules). */
const insertManyStatements = preparedFor(() => new Map<number, Statement<unknown[]>>());

/** The reminders of one appointment, in one statement: a booking with rules pays for one call, not one per rule. */
export function insertReminders(db: Db, reminders: readonly PlannedReminder[]): void {
  if (reminders.length === 0) return;
  const byCount = insertManyStatements(db);
  let insert = byCount.get(reminders.length);
  if (insert === undefined) {
    const row = `(${REMINDER_COLUMNS.map(() => '?').join(', ')})`;
    insert = db.prepare<unknown[]>(
      `INSERT INTO reminders (id, appointment_id, patient_id, rule_ms, due_at, state, reason, created_at, updated_at)
       VALUES ${reminders.map(() => row).join(', ')}`,
    );
    byCount.set(reminders.length, insert);
  }
  insert.run(...reminders.flatMap((reminder) => REMINDER_COLUMNS.map((column) => reminder[column])));
}

/** Withdraws an appointment's scheduled reminders with `reason`; how many there were. */
export function withdrawScheduledReminders(db: Db, appointmentId: string, reason: string, now: string): number {
  return statements(db).withdrawOfAppointment.run(reason, now, appointmentId).changes;
}

/** Withdraws every scheduled reminder of a rule the clinic removed (`rules_changed`). */
export function withdrawScheduledOfRule(db: Db, ruleMs: number, now: string): number {
  return statements(db).withdrawOfRule.run(now, ruleMs).changes;
}

/** A scheduled reminder (its row, seq) with its appointment's start. */
export interface ScheduledReminder {
  seq: number;
  id: string;
  appointment_id: string;
  appointment_number: string;
  patient_id: string;
  channel: string | null;
  rule_ms: number;
  start_at: string;
  due_at: string;
}

/** Every scheduled reminder with its appointment's start: what new quiet hours move. */
export function scheduledRemindersWithStart(db: Db): ScheduledReminder[] {
  return statements(db).scheduledWithStart.all();
}

/** Ends a scheduled reminder without sending it (planning's own ends: skipped too_late). */
export function endScheduledReminder(db: Db, seq: number, state: string, reason: string, now: string): void {
  endReminder(db, { seq, state, reason, error: null, now });
}

export function moveReminderDue(db: Db, seq: number, dueAt: string, now: string): void {
  statements(db).moveDue.run(dueAt, now, seq);
}

/** The appointments starting after `now` that reminders are planned for (a patient's, not ended), by start. */
export function plannableAppointments(db: Db, now: string): PlannableAppointment[] {
  return statements(db).plannable.all(now);
}

/** A reminder with the numbers its response names. */
export interface ListedReminderRow extends ReminderRow {
  appointment_number: string;
  patient_number: string;
}

/** Which reminders to list: each filter null when not given. */
export interface ReminderFilter {
  /** [from, to) of due_at (a clinic day), or null. */
  from: string | null;
  to: string | null;
  /** A JSON array of states, or null for all. */
  states: string | null;
  patientId: string | null;
  appointmentId: string | null;
}

/** Where a page starts: strictly after this (due_at, id). */
export interface ReminderCursor {
  due_at: string;
  id: string;
}

export const BEFORE_FIRST_REMINDER: ReminderCursor = { due_at: '', id: '' };

/** The states a reminder may be in (schema.sql's CHECK), each its own range of reminders_by_state_due. */
export const REMINDER_STATES = ['scheduled', 'sent', 'failed', 'withdrawn', 'expired', 'skipped'] as const;

/** Past every due_at (ISO text starts with a digit): the upper bound of a list without a day. */
const AFTER_EVERY_DUE = '~';

const LISTED_REMINDER = `SELECT r.*, a.appointment_number, p.patient_number
    FROM reminders r JOIN appointments a ON a.id = r.appointment_id JOIN patients p ON p.id = r.patient_id`;

/**
 * An appointment's or a patient's reminders: read through the appointment (reminders_by_appointment;
 * a patient's through appointments_by_patient first) and sorted, a few per appointment.
 */
const BY_APPOINTMENT_FILTERS = {
  patient: 'r.appointment_id IN (SELECT id FROM appointments WHERE patient_id = @patient_id)',
  appointment: 'r.appointment_id = @appointment_id AND (@patient_id IS NULL OR r.patient_id = @patient_id)',
} as const;

const byAppointmentSql = (filter: keyof typeof BY_APPOINTMENT_FILTERS) => `
  ${LISTED_REMINDER}
   WHERE ${BY_APPOINTMENT_FILTERS[filter]} AND r.due_at < @to AND p.erased_at IS NULL
     AND (@states IS NULL OR r.state IN (SELECT value FROM json_each(@states)))
     AND (r.due_at, r.id) > (@after_due_at, @after_id)
   ORDER BY r.due_at, r.id LIMIT @limit`;

/**
 * Every reminder of the listed states by (due_at, id): one part per state, each read in due_at
 * order from reminders_by_state_due from the cursor on (those due at the same instant sorted by
 * id), merged by SQLite (a compound's ORDER BY is a merge of its parts), so a page costs a seek
 * per state and its rows, however many reminders there are. One index serves this and the
 * sender; each more, or the id in this one, cost a booking pages to write (schema.sql).
 */
const byDueSql = (states: readonly string[]) =>
  `${states
    .map(
      (state) => `
  ${LISTED_REMINDER}
   WHERE r.state = '${state}' AND (r.due_at, r.id) > (@after_due_at, @after_id) AND r.due_at < @to AND p.erased_at IS NULL`,
    )
    .join('\n  UNION ALL')}
   ORDER BY due_at, id LIMIT @limit`;

type ListParams = {
  to: string;
  states: string | null;
  patient_id: string | null;
  appointment_id: string | null;
  after_due_at: string;
  after_id: string;
  limit: number;
};

/**
 * Which statement lists `filter`: through the appointment or the patient, or by due for a set of
 * states (in REMINDER_STATES order, joined by commas: at most 63 sets); null when no state is wanted.
 */
function listKeyOf(filter: ReminderFilter): string | null {
  if (filter.appointmentId !== null) return 'appointment';
  if (filter.patientId !== null) return 'patient';
  if (filter.states === null) return REMINDER_STATES.join(',');
  const wanted = JSON.parse(filter.states) as string[];
  const states = REMINDER_STATES.filter((state) => wanted.includes(state));
  return states.length === 0 ? null : states.join(',');
}

const listSqlOf = (key: string) => (key === 'appointment' || key === 'patient' ? byAppointmentSql(key) : byDueSql(key.split(',')));

/** The list statements of a connection, each prepared on its first use. */
const listStatements = preparedFor(() => new Map<string, Statement<ListParams, ListedReminderRow>>());

/** The values of a list's statement: a day's start is a cursor too (the first reminder at or after it is after (from, '')). */
function listParams(filter: ReminderFilter, after: ReminderCursor, limit: number): ListParams {
  const start = filter.from !== null && filter.from > after.due_at ? { due_at: filter.from, id: '' } : after;
  return {
    to: filter.to ?? AFTER_EVERY_DUE,
    states: filter.states,
    patient_id: filter.patientId,
    appointment_id: filter.appointmentId,
    after_due_at: start.due_at,
    after_id: start.id,
    limit,
  };
}

/** Reminders matching `filter` in (due_at, id) order, after `after`, at most `limit`. */
export function listReminderRows(db: Db, filter: ReminderFilter, after: ReminderCursor, limit: number): ListedReminderRow[] {
  const key = listKeyOf(filter);
  if (key === null) return [];
  const statements = listStatements(db);
  let statement = statements.get(key);
  if (statement === undefined) {
    statement = db.prepare<ListParams, ListedReminderRow>(listSqlOf(key));
    statements.set(key, statement);
  }
  return statement.all(listParams(filter, after, limit));
}

/** SQLite's plan for listReminderRows(filter), one line per step (tests prove each list reads an index). */
export function explainReminderList(db: Db, filter: ReminderFilter): string[] {
  const key = listKeyOf(filter);
  if (key === null) return [];
  return db
    .prepare<ListParams, { detail: string }>(`EXPLAIN QUERY PLAN ${listSqlOf(key)}`)
    .all(listParams(filter, BEFORE_FIRST_REMINDER, 1))
    .map((step) => step.detail);
}

/** What the sender needs of a due reminder: the row, its appointment and its patient. */
export interface DueReminderRow extends ReminderRow {
  appointment_number: string;
  start_at: string;
  status: string;
  doctor_name: string | null;
  patient_number: string;
  first_name: string;
  email: string | null;
  mobile: string | null;
  reminders_opt_out: number;
}

/** A reminder with what its message is made of: the appointment, its doctor, the patient. */
const WITH_MESSAGE_PARTS = `SELECT r.*, a.appointment_number, a.start_at, a.status, d.name AS doctor_name,
            p.patient_number, p.first_name, p.email, p.mobile, p.reminders_opt_out
       FROM reminders r JOIN appointments a ON a.id = r.appointment_id JOIN patients p ON p.id = r.patient_id
       LEFT JOIN doctors d ON d.id = a.resource_id`;

/** The scheduled reminder due first, not held by a lease nor waiting for its next try. */
const DUE_REMINDER_SQL = `${WITH_MESSAGE_PARTS}
      WHERE r.state = 'scheduled' AND r.due_at <= @now
        AND (r.next_attempt_at IS NULL OR r.next_attempt_at <= @now) AND (r.lease_until IS NULL OR r.lease_until <= @now)
      ORDER BY r.due_at, r.id LIMIT 1`;

const sendStatements = preparedFor((db) => ({
  // One clinic day: the day's range of each state in reminders_by_state_due, sorted (a day's reminders).
  dueBetween: db.prepare<{ from: string; to: string }, DueReminderRow>(
    `${WITH_MESSAGE_PARTS} WHERE r.state IN (${REMINDER_STATES.map((state) => `'${state}'`).join(', ')})
        AND r.due_at >= @from AND r.due_at < @to ORDER BY r.due_at, r.id`,
  ),
  due: db.prepare<{ now: string }, DueReminderRow>(DUE_REMINDER_SQL),
  lease: db.prepare<{
    seq: number;
    lease_until: string;
    channel: string;
    recipient: string;
    subject: string | null;
    text: string;
    now: string;
  }>(
    `UPDATE reminders SET lease_until = @lease_until, attempts = attempts + 1, channel = @channel, recipient = @recipient,
            subject = @subject, text = @text, next_attempt_at = NULL, updated_at = @now
      WHERE seq = @seq`,
  ),
  end: db.prepare<{ seq: number; state: string; reason: string | null; error: string | null; now: string }>(
    `UPDATE reminders SET state = @state, reason = @reason, error = COALESCE(@error, error), lease_until = NULL,
            next_attempt_at = NULL, updated_at = @now
      WHERE seq = @seq AND state = 'scheduled'`,
  ),
  sent: db.prepare<{ seq: number; provider_message_id: string | null; now: string }>(
    `UPDATE reminders SET state = 'sent', reason = NULL, sent_at = @now, provider_message_id = @provider_message_id,
            lease_until = NULL, error = NULL, updated_at = @now
      WHERE seq = @seq AND state = 'scheduled'`,
  ),
  retry: db.prepare<{ seq: number; next_attempt_at: string; error: string; now: string }>(
    `UPDATE reminders SET lease_until = NULL, next_attempt_at = @next_attempt_at, error = @error, updated_at = @now
      WHERE seq = @seq AND state = 'scheduled'`,
  ),
  firstSent: db.prepare<{ appointment_id: string; now: string }>(
    `UPDATE appointments SET confirmation_reminder_sent_at = @now WHERE id = @appointment_id AND confirmation_reminder_sent_at IS NULL`,
  ),
}));

/** Every reminder due in [from, to), in any state, with what its message is made of. */
export function remindersDueBetween(db: Db, from: string, to: string): DueReminderRow[] {
  return sendStatements(db).dueBetween.all({ from, to });
}

/** The scheduled reminder due first at `now`, not held by a lease nor waiting for its next try. */
export function findDueReminder(db: Db, now: string): DueReminderRow | undefined {
  return sendStatements(db).due.get({ now });
}

/** SQLite's plan for findDueReminder (a test proves the sender reads the scheduled ones alone, in order). */
export function explainDueReminder(db: Db): string[] {
  return db
    .prepare<{ now: string }, { detail: string }>(`EXPLAIN QUERY PLAN ${DUE_REMINDER_SQL}`)
    .all({ now: new Date(0).toISOString() })
    .map((step) => step.detail);
}

/** Holds a reminder while it is sent: its lease, one more attempt, and what is sent (kept as sent). */
export function leaseReminder(
  db: Db,
  lease: { seq: number; lease_until: string; channel: string; recipient: string; subject: string | null; text: string; now: string },
): void {
  sendStatements(db).lease.run(lease);
}

/**
 * A reminder's final state other than sent (skipped, expired, failed), with its reason; false when
 * it had ended meanwhile (withdrawn while it was sent): a reminder has one final state.
 */
export function endReminder(
  db: Db,
  end: { seq: number; state: string; reason: string | null; error: string | null; now: string },
): boolean {
  return sendStatements(db).end.run(end).changes === 1;
}

/** A reminder the provider took; the appointment's first reminder is its confirmation_reminder_sent_at. */
export function markReminderSent(
  db: Db,
  sent: { seq: number; appointment_id: string; provider_message_id: string | null; now: string },
): boolean {
  if (sendStatements(db).sent.run({ seq: sent.seq, provider_message_id: sent.provider_message_id, now: sent.now }).changes === 0)
    return false;
  sendStatements(db).firstSent.run({ appointment_id: sent.appointment_id, now: sent.now });
  return true;
}

/** A transient failure: the lease let go, the next try at `next_attempt_at`. */
export function retryReminder(db: Db, retry: { seq: number; next_attempt_at: string; error: string; now: string }): void {
  sendStatements(db).retry.run(retry);
}
