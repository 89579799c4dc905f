import { dateError, parseDateTime, toUtcIso } from './validation/calendar.js';
import { problems } from './validation/problems.js';
import { isPlainObject } from './validation/structs.js';
import { issue } from './validation/validate.js';
import type { ValidationIssue } from '../errors.js';

/**
 * The ends of a window of time as a list query takes them (`from`, `to` of GET /appointments
 * and GET /audit-events): a calendar date, or a date-time (clinic time when it has no offset).
 */

/** One end of a window as the client wrote it: a calendar date or an instant. */
export type WindowEnd = { date: string } | { instant: string };

/** `text` as a window end, or the issue at ["query", name] that refuses it. */
export function windowEnd(name: 'from' | 'to', text: string, timeZone: string): WindowEnd | ValidationIssue {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const error = dateError(text);
    return error === undefined ? { date: text } : issue(['query', name], problems.dateParsing(error), text);
  }
  const parsed = parseDateTime(text);
  if (typeof parsed === 'string') return issue(['query', name], problems.datetimeParsing(parsed), text);
  return { instant: toUtcIso(parsed, timeZone) };
}

export const isIssue = (value: WindowEnd | ValidationIssue | undefined): value is ValidationIssue => value !== undefined && 'type' in value;

/** The issues of a query's `from` and `to` that are text but neither a date nor a date-time. */
export function windowEndIssues(query: unknown, timeZone: string): ValidationIssue[] {
  if (!isPlainObject(query)) return [];
  return (['from', 'to'] as const).flatMap((name) => {
    const text = query[name];
    const end = typeof text === 'string' ? windowEnd(name, text, timeZone) : undefined;
    return isIssue(end) ? [end] : [];
  });
}
