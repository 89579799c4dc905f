/**
 * A field described once, as data: name, kind, nullability, limits, default. From these
 * descriptions the project derives the superstruct validators (structs.ts), the normalised
 * values and SQL column values (values.ts), the response presenters, the CLI options and the
 * OpenAPI schemas, so a limit changed here changes everywhere.
 */

interface FieldBase {
  name: string;
  /** Absent → 422 `missing`. */
  required?: boolean;
  /** `null` is a valid value. */
  nullable?: boolean;
  /** Applied when the field is absent (already normalised: cents for money, canonical text for decimals). */
  default?: unknown;
  /** Accepted in requests, never stored or returned. */
  requestOnly?: boolean;
  /** One line for people: CLI help and the OpenAPI description. */
  description?: string;
}

export type FieldSpec = FieldBase &
  (
    /** `pattern`: a regular expression (source text) the whole value must match, else string_pattern_mismatch. */
    | { kind: 'string'; minLength?: number; maxLength?: number; format?: 'email'; pattern?: string }
    | { kind: 'date' }
    | { kind: 'datetime' }
    | { kind: 'uuid' }
    /** `maxItems`: the longest list accepted (too_long). */
    | { kind: 'uuid_list'; maxItems?: number }
    /** `acceptsText`: also true/false/1/0 as text, as a query parameter arrives (else bool_parsing). */
    | { kind: 'boolean'; acceptsText?: boolean }
    | { kind: 'integer'; minimum?: number; maximum?: number }
    /** Number or decimal numeral string; stored and returned as canonical text. */
    | { kind: 'decimal' }
    /** Number or decimal numeral string of money; normalised to integer cents. */
    | { kind: 'money'; exclusiveMinimum?: number; minimum?: number; maxWholeDigits: number; maxFractionDigits: number }
    | { kind: 'literal'; values: readonly string[] }
    /** An object mapping string keys to arrays of strings, each bounded (too_long, string_too_long). */
    | { kind: 'string_list_map'; maxKeys: number; maxKeyLength: number; maxItems: number; maxItemLength: number }
    | { kind: 'object'; fields: readonly FieldSpec[] }
    /** An array of objects made of `fields` (response lists such as an appointment's services). */
    | { kind: 'object_list'; fields: readonly FieldSpec[] }
  );

export type FieldKind = FieldSpec['kind'];
type Options<K extends FieldKind> = Omit<Extract<FieldSpec, { kind: K }>, 'kind' | 'name'>;

/** Builders that keep field lists short and readable. */
export const field = {
  string: (name: string, options: Options<'string'> = {}): FieldSpec => ({ name, kind: 'string', ...options }),
  date: (name: string, options: Options<'date'> = {}): FieldSpec => ({ name, kind: 'date', ...options }),
  datetime: (name: string, options: Options<'datetime'> = {}): FieldSpec => ({ name, kind: 'datetime', ...options }),
  uuid: (name: string, options: Options<'uuid'> = {}): FieldSpec => ({ name, kind: 'uuid', ...options }),
  uuidList: (name: string, options: Options<'uuid_list'> = {}): FieldSpec => ({ name, kind: 'uuid_list', ...options }),
  boolean: (name: string, options: Options<'boolean'> = {}): FieldSpec => ({ name, kind: 'boolean', ...options }),
  integer: (name: string, options: Options<'integer'> = {}): FieldSpec => ({ name, kind: 'integer', ...options }),
  decimal: (name: string, options: Options<'decimal'> = {}): FieldSpec => ({ name, kind: 'decimal', ...options }),
  money: (name: string, options: Options<'money'>): FieldSpec => ({ name, kind: 'money', ...options }),
  literal: (name: string, options: Options<'literal'>): FieldSpec => ({ name, kind: 'literal', ...options }),
  stringListMap: (name: string, options: Options<'string_list_map'>): FieldSpec => ({
    name,
    kind: 'string_list_map',
    ...options,
  }),
  object: (name: string, options: Options<'object'>): FieldSpec => ({ name, kind: 'object', ...options }),
  objectList: (name: string, options: Options<'object_list'>): FieldSpec => ({ name, kind: 'object_list', ...options }),
} as const;

/** Nullable text with an optional maximum length: the commonest patient field. */
export function optionalText(name: string, maxLength?: number): FieldSpec {
  return field.string(name, { nullable: true, ...(maxLength === undefined ? {} : { maxLength }) });
}
