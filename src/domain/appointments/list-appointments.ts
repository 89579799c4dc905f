import { BEFORE_FIRST_APPOINTMENT, findAppointment, listAppointmentRows, type AppointmentFilter } from '../../db/appointments.js';
import type { Db } from '../../db/open-database.js';
import { APPOINTMENT_PATH_FIELDS, APPOINTMENT_WINDOW_FIELDS } from '../../fields/appointment-fields.js';
import { pageQueryFields } from '../../fields/page-fields.js';
import { errors, ValidationError } from '../../errors.js';
import { cursorIssues, decodeCursor, DEFAULT_PAGE_LIMIT, pageOf, type Page } from '../pagination.js';
import { clinicTimeZone } from '../settings.js';
import { localDateOf, nextDay, parseDate, startOfDay } from '../validation/calendar.js';
import { problems } from '../validation/problems.js';
import { issue, throwIfIssues } from '../validation/validate.js';
import { defineUseCase, performUseCase } from '../use-case.js';
import { field, type ValuesOf } from '../../fields/field-spec.js';
import { presentStoredAppointment, type Appointment } from './present-appointment.js';
import { commaListOf } from '../validation/comma-list.js';
import { isIssue, windowEnd, windowEndIssues, type WindowEnd } from '../time-window.js';
import { onRecordOf, perDistinctPatient } from '../audit/record-audit.js';
import type { AuditRecord } from '../audit/audit-event.js';
import { ROLE_ROWS } from '../people/roles.js';

/** The query of GET /appointments. */
export const APPOINTMENT_LIST_QUERY_FIELDS = [
  ...APPOINTMENT_WINDOW_FIELDS,
  field.string('status', {
    minLength: 1,
    maxLength: 200,
    description: 'Only these statuses, comma-separated (`booked,arrived`, 1.2.0); absent: all',
  }),
  ...pageQueryFields(`${DEFAULT_PAGE_LIMIT}`),
] as const;

const CURSOR = 'appointments';
const CURSOR_SHAPE = ['string', 'number'] as const;

/** The longest window a list may span (clinic-api-1.1.md): 92 days of 24 hours. */
const MAX_WINDOW_MS = 92 * 24 * 3600 * 1000;

/**
 * The half-open window [from, to) of a query, as UTC instants. A date `from` is the start of
 * that clinic day; a date `to` is the END of that day, so from=to=D is the whole of D. Absent
 * `from` is the start of today and absent `to` the end of the day on which `from` falls, both in
 * clinic time, read when the request comes (a time zone change applies at once).
 */
export function appointmentWindow(
  fromText: string | undefined,
  toText: string | undefined,
  timeZone: string,
  now = Date.now(),
): { from: string; to: string } {
  const parsed = [fromText, toText].map((text, i) => (text === undefined ? undefined : windowEnd(i === 0 ? 'from' : 'to', text, timeZone)));
  throwIfIssues(parsed.filter(isIssue));
  const [fromEnd, toEnd] = parsed as [WindowEnd | undefined, WindowEnd | undefined];
  // The clinic day on which the window starts.
  const firstDay =
    fromEnd === undefined
      ? localDateOf(now, timeZone)
      : 'date' in fromEnd
        ? parseDate(fromEnd.date)
        : localDateOf(Date.parse(fromEnd.instant), timeZone);
  const start = fromEnd !== undefined && 'instant' in fromEnd ? fromEnd.instant : startOfDay(firstDay, timeZone);
  const endDay = toEnd === undefined ? firstDay : 'date' in toEnd ? parseDate(toEnd.date) : undefined;
  const end = endDay === undefined ? (toEnd as { instant: string }).instant : startOfDay(nextDay(endDay), timeZone);
  const span = Date.parse(end) - Date.parse(start);
  if (span <= 0) throw new ValidationError([issue(['query', 'to'], problems.valueError('to must be after from'), toText ?? end)]);
  if (span > MAX_WINDOW_MS) {
    throw new ValidationError([issue(['query', 'to'], problems.valueError('the window may span at most 92 days'), toText ?? end)]);
  }
  return { from: start, to: end };
}

/** Where the page after `cursor` starts. */
function cursorPosition(cursor: string) {
  const [start_at, seq] = decodeCursor(cursor, CURSOR, CURSOR_SHAPE) as [string, number];
  return { start_at, seq };
}

/**
 * The appointments overlapping a window (one that ends exactly at `from` does not), by start
 * then number, one page at a time (GET /appointments). An unknown doctor or patient id matches
 * nothing.
 */
export const LIST_APPOINTMENTS = defineUseCase({
  roles: ROLE_ROWS.readAppointments,
  summary: 'List the appointments of a window of time (the day sheet)',
  input: { query: APPOINTMENT_LIST_QUERY_FIELDS },
  refusals: [],
  access: 'read',
  moreIssues: ({ query }, _fieldIssues, { timeZone }) => [
    ...windowEndIssues(query, timeZone),
    ...cursorIssues(query, CURSOR, CURSOR_SHAPE),
  ],
  run: (db, { query }) => appointmentPage(db, query),
  audit: (page) => appointmentListRecords(page.items),
});

/** What showing a list of appointments records: one appointment.read per patient on it (`clinic appointment list` too). */
export function appointmentListRecords(appointments: readonly Appointment[]): AuditRecord[] {
  return perDistinctPatient(appointments, (appointment) => appointment.patient_id, { action: 'appointment.read' });
}

/** LIST_APPOINTMENTS on a connection of its own. */
export function listAppointments(db: Db, query: unknown): Page<Appointment> {
  return performUseCase(LIST_APPOINTMENTS, db, { query }, { source: 'cli', actor: null });
}

function appointmentPage(db: Db, values: ValuesOf<typeof APPOINTMENT_LIST_QUERY_FIELDS>): Page<Appointment> {
  const timeZone = clinicTimeZone(db);
  const window = appointmentWindow(values.from, values.to, timeZone);
  const limit = values.limit ?? DEFAULT_PAGE_LIMIT;
  const after = values.after === undefined ? BEFORE_FIRST_APPOINTMENT : cursorPosition(values.after);
  const filter: AppointmentFilter = {
    ...window,
    resourceId: values.resource_id ?? null,
    patientId: values.patient_id ?? null,
    statuses: commaListOf(values.status),
  };
  const rows = listAppointmentRows(db, filter, after, limit + 1);
  return pageOf(
    rows,
    limit,
    CURSOR,
    (row) => [row.start_at, row.seq],
    (row) => presentStoredAppointment(db, row),
  );
}

/** GET /appointments/{appointment_id}: 422 for a malformed id, 404 APPOINTMENT_NOT_FOUND for an unknown one. */
export const READ_APPOINTMENT = defineUseCase({
  roles: ROLE_ROWS.readAppointments,
  summary: 'Read an appointment',
  input: { path: APPOINTMENT_PATH_FIELDS },
  refusals: [errors.appointmentNotFound()],
  access: 'read',
  run(db, { path }): Appointment {
    const row = findAppointment(db, path.appointment_id);
    if (!row) throw errors.appointmentNotFound();
    return presentStoredAppointment(db, row);
  },
  audit: (appointment) => onRecordOf('appointment.read', appointment.patient_id, appointment.id),
});

/** READ_APPOINTMENT on a connection of its own. */
export function readAppointment(db: Db, appointmentId: unknown): Appointment {
  return performUseCase(READ_APPOINTMENT, db, { path: { appointment_id: appointmentId } }, { source: 'cli', actor: null });
}
