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
  /** Set by the server only (spec: "read-only"); marked `readOnly` in the interface description. */
  readOnly?: boolean;
  /** A secret (a PIN, a gateway's token or headers): a 422 never echoes what was sent for it. */
  secret?: boolean;
}

export type FieldSpec = FieldBase &
  /**
   * `pattern`: a regular expression (source text) the whole value must match, else
   * string_pattern_mismatch. `dropsInvisible`: the characters that print as nothing
   * (withoutInvisibleCharacters) are removed before the length is checked, and never stored.
   */
  (
    | { kind: 'string'; minLength?: number; maxLength?: number; format?: 'email'; pattern?: string; dropsInvisible?: boolean }
    | { kind: 'date' }
    | { kind: 'datetime' }
    | { kind: 'uuid' }
    /** `maxItems`: the longest list accepted (too_long). */
    | { kind: 'uuid_list'; maxItems?: number }
    /** A list of strings, each 0..`maxItemLength` characters (a desk command's argv, a session's roles). */
    | { kind: 'string_list'; maxItems: number; maxItemLength: number }
    /** `acceptsText`: also true/false/1/0 as text, as a query parameter arrives (else bool_parsing). */
    | { kind: 'boolean'; acceptsText?: boolean }
    /** `acceptsText`: also a numeral as text, as a query parameter arrives (else int_parsing). */
    | { kind: 'integer'; minimum?: number; maximum?: number; acceptsText?: boolean }
    /** Number or decimal numeral string; stored and returned as canonical text. */
    | { kind: 'decimal' }
    /** Number or decimal numeral string of money; normalised to integer cents. */
    | { kind: 'money'; exclusiveMinimum?: number; minimum?: number; maxWholeDigits: number; maxFractionDigits: number }
    | { kind: 'literal'; values: readonly string[] }
    /** An object mapping string keys to arrays of strings, each bounded (too_long, string_too_long). */
    | { kind: 'string_list_map'; maxKeys: number; maxKeyLength: number; maxItems: number; maxItemLength: number }
    | { kind: 'object'; fields: readonly FieldSpec[] }
    /** A JSON object of a response whose shape varies, described by `schema` (an audit event's detail); never taken in a request. */
    | { kind: 'json_object'; schema: Readonly<Record<string, unknown>> }
    /** An array of objects made of `fields` (response lists such as an appointment's services). */
    | { kind: 'object_list'; fields: readonly FieldSpec[] }
  );

export type FieldKind = FieldSpec['kind'];
type Options<K extends FieldKind> = Omit<Extract<FieldSpec, { kind: K }>, 'kind' | 'name'>;

/** The spec a builder makes: the name and options exactly as written, so that ValuesOf can read them. */
type Built<K extends FieldKind, N extends string, O> = { name: N; kind: K } & O;

/** A builder of kind K whose options may all be omitted. */
const builder =
  <K extends FieldKind>(kind: K) =>
  <const N extends string, const O extends Options<K> = Options<K>>(name: N, options?: O): Built<K, N, O> =>
    ({ name, kind, ...options }) as Built<K, N, O>;

/** A builder of kind K whose options must be given (limits without a sensible default). */
const builderWithOptions =
  <K extends FieldKind>(kind: K) =>
  <const N extends string, const O extends Options<K>>(name: N, options: O): Built<K, N, O> =>
    ({ name, kind, ...options }) as Built<K, N, O>;

/** Builders that keep field lists short and readable, and keep each field's name and options in its type. */
export const field = {
  string: builder('string'),
  date: builder('date'),
  datetime: builder('datetime'),
  uuid: builder('uuid'),
  uuidList: builder('uuid_list'),
  stringList: builderWithOptions('string_list'),
  boolean: builder('boolean'),
  integer: builder('integer'),
  decimal: builder('decimal'),
  money: builderWithOptions('money'),
  literal: builderWithOptions('literal'),
  stringListMap: builderWithOptions('string_list_map'),
  jsonObject: builderWithOptions('json_object'),
  object: builderWithOptions('object'),
  objectList: builderWithOptions('object_list'),
} as const;

