import { define, Struct, type Failure } from 'superstruct';
import { dateError, parseDateTime } from './calendar.js';
import { numberToDecimalParts, parseDecimalNumeral, type DecimalParts } from './decimal.js';
import type { FieldSpec } from '../../fields/field-spec.js';
import { problems, type Problem } from './problems.js';
import { isPlainObject } from '../../fields/plain-object.js';
import { UUID_PATTERN } from '../../fields/human-numbers.js';
import { withoutInvisibleCharacters } from '../../fields/invisible-text.js';

/**
 * superstruct validators derived from field descriptions. Every failure carries a pydantic
 * `type`, a `message` and a `ctx`, which validate.ts turns into the `detail` items of a 422.
 */

type Check = (value: unknown) => Problem | undefined;

/**
 * A superstruct struct plus `accepts`, the same checks answered yes or no without building a
 * failure, a path or an iterator: a valid request (nearly every one) is checked by `accepts`
 * alone, and superstruct's walk, which allocates per field (about 150 KB for a patient's 90
 * fields), runs only to report what is wrong (validate.ts).
 */
export type Structure = Struct<unknown, unknown> & { accepts(value: unknown): boolean };

export { isPlainObject };

/** Length in Unicode code points, as pydantic counts; cheap when the UTF-16 length already decides. */
function codePointLength(text: string, limit: number): number {
  if (text.length <= limit) return text.length;
  let count = 0;
  for (let i = 0; i < text.length; i++, count++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return count;
}

/** Why a value is not a UUID, or undefined. */
export function uuidError(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'expected a string';
  if (value.length !== 36) return `invalid length: expected 36 characters, found ${value.length}`;
  return UUID_PATTERN.test(value)
    ? undefined
    : 'invalid character: expected hexadecimal digits in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx';
}

/**
 * A boolean given as a boolean or as the text true/false/1/0 (decisions.md §7: query booleans),
 * or undefined for anything else.
 */
export function textBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return undefined;
}

/** The decimal parts of a JSON number or decimal numeral string, or undefined when it is neither. */
export function decimalPartsOf(value: unknown): DecimalParts | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? numberToDecimalParts(value) : undefined;
  if (typeof value === 'string') return parseDecimalNumeral(value);
  return undefined;
}

/** Matches a surrogate code unit that is not half of a pair (with the u flag, pairs are one code point). */
const LONE_SURROGATE = /\p{Surrogate}/u;

function checkString(spec: Extract<FieldSpec, { kind: 'string' }>): Check {
  const { pattern } = spec;
  const matcher = pattern === undefined ? undefined : new RegExp(pattern, 'u');
  return (input) => {
    if (typeof input !== 'string') return problems.stringType();
    // A lone surrogate (JSON's "\ud800") is no Unicode text: SQLite would store it as three
    // U+FFFD, longer than the value that passed the length check.
    if (LONE_SURROGATE.test(input)) return problems.stringUnicode();
    // The value as it will be stored: a name of zero-width characters only is too short.
    const value = spec.dropsInvisible ? withoutInvisibleCharacters(input) : input;
    if (spec.minLength !== undefined && codePointLength(value, spec.minLength) < spec.minLength) {
      return problems.stringTooShort(spec.minLength);
    }
    if (spec.maxLength !== undefined && codePointLength(value, spec.maxLength) > spec.maxLength) {
      return problems.stringTooLong(spec.maxLength);
    }
    if (pattern !== undefined && !matcher?.test(value)) return problems.stringPatternMismatch(pattern);
    // A blank email counts as absent (decisions.md §4); only a present one must look like one.
    if (spec.format === 'email' && value.trim() !== '') {
      const parts = value.split('@');
      if (parts.length !== 2 || parts.some((part) => part.trim() === '')) {
        return problems.valueError('the email address must look like local@domain');
      }
    }
    return undefined;
  };
}

/** The integer a query parameter's text stands for (`42`, ` +42 `), or undefined. */
export function textInteger(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string' || !/^\s*[+-]?\d{1,15}\s*$/.test(value)) return undefined;
  return Number(value);
}

