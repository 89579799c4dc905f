import { ValidationError, type ValidationIssue } from '../errors.js';
import { isPlainObject } from './validation/structs.js';
import { problems } from './validation/problems.js';
import { issue } from './validation/validate.js';

/**
 * Pagination of every list (clinic-api-1.1.md, "Pagination"): `limit` items after the opaque
 * cursor `after`. Lists are read by keyset, never by offset: the cursor holds the sort key of
 * the last item shown and the next page starts strictly after it, in an order that ends with a
 * unique column. So an item created between two page requests can never push an item onto the
 * next page twice, or out of sight.
 */

/** The page size of the 1.1.0 lists when `limit` is absent. */
export const DEFAULT_PAGE_LIMIT = 50;

/** A sort key as a cursor holds it: the values of the list's ORDER BY columns, in order. */
export type SortKey = readonly (string | number)[];

/** One page: its items, and the cursor of the next page when more follow. */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** The cursor after an item of list `list` whose sort key is `key`. */
export function encodeCursor(list: string, key: SortKey): string {
  return Buffer.from(JSON.stringify([list, ...key]), 'utf8').toString('base64url');
}

const malformed = (cursor: unknown) =>
  new ValidationError([issue(['query', 'after'], problems.valueError('the cursor is not one this list gave out'), cursor)]);

/**
 * The sort key in `cursor`, which must have been made by encodeCursor for list `list` with
 * values of the kinds `shape`; anything else is 422 value_error at ["query","after"].
 */
export function decodeCursor(cursor: string, list: string, shape: readonly ('string' | 'number')[]): SortKey {
  let decoded: unknown;
  try {
    const bytes = Buffer.from(cursor, 'base64url');
    // Node's decoder skips characters outside the alphabet; only its own encoding round-trips.
    if (bytes.toString('base64url') !== cursor) throw malformed(cursor);
    decoded = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw malformed(cursor);
  }
  if (!Array.isArray(decoded) || decoded[0] !== list || decoded.length !== shape.length + 1) throw malformed(cursor);
  const key = decoded.slice(1) as unknown[];
  const fits = key.every((value, i) => (shape[i] === 'number' ? Number.isSafeInteger(value) : typeof value === 'string'));
  if (!fits) throw malformed(cursor);
  return key as SortKey;
}

/**
 * The issue of the `after` of a list query, as a list to report with the query's other issues
 * (decisions.md §1: every failing field at once). Empty when `after` is absent, valid, or not
 * text (the schema reports that).
 */
export function cursorIssues(query: unknown, list: string, shape: readonly ('string' | 'number')[]): ValidationIssue[] {
  const after = isPlainObject(query) ? query.after : undefined;
  if (typeof after !== 'string') return [];
  try {
    decodeCursor(after, list, shape);
    return [];
  } catch (error) {
    if (error instanceof ValidationError) return error.issues;
    throw error;
  }
}

/**
 * The page made of `rows`, which were read with LIMIT limit + 1: a row beyond `limit` shows that
 * more follow, and the cursor is then taken from the last row shown.
 */
export function pageOf<R, T>(
  rows: readonly R[],
  limit: number,
  list: string,
  sortKey: (row: R) => SortKey,
  present: (row: R) => T,
): Page<T> {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    items: shown.map(present),
    next: rows.length > limit && last !== undefined ? encodeCursor(list, sortKey(last)) : null,
  };
}
