/** Whether `value` is a JSON object: not null, not an array. Shared by validation and the column codecs. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
