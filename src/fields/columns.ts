import type { FieldSpec } from './field-spec.js';
import { isPlainObject } from './plain-object.js';

/** The SQLite value of a normalised field: booleans as 0/1, objects and lists as JSON text. */
export function toColumn(spec: FieldSpec, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (spec.kind) {
    case 'boolean':
      return value ? 1 : 0;
    case 'object':
    case 'object_list':
    case 'string_list_map':
    case 'uuid_list':
    case 'string_list':
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
      return isPlainObject(stored) ? stored : {};
    }
    case 'object_list':
    case 'string_list_map':
    case 'uuid_list':
    case 'string_list':
      return JSON.parse(value as string) as unknown;
    default:
      return value;
  }
}

/**
 * The API object of a row whose columns carry the fields' names: what a presenter returns when
 * the response is the stored row, so that the field list and the response cannot drift apart.
 * The fields are added to `into` when given (after what it holds), else to a new object.
 */
export function presentColumns<T>(fields: readonly FieldSpec[], row: object, into: Record<string, unknown> = {}): T {
  const columns = row as Record<string, unknown>;
  // Assigned in a loop onto `into`: for a patient's 90 fields this is about a third of the cost
  // of Object.fromEntries over a mapped list spread into it, on the hottest path of the server.
  for (const spec of fields) into[spec.name] = fromColumn(spec, columns[spec.name]);
  return into as T;
}
