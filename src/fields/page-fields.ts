import { field, type FieldSpec } from './field-spec.js';

/** The largest page a client may ask for. */
export const MAX_PAGE_LIMIT = 200;

/** `limit` and `after`, described for a list whose page without `limit` is `defaultText`. */
export function pageQueryFields<const D extends string>(defaultText: D) {
  return [
    field.integer('limit', {
      minimum: 1,
      maximum: MAX_PAGE_LIMIT,
      acceptsText: true,
      description: `Items per page, 1 to ${MAX_PAGE_LIMIT} (default: ${defaultText}). When more follow, the Link header names the next page`,
    }),
    field.string('after', { description: "Where the page starts: the cursor of the previous page's Link header, as it is" }),
  ] as const satisfies readonly FieldSpec[];
}
