import { listAuditEventRows } from '../../db/audit-events.js';
import { field } from '../../fields/field-spec.js';
import { ValidationError, type ValidationIssue } from '../../errors.js';
import type { Page } from '../pagination.js';
import { nextDay, parseDate, startOfDay } from '../validation/calendar.js';
import { commaListOf, unknownItemsError } from '../validation/comma-list.js';
import { problems } from '../validation/problems.js';
import { isPlainObject } from '../validation/structs.js';
import { issue } from '../validation/validate.js';
import { isIssue, windowEnd, windowEndIssues, type WindowEnd } from '../time-window.js';
import { defineUseCase } from '../use-case.js';
import { clinicTimeZone } from '../settings.js';
import { presentAuditEvent, type AuditEvent } from './audit-event.js';
import { AUDIT_ACTIONS } from '../../audit-actions.js';
import { ROLE_ROWS } from '../people/roles.js';

/** The page size of GET /audit-events without `limit`, and the largest it allows. */
export const DEFAULT_AUDIT_PAGE_LIMIT = 100;
export const MAX_AUDIT_PAGE_LIMIT = 1000;

/** The query of GET /audit-events. */
export const AUDIT_EVENT_QUERY_FIELDS = [
  field.uuid('patient_id', { description: "Only this patient's events" }),
  field.string('action', {
    minLength: 1,
    maxLength: 1000,
    description: `Only these actions, comma-separated (${AUDIT_ACTIONS.join(', ')}); absent: all`,
  }),
  field.string('from', {
    description:
      'Events at or after: a date (the start of that day in clinic time) or a date-time (clinic time when it has no offset). Absent: no bound',
  }),
  field.string('to', {
    description: 'Events before: a date (the END of that day in clinic time) or a date-time; after `from`. Absent: no bound',
  }),
  field.integer('after', {
    minimum: 0,
    acceptsText: true,
    description: "Only events with a larger seq: the last seq a client has, or the next page's start as the Link header gives it",
  }),
  field.integer('limit', {
    minimum: 1,
    maximum: MAX_AUDIT_PAGE_LIMIT,
    acceptsText: true,
    description: `Events per page, 1 to ${MAX_AUDIT_PAGE_LIMIT} (default: ${DEFAULT_AUDIT_PAGE_LIMIT}). When more follow, the Link header names the next page`,
  }),
] as const;

/** The issue of an `action` filter naming an action the trail never records (a typo would otherwise find nothing). */
function actionIssues(query: unknown): ValidationIssue[] {
  const text = isPlainObject(query) ? query.action : undefined;
  if (typeof text !== 'string') return [];
  const error = unknownItemsError(commaListOf(text) ?? [], AUDIT_ACTIONS, { one: 'an action', all: 'actions' });
  return error === undefined ? [] : [issue(['query', 'action'], problems.valueError(error), text)];
}

/**
 * The window [from, to) of an audit query, as UTC instants, each end null when absent: a date
 * `from` is the start of that clinic day, a date `to` the end of that day, as GET /appointments
 * reads them, but with no default and no limit on the span.
 */
export function auditWindow(
  fromText: string | undefined,
  toText: string | undefined,
  timeZone: string,
): { from: string | null; to: string | null } {
  const ends = [fromText, toText].map((text, i) => (text === undefined ? undefined : windowEnd(i === 0 ? 'from' : 'to', text, timeZone)));
  const failed = ends.filter(isIssue);
  if (failed.length > 0) throw new ValidationError(failed);
  const [fromEnd, toEnd] = ends as [WindowEnd | undefined, WindowEnd | undefined];
  const from = fromEnd === undefined ? null : 'date' in fromEnd ? startOfDay(parseDate(fromEnd.date), timeZone) : fromEnd.instant;
  const to = toEnd === undefined ? null : 'date' in toEnd ? startOfDay(nextDay(parseDate(toEnd.date)), timeZone) : toEnd.instant;
  if (from !== null && to !== null && Date.parse(to) <= Date.parse(from)) {
    throw new ValidationError([issue(['query', 'to'], problems.valueError('to must be after from'), toText)]);
  }
  return { from, to };
}

/**
 * GET /audit-events and `clinic audit list`: the trail's events matching the filters, in seq
 * order, one page at a time (the next page starts after the last seq shown). Reading the trail
 * records nothing.
 */
export const LIST_AUDIT_EVENTS = defineUseCase({
  roles: ROLE_ROWS.audit,
  summary: 'List the audit trail: who saw or changed whose data',
  input: { query: AUDIT_EVENT_QUERY_FIELDS },
  refusals: [],
  access: 'read',
  moreIssues: ({ query }, _fieldIssues, { timeZone }) => [...windowEndIssues(query, timeZone), ...actionIssues(query)],
  run(db, { query }, _caller): Page<AuditEvent> {
    const { from, to } = auditWindow(query.from, query.to, clinicTimeZone(db));
    const limit = query.limit ?? DEFAULT_AUDIT_PAGE_LIMIT;
    const actions = commaListOf(query.action);
    const rows = listAuditEventRows(db, {
      patientId: query.patient_id ?? null,
      actions: actions === null ? null : JSON.stringify(actions),
      from,
      to,
      after: query.after ?? 0,
      limit: limit + 1,
    });
    const items = rows.slice(0, limit).map(presentAuditEvent);
    return { items, next: rows.length > limit ? String(items[items.length - 1]!.seq) : null };
  },
});