function checkInteger(spec: Extract<FieldSpec, { kind: 'integer' }>): Check {
  return (input) => {
    const value = spec.acceptsText ? textInteger(input) : input;
    if (spec.acceptsText && value === undefined) return typeof input === 'string' ? problems.intParsing() : problems.intType();
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) return problems.intType();
    if (spec.minimum !== undefined && value < spec.minimum) return problems.greaterThanEqual(spec.minimum);
    if (spec.maximum !== undefined && value > spec.maximum) return problems.lessThanEqual(spec.maximum);
    return undefined;
  };
}

function checkMoney(spec: Extract<FieldSpec, { kind: 'money' }>): Check {
  return (value) => {
    const parts = decimalPartsOf(value);
    if (!parts) return problems.decimalParsing();
    const isZero = /^0*$/.test(parts.whole) && /^0*$/.test(parts.fraction);
    if (spec.exclusiveMinimum === 0 && (parts.negative || isZero)) return problems.greaterThan(0);
    if (spec.minimum === 0 && parts.negative && !isZero) return problems.greaterThanEqual(0);
    if (parts.fraction.replace(/0+$/, '').length > spec.maxFractionDigits) {
      return problems.decimalMaxPlaces(spec.maxFractionDigits);
    }
    if (parts.whole.length > spec.maxWholeDigits) return problems.decimalWholeDigits(spec.maxWholeDigits);
    return undefined;
  };
}

function scalarCheck(spec: FieldSpec): Check {
  switch (spec.kind) {
    case 'string':
      return checkString(spec);
    case 'integer':
      return checkInteger(spec);
    case 'money':
      return checkMoney(spec);
    case 'boolean':
      if (spec.acceptsText) return (value) => (textBoolean(value) === undefined ? problems.boolParsing() : undefined);
      return (value) => (typeof value === 'boolean' ? undefined : problems.boolType());
    case 'uuid':
      return (value) => {
        const error = uuidError(value);
        return error === undefined ? undefined : problems.uuidParsing(error);
      };
    case 'date':
      return (value) => {
        const error = typeof value === 'string' ? dateError(value) : 'expected a string';
        return error === undefined ? undefined : problems.dateParsing(error);
      };
    case 'datetime':
      return (value) => {
        const parsed = typeof value === 'string' ? parseDateTime(value) : 'expected a string';
        return typeof parsed === 'string' ? problems.datetimeParsing(parsed) : undefined;
      };
    case 'decimal':
      return (value) => (decimalPartsOf(value) ? undefined : problems.decimalParsing());
    case 'literal':
      return (value) => (typeof value === 'string' && spec.values.includes(value) ? undefined : problems.literalError(spec.values));
    default:
      throw new Error(`${spec.kind} is not a scalar kind`);
  }
}

function asFailure(problem: Problem): Partial<Failure> {
  return { type: problem.type, message: problem.msg, ctx: problem.ctx } as Partial<Failure>;
}

/** Applies presence rules (missing, null) before the kind's own check. */
function presenceThen(spec: Pick<FieldSpec, 'required' | 'nullable'>, check: Check) {
  return (value: unknown): Partial<Failure> | true => {
    if (value === undefined) return spec.required ? asFailure(problems.missing()) : true;
    if (value === null && spec.nullable) return true;
    const problem = check(value);
    return problem ? asFailure(problem) : true;
  };
}

/** A scalar field's struct. */
function scalar(name: string, spec: Pick<FieldSpec, 'required' | 'nullable'>, check: Check): Structure {
  const validator = presenceThen(spec, check);
  return Object.assign(define<unknown>(name, validator) as Struct<unknown, unknown>, {
    accepts: (value: unknown) => validator(value) === true,
  });
}

/**
 * A container whose children are validated by their own structs, each reported at its own
 * path. `children` lists them for superstruct; `childrenAccepted` asks each child's `accepts`.
 */
function container(
  name: string,
  spec: Pick<FieldSpec, 'required' | 'nullable'>,
  check: Check,
  children: (value: unknown) => Iterable<[string | number, unknown, Structure]>,
  childrenAccepted: (value: unknown) => boolean,
): Structure {
  const validator = presenceThen(spec, check);
  const struct = new Struct<unknown, unknown>({
    type: name,
    schema: null,
    validator,
    *entries(value) {
      if (value !== undefined && value !== null && check(value) === undefined) yield* children(value);
    },
  });
  // A container that passed its own check is absent, null, or has children to check.
  const accepts = (value: unknown) => validator(value) === true && (value === undefined || value === null || childrenAccepted(value));
  return Object.assign(struct, { accepts });
}

