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
  scheduledWithStart: db.prepare<[], { id: string; rule_ms: number; start_at: string; due_at: string }>(
    `SELECT r.id, r.rule_ms, a.start_at, r.due_at FROM reminders r JOIN appointments a ON a.id = r.appointment_id
     WHERE r.state = 'scheduled'`,
  ),
  moveDue: db.prepare<[string, string, string]>(`UPDATE reminders SET due_at = ?, updated_at = ? WHERE id = ? AND state = 'scheduled'`),
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

/** Every scheduled reminder with its appointment's start: what new quiet hours move. */
export function scheduledRemindersWithStart(db: Db): { id: string; rule_ms: number; start_at: string; due_at: string }[] {
  return statements(db).scheduledWithStart.all();
}

/** Ends a scheduled reminder without sending it (planning's own ends: skipped too_late). */
export function endScheduledReminder(db: Db, id: string, state: string, reason: string, now: string): void {
  endReminder(db, { id, state, reason, error: null, now });
}

export function moveReminderDue(db: Db, id: string, dueAt: string, now: string): void {
  statements(db).moveDue.run(dueAt, now, id);
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

type ReminderListParams = {
  from: string | null;
  to: string | null;
  states: string | null;
  patient_id: string | null;
  appointment_id: string | null;
  after_due_at: string;
  after_id: string;
  limit: number;
};

/**
 * One statement per index a filter can range over: the appointment's, or due_at. A patient's are
 * read through their appointments (appointments_by_patient, then reminders_by_appointment) and
 * sorted: a few per appointment, where an index of their own would cost every booking a page more.
 */
const REMINDER_LIST_FILTERS = {
  all: '',
  patient: 'AND r.appointment_id IN (SELECT id FROM appointments WHERE patient_id = @patient_id)',
  appointment: 'AND r.appointment_id = @appointment_id AND (@patient_id IS NULL OR r.patient_id = @patient_id)',
} as const;

const reminderListSql = (filter: keyof typeof REMINDER_LIST_FILTERS) => `
  SELECT r.*, a.appointment_number, p.patient_number
    FROM reminders r JOIN appointments a ON a.id = r.appointment_id JOIN patients p ON p.id = r.patient_id
   WHERE (@from IS NULL OR r.due_at >= @from) AND (@to IS NULL OR r.due_at < @to) AND p.erased_at IS NULL
     ${REMINDER_LIST_FILTERS[filter]}
     AND (@states IS NULL OR r.state IN (SELECT value FROM json_each(@states)))
     AND (r.due_at, r.id) > (@after_due_at, @after_id)
   ORDER BY r.due_at, r.id LIMIT @limit`;

const listStatements = preparedFor((db) => ({
  all: db.prepare<ReminderListParams, ListedReminderRow>(reminderListSql('all')),
  patient: db.prepare<ReminderListParams, ListedReminderRow>(reminderListSql('patient')),
  appointment: db.prepare<ReminderListParams, ListedReminderRow>(reminderListSql('appointment')),
}));

/** Reminders matching `filter` in (due_at, id) order, after `after`, at most `limit`. */
export function listReminderRows(db: Db, filter: ReminderFilter, after: ReminderCursor, limit: number): ListedReminderRow[] {
  const which = filter.appointmentId !== null ? 'appointment' : filter.patientId !== null ? 'patient' : 'all';
  return listStatements(db)[which].all({
    from: filter.from,
    to: filter.to,
    states: filter.states,
    patient_id: filter.patientId,
    appointment_id: filter.appointmentId,
    after_due_at: after.due_at,
    after_id: after.id,
    limit,
  });
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

const sendStatements = preparedFor((db) => ({
  dueBetween: db.prepare<{ from: string; to: string }, DueReminderRow>(
    `${WITH_MESSAGE_PARTS} WHERE r.due_at >= @from AND r.due_at < @to ORDER BY r.due_at, r.id`,
  ),
  due: db.prepare<{ now: string }, DueReminderRow>(
    `${WITH_MESSAGE_PARTS}
      WHERE r.state = 'scheduled' AND r.due_at <= @now
        AND (r.next_attempt_at IS NULL OR r.next_attempt_at <= @now) AND (r.lease_until IS NULL OR r.lease_until <= @now)
      ORDER BY r.due_at, r.id LIMIT 1`,
  ),
  lease: db.prepare<{
    id: string;
    lease_until: string;
    channel: string;
    recipient: string;
    subject: string | null;
    text: string;
    now: string;
  }>(
    `UPDATE reminders SET lease_until = @lease_until, attempts = attempts + 1, channel = @channel, recipient = @recipient,
            subject = @subject, text = @text, next_attempt_at = NULL, updated_at = @now
      WHERE id = @id`,
  ),
  end: db.prepare<{ id: string; state: string; reason: string | null; error: string | null; now: string }>(
    `UPDATE reminders SET state = @state, reason = @reason, error = COALESCE(@error, error), lease_until = NULL,
            next_attempt_at = NULL, updated_at = @now
      WHERE id = @id AND state = 'scheduled'`,
  ),
  sent: db.prepare<{ id: string; provider_message_id: string | null; now: string }>(
    `UPDATE reminders SET state = 'sent', reason = NULL, sent_at = @now, provider_message_id = @provider_message_id,
            lease_until = NULL, error = NULL, updated_at = @now
      WHERE id = @id AND state = 'scheduled'`,
  ),
  retry: db.prepare<{ id: string; next_attempt_at: string; error: string; now: string }>(
    `UPDATE reminders SET lease_until = NULL, next_attempt_at = @next_attempt_at, error = @error, updated_at = @now
      WHERE id = @id AND state = 'scheduled'`,
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

/** Holds a reminder while it is sent: its lease, one more attempt, and what is sent (kept as sent). */
export function leaseReminder(
  db: Db,
  lease: { id: string; lease_until: string; channel: string; recipient: string; subject: string | null; text: string; now: string },
): void {
  sendStatements(db).lease.run(lease);
}

/**
 * A reminder's final state other than sent (skipped, expired, failed), with its reason; false when
 * it had ended meanwhile (withdrawn while it was sent): a reminder has one final state.
 */
export function endReminder(db: Db, end: { id: string; state: string; reason: string | null; error: string | null; now: string }): boolean {
  return sendStatements(db).end.run(end).changes === 1;
}

/** A reminder the provider took; the appointment's first reminder is its confirmation_reminder_sent_at. */
export function markReminderSent(
  db: Db,
  sent: { id: string; appointment_id: string; provider_message_id: string | null; now: string },
): boolean {
  if (sendStatements(db).sent.run({ id: sent.id, provider_message_id: sent.provider_message_id, now: sent.now }).changes === 0)
    return false;
  sendStatements(db).firstSent.run({ appointment_id: sent.appointment_id, now: sent.now });
  return true;
}

/** A transient failure: the lease let go, the next try at `next_attempt_at`. */
export function retryReminder(db: Db, retry: { id: string; next_attempt_at: string; error: string; now: string }): void {
  sendStatements(db).retry.run(retry);
}
