import { BEFORE_FIRST_REMINDER, listReminderRows, type ListedReminderRow } from '../../db/reminders.js';
import type { Db } from '../../db/open-database.js';
import type { ResponseOf, ValuesOf } from '../../fields/field-spec.js';
import { REMINDER_LIST_QUERY_FIELDS, REMINDER_STATES, type REMINDER_FIELDS } from '../../fields/reminder-fields.js';
import { perDistinctPatient } from '../audit/record-audit.js';
import { durationText } from '../durations.js';
import { cursorIssues, decodeCursor, DEFAULT_PAGE_LIMIT, pageOf, type Page } from '../pagination.js';
import { ROLE_ROWS } from '../people/roles.js';
import { clinicTimeZone } from '../settings.js';
import { defineUseCase } from '../use-case.js';
import { commaListIssues, commaListOf } from '../validation/comma-list.js';
import { nextDay, parseDate, startOfDay } from '../validation/calendar.js';

/** The Reminder of GET /reminders (interface 1.3.0). */
export type Reminder = ResponseOf<typeof REMINDER_FIELDS>;

/** A stored reminder in its API shape. */
export function presentReminder(row: ListedReminderRow): Reminder {
  return {
    id: row.id,
    appointment_id: row.appointment_id,
    appointment_number: row.appointment_number,
    patient_id: row.patient_id,
    patient_number: row.patient_number,
    rule: durationText(row.rule_ms),
    due_at: row.due_at,
    state: row.state as Reminder['state'],
    reason: row.reason,
    channel: row.channel as Reminder['channel'],
    to: row.recipient,
    subject: row.subject,
    text: row.text,
    attempts: row.attempts,
    next_attempt_at: row.next_attempt_at,
    sent_at: row.sent_at,
    provider_message_id: row.provider_message_id,
    error: row.error,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const CURSOR = 'reminders';
const CURSOR_SHAPE = ['string', 'string'] as const;

/** The reminders a query asks for, one page after its cursor. */
export function reminderPage(db: Db, query: ValuesOf<typeof REMINDER_LIST_QUERY_FIELDS>): Page<Reminder> {
  const day = query.date === undefined ? undefined : parseDate(query.date);
  const timeZone = clinicTimeZone(db);
  const [dueAt, id] =
    query.after === undefined ? [BEFORE_FIRST_REMINDER.due_at, BEFORE_FIRST_REMINDER.id] : decodeCursor(query.after, CURSOR, CURSOR_SHAPE);
  const states = commaListOf(query.state);
  const filter = {
    from: day === undefined ? null : startOfDay(day, timeZone),
    to: day === undefined ? null : startOfDay(nextDay(day), timeZone),
    states: states === null ? null : JSON.stringify(states),
    patientId: query.patient_id ?? null,
    appointmentId: query.appointment_id ?? null,
  };
  const size = query.limit ?? DEFAULT_PAGE_LIMIT;
  const rows = listReminderRows(db, filter, { due_at: dueAt as string, id: id as string }, size + 1);
  return pageOf(rows, size, CURSOR, (row) => [row.due_at, row.id], presentReminder);
}

/**
 * GET /reminders (listReminders, interface 1.3.0): the planned and past reminders, by when they
 * are due, one page at a time; of one clinic day, states, patient or appointment. Each patient
 * shown is recorded once (`reminder.read`): a reminder names an appointment and its time.
 */
export const LIST_REMINDERS = defineUseCase({
  roles: ROLE_ROWS.readReminders,
  summary: 'List the reminders, by when they are due',
  input: { query: REMINDER_LIST_QUERY_FIELDS },
  refusals: [],
  access: 'read',
  moreIssues: ({ query }, fieldIssues) => [
    ...commaListIssues(query, fieldIssues, { field: 'state', allowed: REMINDER_STATES, none: 'name at least one state' }).map((found) => ({
      ...found,
      loc: ['query', ...found.loc.slice(1)],
    })),
    ...cursorIssues(query, CURSOR, CURSOR_SHAPE),
  ],
  run: (db, { query }) => reminderPage(db, query),
  audit: (page) => perDistinctPatient(page.items, (reminder) => reminder.patient_id, { action: 'reminder.read' }),
});