const isObjectCheck =
  (problem: () => Problem): Check =>
  (value) =>
    isPlainObject(value) ? undefined : problem();
const isArrayCheck: Check = (value) => (Array.isArray(value) ? undefined : problems.listType());

/** A list of at most `maxItems` (no bound when undefined). */
const isListCheck =
  (maxItems: number | undefined): Check =>
  (value) => {
    if (!Array.isArray(value)) return problems.listType();
    return maxItems !== undefined && value.length > maxItems ? problems.tooLong('List', maxItems, value.length) : undefined;
  };

/**
 * The struct of a list whose value passes `check` (a list, perhaps bounded) and whose items each
 * pass `item`, reported at their index.
 */
function listStruct(name: string, presence: Pick<FieldSpec, 'required' | 'nullable'>, check: Check, item: Structure): Structure {
  return container(
    name,
    presence,
    check,
    function* (value) {
      for (const [index, entry] of (value as unknown[]).entries()) yield [index, entry, item];
    },
    (value) => {
      for (const entry of value as unknown[]) if (!item.accepts(entry)) return false;
      return true;
    },
  );
}

/**
 * The struct of an object made of `fields`. Unknown keys are ignored (decisions.md §3).
 * `notObject` is the problem reported for a value that is not an object.
 */
export function objectStruct(
  name: string,
  fields: readonly FieldSpec[],
  presence: Pick<FieldSpec, 'required' | 'nullable'> = { required: true },
  notObject: () => Problem = problems.dictType,
): Structure {
  const schema = fields.map((spec) => [spec.name, structFor(spec)] as const);
  return container(
    name,
    presence,
    isObjectCheck(notObject),
    function* (value) {
      const object = value as Record<string, unknown>;
      for (const [key, struct] of schema) yield [key, object[key], struct];
    },
    (value) => {
      const object = value as Record<string, unknown>;
      for (const [key, struct] of schema) if (!struct.accepts(object[key])) return false;
      return true;
    },
  );
}

/** The struct that validates one field's value. */
export function structFor(spec: FieldSpec): Structure {
  switch (spec.kind) {
    case 'object':
      return objectStruct(spec.name, spec.fields, spec);
    case 'uuid_list':
      return listStruct(spec.name, spec, isListCheck(spec.maxItems), structFor({ name: 'item', kind: 'uuid', required: true }));
    case 'string_list': {
      const item = structFor({ name: 'item', kind: 'string', required: true, maxLength: spec.maxItemLength });
      return listStruct(spec.name, spec, isListCheck(spec.maxItems), item);
    }
    case 'object_list':
      return listStruct(spec.name, spec, isArrayCheck, objectStruct('item', spec.fields));
    case 'string_list_map': {
      const text = structFor({ name: 'item', kind: 'string', required: true, maxLength: spec.maxItemLength });
      const list = listStruct('list', { required: true }, isListCheck(spec.maxItems), text);
      // A key is checked as pydantic reports it: at [..., key, '[key]'].
      const keyHolder = objectStruct('key', [{ name: '[key]', kind: 'string', required: true, maxLength: spec.maxKeyLength }]);
      const isMap: Check = (value) => {
        if (!isPlainObject(value)) return problems.dictType();
        const keys = Object.keys(value).length;
        return keys > spec.maxKeys ? problems.tooLong('Dictionary', spec.maxKeys, keys) : undefined;
      };
      return container(
        spec.name,
        spec,
        isMap,
        function* (value) {
          for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
            yield [key, { '[key]': key }, keyHolder];
            yield [key, entry, list];
          }
        },
        (value) => {
          for (const [key, entry] of Object.entries(value as Record<string, unknown>))
            if (!keyHolder.accepts({ '[key]': key }) || !list.accepts(entry)) return false;
          return true;
        },
      );
    }
    default:
      return scalar(spec.name, spec, scalarCheck(spec));
  }
}