/** Nullable text with an optional maximum length: the commonest patient field. */
export function optionalText<const N extends string, const M extends number | undefined = undefined>(
  name: N,
  maxLength?: M,
): Built<'string', N, { nullable: true; maxLength: M }> {
  return field.string(name, { nullable: true, ...(maxLength === undefined ? {} : { maxLength }) }) as Built<
    'string',
    N,
    { nullable: true; maxLength: M }
  >;
}

/** The value of a field of `Spec` once validated and normalised (values.ts): ids and dates as text, money in cents. */
type BaseValue<Spec> = Spec extends { kind: 'string' | 'date' | 'datetime' | 'uuid' | 'decimal' }
  ? string
  : Spec extends { kind: 'uuid_list' | 'string_list' }
    ? string[]
    : Spec extends { kind: 'boolean' }
      ? boolean
      : Spec extends { kind: 'integer' | 'money' }
        ? number
        : Spec extends { kind: 'literal'; values: readonly (infer V)[] }
          ? V
          : Spec extends { kind: 'string_list_map' }
            ? Record<string, string[]>
            : Spec extends { kind: 'json_object' }
              ? Record<string, unknown>
              : Spec extends { kind: 'object'; fields: infer F extends readonly FieldSpec[] }
                ? ValuesOf<F>
                : Spec extends { kind: 'object_list'; fields: infer F extends readonly FieldSpec[] }
                  ? ValuesOf<F>[]
                  : unknown;

/**
 * What a normalised field holds: its value, null if nullable, and undefined only when it may be
 * absent with neither a default nor null to stand in (values.ts fills those in).
 */
type ValueOf<Spec> =
  | BaseValue<Spec>
  | (Spec extends { nullable: true } ? null : never)
  | (Spec extends { required: true } | { default: unknown } | { nullable: true } | { kind: 'object' } ? never : undefined);

/** The normalised values of a field list, by name: what parseFields returns. A misspelt name is a compile error. */
export type ValuesOf<Fields extends readonly FieldSpec[]> = { -readonly [Spec in Fields[number] as Spec['name']]: ValueOf<Spec> };

/** A response made of a field list: every field present, null where it is nullable (the presenters' type). */
export type ResponseOf<Fields extends readonly FieldSpec[]> = {
  -readonly [Spec in Fields[number] as Spec['name']]:
    | (Spec extends { kind: 'object_list'; fields: infer F extends readonly FieldSpec[] }
        ? ResponseOf<F>[]
        : Spec extends { kind: 'object'; fields: infer F extends readonly FieldSpec[] }
          ? ResponseOf<F>
          : BaseValue<Spec>)
    | (Spec extends { nullable: true } ? null : never);
};

/** A field of a merge patch: any field may be absent, and an absent one stays as it is (no default). */
type PatchFieldOf<Spec> = Spec extends { kind: 'object'; fields: infer F extends readonly FieldSpec[] }
  ? Omit<Spec, 'required' | 'default' | 'fields'> & { fields: PatchFieldsOf<F> }
  : Omit<Spec, 'required' | 'default'>;
export type PatchFieldsOf<Fields extends readonly FieldSpec[]> = { [K in keyof Fields]: PatchFieldOf<Fields[K]> };

/**
 * The fields of a JSON merge patch (RFC 7396) over `fields`: each may be absent, none has a
 * default, and an object field is itself a patch, merged key by key. Types, limits and
 * nullability stay as they are, so a patch can set exactly the values a create could.
 */
export function mergePatchFields<const Fields extends readonly FieldSpec[]>(fields: Fields): PatchFieldsOf<Fields> {
  return fields.map((spec: FieldSpec) => {
    const { required: _required, default: _default, ...rest } = spec;
    return rest.kind === 'object' ? { ...rest, fields: mergePatchFields(rest.fields) } : rest;
  }) as PatchFieldsOf<Fields>;
}

/**
 * The field of `fields` called `name`, with its exact type: a list made of another list's fields
 * names them, so reordering that list cannot swap them.
 */
export function fieldNamed<const Fields extends readonly FieldSpec[], const N extends Fields[number]['name']>(
  fields: Fields,
  name: N,
): Extract<Fields[number], { name: N }> {
  const found = fields.find((spec) => spec.name === name);
  if (found === undefined) throw new Error(`no field is called ${name}`);
  return found as Extract<Fields[number], { name: N }>;
}
