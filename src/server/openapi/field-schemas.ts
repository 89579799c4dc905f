import type { FieldSpec } from '../../fields/field-spec.js';
import { DATE_TIME_PATTERN } from '../../domain/validation/calendar.js';
import { DECIMAL_NUMERAL_PATTERN } from '../../domain/validation/decimal.js';

/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses them) derived from the same field descriptions the
 * validators are built from, so a limit changed in src/fields changes the interface description too.
 *
 * A schema has a direction. A request schema says what the server accepts: `required` and the
 * defaults from the description, unknown properties allowed (they are ignored, decisions.md §3),
 * decimals and money as a number or a decimal-numeral string. A response schema says what the
 * server returns: every field always present (presenters fill absent values with null or their
 * default), no other property, decimals as canonical strings and money as numbers.
 */
export type Direction = 'request' | 'response';

export type JsonSchema = Record<string, unknown>;

/** The largest number below 10^digits, as an exclusive bound: 8 whole digits → 100000000. */
const wholeDigitsBound = (digits: number) => 10 ** digits;

/**
 * A money numeral as a request may send it: no sign but an optional `+`, at most `whole` digits
 * before the point (leading zeros aside) and `fraction` after it (trailing zeros aside, as
 * "1.500" is 1.50): the server's own rule, so a client or proxy validating by the schema agrees.
 */
const moneyNumeralPattern = (whole: number, fraction: number) =>
  `^\\+?0*(?:\\d{1,${whole}}(?:\\.\\d{0,${fraction}}0*)?|\\.\\d{1,${fraction}}0*)$`;

function withNull(schema: JsonSchema, nullable: boolean | undefined): JsonSchema {
  if (!nullable) return schema;
  const type = schema.type;
  const types = Array.isArray(type) ? type : [type];
  const nullableSchema: JsonSchema = { ...schema, type: [...types, 'null'] };
  if (Array.isArray(schema.enum)) nullableSchema.enum = [...(schema.enum as unknown[]), null];
  return nullableSchema;
}

/** The schema of a value of `spec`'s kind, before nullability, default and description. */
function kindSchema(spec: FieldSpec, direction: Direction): JsonSchema {
  switch (spec.kind) {
    case 'string':
      return {
        type: 'string',
        ...(spec.minLength === undefined ? {} : { minLength: spec.minLength }),
        ...(spec.maxLength === undefined ? {} : { maxLength: spec.maxLength }),
        ...(spec.pattern === undefined ? {} : { pattern: spec.pattern }),
      };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      // Requests may leave out seconds and the offset (clinic local time), which RFC 3339's
      // `date-time` format forbids; responses are always UTC with 'Z'.
      return direction === 'request' ? { type: 'string', pattern: DATE_TIME_PATTERN } : { type: 'string', format: 'date-time' };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'uuid_list':
      return {
        type: 'array',
        items: { type: 'string', format: 'uuid' },
        ...(spec.maxItems === undefined ? {} : { maxItems: spec.maxItems }),
      };
    case 'string_list':
      return { type: 'array', items: { type: 'string', maxLength: spec.maxItemLength }, maxItems: spec.maxItems };
    case 'boolean':
      return { type: 'boolean' };
    case 'integer':
      return {
        type: 'integer',
        ...(spec.minimum === undefined ? {} : { minimum: spec.minimum }),
        ...(spec.maximum === undefined ? {} : { maximum: spec.maximum }),
      };
    case 'decimal':
      // `pattern` constrains strings only, so one schema covers "number or decimal string".
      return { type: direction === 'request' ? ['number', 'string'] : 'string', pattern: DECIMAL_NUMERAL_PATTERN };
    case 'money':
      return {
        type: direction === 'request' ? ['number', 'string'] : 'number',
        ...(direction === 'request' ? { pattern: moneyNumeralPattern(spec.maxWholeDigits, spec.maxFractionDigits) } : {}),
        ...(spec.exclusiveMinimum === undefined ? {} : { exclusiveMinimum: spec.exclusiveMinimum }),
        ...(spec.minimum === undefined ? {} : { minimum: spec.minimum }),
        exclusiveMaximum: wholeDigitsBound(spec.maxWholeDigits),
      };
    case 'literal':
      return { type: 'string', enum: [...spec.values] };
    case 'string_list_map':
      return {
        type: 'object',
        maxProperties: spec.maxKeys,
        propertyNames: { maxLength: spec.maxKeyLength },
        additionalProperties: { type: 'array', maxItems: spec.maxItems, items: { type: 'string', maxLength: spec.maxItemLength } },
      };
    case 'json_object':
      return { ...spec.schema };
    case 'object':
      return objectSchema(spec.fields, direction);
    case 'object_list':
      return { type: 'array', items: objectSchema(spec.fields, direction) };
  }
}

/** What people read about a field besides its type: the description and the rules a schema cannot say. */
function describeField(spec: FieldSpec, direction: Direction): string | undefined {
  const notes = spec.description === undefined ? [] : [spec.description];
  if (spec.kind === 'money' && direction === 'request') {
    notes.push(`A number or a decimal numeral string; at most ${spec.maxWholeDigits} whole and ${spec.maxFractionDigits} fraction digits`);
  }
  // In a request a default is said in words: a generated client (openapi-typescript's defaults)
  // would make every field with a `default` required, and a minimal patient send 16 booleans.
  if (direction === 'request' && spec.default !== undefined && spec.kind !== 'money' && spec.kind !== 'object') {
    notes.push(`Default: ${JSON.stringify(spec.default)}`);
  }
  if (spec.kind === 'string' && spec.format === 'email') notes.push('Must look like local@domain');
  if (spec.kind === 'boolean' && spec.acceptsText) notes.push('true, false, 1 or 0');
  if (spec.kind === 'datetime' && direction === 'request')
    notes.push('ISO 8601; seconds optional; without an offset it is clinic local time');
  return notes.length === 0 ? undefined : notes.join('. ');
}

/** The schema of one field's value in `direction`. */
export function fieldSchema(spec: FieldSpec, direction: Direction): JsonSchema {
  const schema = withNull(kindSchema(spec, direction), spec.nullable);
  const description = describeField(spec, direction);
  return {
    ...schema,
    ...(description === undefined ? {} : { description }),
    ...(spec.readOnly ? { readOnly: true } : {}),
    // A money default would be in cents (field-spec.ts); no money field has one. Requests say it in words (describeField).
    ...(spec.default === undefined || spec.kind === 'money' || direction === 'request' ? {} : { default: spec.default }),
  };
}

/** The fields of `fields` that exist in `direction`: request-only fields are never returned. */
export function fieldsIn(fields: readonly FieldSpec[], direction: Direction): readonly FieldSpec[] {
  return direction === 'response' ? fields.filter((spec) => !spec.requestOnly) : fields;
}

/** The schema of an object made of `fields` in `direction` (see the module comment). */
export function objectSchema(fields: readonly FieldSpec[], direction: Direction): JsonSchema {
  const present = fieldsIn(fields, direction);
  const required =
    direction === 'response' ? present.map((spec) => spec.name) : present.filter((spec) => spec.required).map((spec) => spec.name);
  return {
    type: 'object',
    properties: Object.fromEntries(present.map((spec) => [spec.name, fieldSchema(spec, direction)])),
    ...(required.length === 0 ? {} : { required }),
    ...(direction === 'response' ? { additionalProperties: false } : {}),
  };
}
