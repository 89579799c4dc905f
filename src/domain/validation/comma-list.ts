import type { ValidationIssue } from '../../errors.js';
import { problems } from './problems.js';
import { isPlainObject } from './structs.js';
import { issue } from './validate.js';

/**
 * The comma-separated filters of the API and the desk (`?action=` of GET /audit-events, `?types=`
 * of GET /events, `webhook add --types`): read and checked alike.
 */

/** The items of a comma-separated filter: trimmed, empty ones dropped, each once; null when it names none (absent, or commas only). */
export function commaListOf(text: string | undefined): string[] | null {
  const items = text
    ?.split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items === undefined || items.length === 0 ? null : [...new Set(items)];
}

/**
 * What is wrong with `items` of a filter of `known` names (a typo would otherwise find nothing):
 * e.g. `"patient.deleted" is not an event type; the types are …`; undefined when each is known.
 */
export function unknownItemsError(
  items: readonly string[],
  known: readonly string[],
  names: { one: string; all: string },
): string | undefined {
  const unknown = items.filter((item) => !known.includes(item));
  if (unknown.length === 0) return undefined;
  return `${unknown.map((item) => `"${item}"`).join(', ')} is not ${names.one}; the ${names.all} are ${known.join(', ')}`;
}

/**
 * The issues of a comma-separated body field of `allowed` names (an API key's `scopes`, a person's
 * `roles`): a literal_error at each unknown item's place in the list, or a value_error `none`
 * when it names none. Nothing when the field is absent or its own type already refused it.
 */
export function commaListIssues(
  body: unknown,
  fieldIssues: readonly ValidationIssue[],
  { field, allowed, none }: { field: string; allowed: readonly string[]; none: string },
): ValidationIssue[] {
  const text = isPlainObject(body) ? body[field] : undefined;
  if (typeof text !== 'string' || fieldIssues.some((failed) => failed.loc[1] === field)) return [];
  const items = commaListOf(text);
  if (items === null) return [issue(['body', field], problems.valueError(none), [])];
  return items.flatMap((item, index) =>
    allowed.includes(item) ? [] : [issue(['body', field, index], problems.literalError(allowed), item)],
  );
}
