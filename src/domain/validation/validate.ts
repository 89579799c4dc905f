import type { Failure, Struct } from 'superstruct';
import { ValidationError, type LocSource, type ValidationIssue } from '../errors.js';
import { problems, type Problem } from './problems.js';
import { isPlainObject, objectStruct, type Structure } from './structs.js';
import type { FieldSpec, ValuesOf } from '../../fields/field-spec.js';
import { normalizeFields, type NormalizeContext } from './values.js';

/** Nesting deeper than this is cut from an echoed `input`, so rendering an error can never overflow the stack. */
const MAX_ECHO_DEPTH = 16;

function echo(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_ECHO_DEPTH) return Array.isArray(value) ? [] : {};
  if (Array.isArray(value)) return value.map((item) => echo(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, echo(v, depth + 1)]));
}

/** One pydantic-style issue at `loc`, for checks made outside a struct. */
export function issue(loc: ValidationIssue['loc'], problem: Problem, input: unknown): ValidationIssue {
  return { type: problem.type, loc, msg: problem.msg, input: echo(input), ...(problem.ctx ? { ctx: problem.ctx } : {}) };
}

function toIssue(failure: Failure, source: LocSource): ValidationIssue {
  const { ctx } = failure as Failure & { ctx?: Record<string, unknown> };
  // pydantic echoes the enclosing object for a missing field.
  const input = failure.type === 'missing' ? failure.branch[failure.branch.length - 2] : failure.value;
  return {
    type: failure.type,
    loc: [source, ...(failure.path as (string | number)[])],
    msg: failure.message,
    input: echo(input),
    ...(ctx ? { ctx } : {}),
  };
}

/**
 * At most this many issues are reported for one request. pydantic reports every one, but a 4 MiB
 * body can hold a million bad list items, and collecting them all costs seconds and a gigabyte;
 * past this a client learns nothing more anyway.
 */
export const MAX_ISSUES = 1000;

type AnyStruct = Struct<unknown, unknown>;

/**
 * The failures of `value` against `struct`, lazily and in document order: superstruct's own
 * validate() collects every failure before returning the first, which this must not do.
 */
function* failuresOf(value: unknown, struct: AnyStruct, path: unknown[], branch: unknown[]): Generator<Failure> {
  const context = { path, branch, mask: false };
  let valid = true;
  for (const failure of struct.validator(value, context)) {
    valid = false;
    yield failure;
  }
  for (const [key, child, childStruct] of struct.entries(value, context)) {
    for (const failure of failuresOf(child, childStruct as AnyStruct, [...path, key], [...branch, child])) {
      valid = false;
      yield failure;
    }
  }
  if (valid) yield* struct.refiner(value, context);
}

/**
 * The issues superstruct's walk finds in `value` (at most MAX_ISSUES), each located under
 * `source`. Exported for the test that holds `Structure.accepts` to the same verdict.
 */
export function walkIssues(struct: AnyStruct, value: unknown, source: LocSource): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const failure of failuresOf(value, struct, [], [value])) {
    issues.push(toIssue(failure, source));
    if (issues.length >= MAX_ISSUES) break;
  }
  return issues;
}

/** The issues `struct` finds in `value`; a value it accepts is not walked at all (Structure.accepts). */
export function collectIssues(struct: Structure, value: unknown, source: LocSource): ValidationIssue[] {
  return struct.accepts(value) ? [] : walkIssues(struct, value, source);
}

/**
 * The validator and parser of one field list, built once (at module load, not per request):
 * `issues` reports what is wrong; `parse` validates and returns the normalised, typed values
 * (ValuesOf), so a use case reads `values.total` and a misspelt name does not compile.
 */
export function fieldsValidator<const Fields extends readonly FieldSpec[]>(fields: Fields, source: LocSource) {
  const struct = objectStruct(source, fields);
  const issues = (value: unknown): ValidationIssue[] => {
    // No body, or a JSON null, is a required body left out (FastAPI's `missing` at ["body"]).
    if (source === 'body' && (value === undefined || value === null)) return [issue([source], problems.missing(), null)];
    if (!isPlainObject(value)) return [issue([source], problems.modelAttributesType(), value)];
    return collectIssues(struct, value, source);
  };
  return {
    /** Issues for `value`, or an empty list. */
    issues,
    /** The normalised values of `value`, which must have passed `issues` (several request parts are checked together first). */
    normalize: (value: unknown, context: NormalizeContext): ValuesOf<Fields> =>
      normalizeFields(fields, value as Record<string, unknown>, context),
    /** Throws the ValidationError of `value`, or returns its normalised values. */
    parse(value: unknown, context: NormalizeContext): ValuesOf<Fields> {
      throwIfIssues(issues(value));
      return normalizeFields(fields, value as Record<string, unknown>, context);
    },
  };
}

/**
 * Throws one ValidationError with the issues of every request part (path, query, headers and
 * body are reported together, decisions.md §1), or returns when there are none.
 */
export function throwIfIssues(...issueLists: ValidationIssue[][]): void {
  const issues = issueLists.flat();
  if (issues.length > 0) throw new ValidationError(issues);
}
