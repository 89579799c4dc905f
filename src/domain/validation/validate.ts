import { validate as runStruct, type Failure, type Struct } from 'superstruct';
import { ValidationError, type LocSource, type ValidationIssue } from '../errors.js';
import { problems, type Problem } from './problems.js';
import { isPlainObject, objectStruct } from './structs.js';
import type { FieldSpec } from '../../fields/field-spec.js';

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

/** Every issue `struct` finds in `value`, each located under `source`. */
export function collectIssues(struct: Struct<unknown, unknown>, value: unknown, source: LocSource): ValidationIssue[] {
  const [error] = runStruct(value, struct);
  return error ? error.failures().map((failure) => toIssue(failure, source)) : [];
}

/**
 * The struct of each field list, built once: validators are derived at start-up, not per request.
 */
export function fieldsValidator(fields: readonly FieldSpec[], source: LocSource) {
  const struct = objectStruct(source, fields);
  return {
    /** Issues for `value`, or an empty list. */
    issues(value: unknown): ValidationIssue[] {
      if (!isPlainObject(value)) return [issue([source], problems.modelAttributesType(), value)];
      return collectIssues(struct, value, source);
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
