import { parseDateTime, toUtcIso } from './calendar.js';
import { decimalToCents, formatDecimal } from './decimal.js';
import type { FieldSpec, ValuesOf } from '../../fields/field-spec.js';
import { canonicalId } from '../../fields/human-numbers.js';
import { decimalPartsOf, textBoolean, textInteger } from './structs.js';
import { withoutInvisibleCharacters } from '../../fields/invisible-text.js';

/** What normalising needs to know about the clinic. */
export interface NormalizeContext {
  /** IANA zone in which an offset-less date-time is read. */
  timeZone: string;
}

/**
 * One validated value in its canonical form: ids lowercase, decimals canonical text, money in
 * cents, date-times UTC ISO, objects completed with their defaults.
 */
function normalizeValue(spec: FieldSpec, value: unknown, context: NormalizeContext): unknown {
  if (value === null) return null;
  switch (spec.kind) {
    case 'string':
      return spec.dropsInvisible ? withoutInvisibleCharacters(value as string) : value;
    case 'uuid':
      return canonicalId(value as string);
    case 'uuid_list':
      return (value as string[]).map(canonicalId);
    case 'decimal':
      return formatDecimal(decimalPartsOf(value)!);
    case 'money':
      return decimalToCents(decimalPartsOf(value)!);
    case 'boolean':
      return textBoolean(value);
    case 'integer':
      return textInteger(value);
    case 'datetime':
      return toUtcIso(parseDateTime(value as string) as Exclude<ReturnType<typeof parseDateTime>, string>, context.timeZone);
    case 'object':
      return normalizeFields(spec.fields, value as Record<string, unknown>, context);
    case 'object_list':
      return (value as Record<string, unknown>[]).map((item) => normalizeFields(spec.fields, item, context));
    default:
      return value;
  }
}

/**
 * The validated input with every field present: absent fields take their default (or null),
 * present ones their canonical form. Unknown keys are dropped.
 */
export function normalizeFields<const Fields extends readonly FieldSpec[]>(
  fields: Fields,
  input: Record<string, unknown>,
  context: NormalizeContext,
): ValuesOf<Fields> {
  const output: Record<string, unknown> = {};
  for (const spec of fields as readonly FieldSpec[]) {
    const value = input[spec.name];
    if (value === undefined) output[spec.name] = defaultOf(spec, context);
    else output[spec.name] = normalizeValue(spec, value, context);
  }
  return output as ValuesOf<Fields>;
}

function defaultOf(spec: FieldSpec, context: NormalizeContext): unknown {
  if (spec.kind === 'object') return normalizeFields(spec.fields, {}, context);
  if (spec.default !== undefined) return spec.default;
  return spec.nullable ? null : undefined;
}

/**
 * The fields a merge patch names, each in its canonical form; absent fields are left out (they
 * stay as stored) and an object's absent keys too, so that it is merged key by key.
 */
export function normalizePresent(
  fields: readonly FieldSpec[],
  input: Record<string, unknown>,
  context: NormalizeContext,
): Record<string, unknown> {
  const output: Record<string, unknown> = {};
  for (const spec of fields) {
    const value = input[spec.name];
    if (value === undefined) continue;
    output[spec.name] =
      spec.kind === 'object' && value !== null
        ? normalizePresent(spec.fields, value as Record<string, unknown>, context)
        : normalizeValue(spec, value, context);
  }
  return output;
}
