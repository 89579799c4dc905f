import { changeEventsAfter, type ChangeEventRow } from '../../db/change-events.js';
import { field } from '../../fields/field-spec.js';
import type { ValidationIssue } from '../errors.js';
import type { Page } from '../pagination.js';
import { problems } from '../validation/problems.js';
import { isPlainObject } from '../validation/structs.js';
import { issue } from '../validation/validate.js';
import { defineUseCase } from '../use-case.js';
import { CHANGE_TYPES, changeEventId, isChangeType, type ChangeEvent } from './change-event.js';

/** The page size of GET /events without `limit`, and the largest it allows. */
export const DEFAULT_EVENT_PAGE_LIMIT = 100;
export const MAX_EVENT_PAGE_LIMIT = 1000;
/** The longest a request may wait for an event (`wait`, seconds). */
export const MAX_EVENT_WAIT_SECONDS = 30;

/** The query of GET /events. */
export const CHANGE_EVENT_QUERY_FIELDS = [
  field.integer('after', {
    minimum: 0,
    acceptsText: true,
    description: 'Only events with a larger seq: the last seq a consumer handled (default 0: from the first)',
  }),
  field.integer('limit', {
    minimum: 1,
    maximum: MAX_EVENT_PAGE_LIMIT,
    acceptsText: true,
    description: `Events per page, 1 to ${MAX_EVENT_PAGE_LIMIT} (default: ${DEFAULT_EVENT_PAGE_LIMIT}). When more follow, the Link header names the next page`,
  }),
  field.string('types', {
    minLength: 1,
    maxLength: 1000,
    description: `Only these types, comma-separated (${CHANGE_TYPES.join(', ')}); absent: all; a list naming no type is refused`,
  }),
  field.integer('wait', {
    minimum: 0,
    maximum: MAX_EVENT_WAIT_SECONDS,
    acceptsText: true,
    description:
      `Seconds, 0 to ${MAX_EVENT_WAIT_SECONDS} (default 0): when no event follows \`after\`, the answer is held until one is ` +
      'committed (by any process) or the time is up, then given with what there is',
  }),
] as const;

/** The types of a `types` filter: its comma-separated items, or null for all. */
export function changeTypesOf(text: string | undefined): string[] | null {
  const items = text
    ?.split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items === undefined || items.length === 0 ? null : [...new Set(items)];
}

/** The issue of a `types` filter naming a type the feed never has (a typo would otherwise wait for ever). */
function typeIssues(query: unknown): ValidationIssue[] {
  const text = isPlainObject(query) ? query.types : undefined;
  if (typeof text !== 'string' || text === '') return [];
  const types = changeTypesOf(text);
  // `types=,` names no type: read as "every type" it would hide a client's bug behind a full feed.
  if (types === null) return [issue(['query', 'types'], problems.valueError('names no event type'), text)];
  const unknown = types.filter((type) => !isChangeType(type));
  if (unknown.length === 0) return [];
  return [
    issue(
      ['query', 'types'],
      problems.valueError(`${unknown.map((t) => `"${t}"`).join(', ')} is not an event type; the types are ${CHANGE_TYPES.join(', ')}`),
      text,
    ),
  ];
}

/** A stored row as the event GET /events and a webhook give. */
export function presentChangeEvent(row: ChangeEventRow): ChangeEvent {
  return {
    id: changeEventId(row.seq),
    seq: row.seq,
    type: row.type as ChangeEvent['type'],
    occurred_at: row.occurred_at,
    patient_id: row.patient_id,
    data: JSON.parse(row.data) as ChangeEvent['data'],
  };
}

/**
 * GET /events: the change feed's events after `after`, of `types`, in seq order, a page at a time
 * (the next page starts after the last seq shown). Waiting (`wait`) is the front end's: this
 * answers at once.
 */
export const LIST_CHANGE_EVENTS = defineUseCase({
  summary: 'Read the change feed: every committed change, in commit order',
  input: { query: CHANGE_EVENT_QUERY_FIELDS },
  refusals: [],
  access: 'read',
  moreIssues: ({ query }) => typeIssues(query),
  run(db, { query }): Page<ChangeEvent> {
    const limit = query.limit ?? DEFAULT_EVENT_PAGE_LIMIT;
    const rows = changeEventsAfter(db, query.after ?? 0, limit + 1, changeTypesOf(query.types));
    const items = rows.slice(0, limit).map(presentChangeEvent);
    return { items, next: rows.length > limit ? String(items[items.length - 1]!.seq) : null };
  },
});
