import type { FieldSpec } from './field-spec.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The SQLite value of a normalised field: booleans as 0/1, objects and lists as JSON text. */
export function toColumn(spec: FieldSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (spec.kind) {
    case 'boolean':
      return value ? 1 : 0;
    case 'object':
    case 'string_list_map':
    case 'uuid_list':
      return JSON.stringify(value);
    default:
      return value;
  }
}

/** The API value of a stored column, the inverse of toColumn. */
export function fromColumn(spec: FieldSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (spec.kind) {
    case 'boolean':
      return value === 1;
    case 'object': {
      const stored = JSON.parse(value as string) as unknown;
      return isObject(stored) ? stored : {};
    }
    case 'string_list_map':
    case 'uuid_list':
      return JSON.parse(value as string) as unknown;
    default:
      return value;
  }
}
