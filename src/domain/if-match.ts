/**
 * Whether an If-Match header allows a change to a record at `version` (RFC 9110 §13.1.1, with
 * the record's ETag `"<version>"`): absent or `*` allows it; otherwise one of its comma-separated
 * entity tags must be that ETag, compared strongly (a weak `W/"3"` never matches). Anything else,
 * including a tag that is no version, names another version: 412.
 */
export function matchesIfMatch(header: string | undefined, version: number): boolean {
  if (header === undefined) return true;
  const trimmed = header.trim();
  if (trimmed === '*') return true;
  return trimmed.split(',').some((tag) => tag.trim() === `"${version}"`);
}

/** Whether an If-Match header holds no entity tag at all, only text such as a bare `2` (not `*`, `"2"` or `W/"2"`). */
export function namesNoEntityTag(header: string): boolean {
  return header.trim() !== '*' && !header.includes('"');
}

/** The ETag of a record at `version`. */
export const versionTag = (version: number) => `"${version}"`;
