import { changeEventsAfter, lostRangeHolding, type ChangeEventRow } from '../../db/change-events.js';
import { field } from '../../fields/field-spec.js';
import { errors, type ValidationIssue } from '../../errors.js';
import type { Page } from '../pagination.js';
import { commaListOf, unknownItemsError } from '../validation/comma-list.js';
import { problems } from '../validation/problems.js';
import { isPlainObject } from '../validation/structs.js';
import { issue } from '../validation/validate.js';
import { defineUseCase } from '../use-case.js';
import { changeEventId, type ChangeEvent } from './change-event.js';
import { CHANGE_TYPES, type ChangeType } from '../../change-types.js';
import { ROLE_ROWS } from '../people/roles.js';

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

/** The types of a `types` filter (GET /events, `webhook add --types`), or null for all. */
export function changeTypesOf(text: string | undefined): ChangeType[] | null {
  return commaListOf(text) as ChangeType[] | null;
}

/**
 * What is wrong with a `types` filter that is given: a type the feed never has (a typo would
 * otherwise wait for ever), or no type at all (`,`: read as "every type" it would hide a client's
 * bug behind the whole feed). Undefined when it is right.
 */
export function changeTypesError(text: string): string | undefined {
  const types = commaListOf(text);
  if (types === null) return 'names no event type; leave it out for every type';
  return unknownItemsError(types, CHANGE_TYPES, { one: 'an event type', all: 'types' });
}

function typeIssues(query: unknown): ValidationIssue[] {
  const text = isPlainObject(query) ? query.types : undefined;
  // An empty `types=` is the field's own issue (too short).
  const error = typeof text === 'string' && text !== '' ? changeTypesError(text) : undefined;
  return error === undefined ? [] : [issue(['query', 'types'], problems.valueError(error), text)];
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
  roles: ROLE_ROWS.audit,
  summary: 'Read the change feed: every committed change, in commit order',
  input: { query: CHANGE_EVENT_QUERY_FIELDS },
  refusals: [errors.feedPositionLost(1008, 1003)],
  access: 'read',
  moreIssues: ({ query }) => typeIssues(query),
  run(db, { query }): Page<ChangeEvent> {
    const after = query.after ?? 0;
    // A position a restore left behind: answered, the consumer would wait in silence, or read on
    // past events it saw that no longer hold (feed-after-restore.ts).
    const lost = after === 0 ? undefined : lostRangeHolding(db, after);
    if (lost !== undefined) throw errors.feedPositionLost(after, lost.seq_before);
    const limit = query.limit ?? DEFAULT_EVENT_PAGE_LIMIT;
    const rows = changeEventsAfter(db, after, limit + 1, changeTypesOf(query.types));
    const items = rows.slice(0, limit).map(presentChangeEvent);
    return { items, next: rows.length > limit ? String(items[items.length - 1]!.seq) : null };
  },
});
