import type { Failure, Struct } from 'superstruct';
import { ValidationError, type LocSource, type ValidationIssue } from '../../errors.js';
import { problems, type Problem } from './problems.js';
import { isPlainObject, objectStruct, type Structure } from './structs.js';
import type { FieldSpec, ValuesOf } from '../../fields/field-spec.js';
import { normalizeFields, type NormalizeContext } from './values.js';

/** Nesting deeper than this is cut from an echoed `input`, so rendering an error can never overflow the stack. */
const MAX_ECHO_DEPTH = 16;

/**
 * The bounds of what a 422 repeats of its request, so that its answer is small whatever was
 * sent (a missing field echoes the whole enclosing object, as pydantic does; that was 10 MB for
 * a 3.5 MB body of unknown keys). Within them an `input` is echoed exactly; past them it is cut
 * deterministically, its first part kept and a marker saying what was left out: a string keeps
 * `stringChars` characters and ends `…+N more characters`, an object its first `entries` members
 * and a last member `"…": "+N more keys"`, a list its first `entries` items and a last item
 * `"…+N more items"`, and each stops early once the `input` has `bytes` of JSON.
 */
export const ECHO_BOUNDS = {
  /** Characters of one string (longer than any field but avatar). */
  stringChars: 1000,
  /** Members of one object or items of one list (more than a patient's fields). */
  entries: 256,
  /** JSON bytes of one issue's `input`. */
  bytes: 16 * 1024,
  /** JSON bytes of the whole `detail` list: issues past it are left out, so a 422 stays under 64 KiB. */
  detailBytes: 60 * 1024,
} as const;

/** The UTF-8 length of `value` as JSON. */
const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? 'null');

/** What is left of one echo's byte budget, spent as the copy is made. */
interface EchoBudget {
  left: number;
}

/** `text` whole, or its head and a marker when it is longer than the bounds or the budget allow. */
function echoString(text: string, budget: EchoBudget): string {
  if (text.length <= ECHO_BOUNDS.stringChars) {
    const bytes = jsonBytes(text);
    if (bytes <= budget.left) {
      budget.left -= bytes;
      return text;
    }
  }
  // The head shrinks (by halves, so it stays cheap) until it and the marker fit the budget.
  const room = budget.left - 40;
  let keep = Math.max(0, Math.min(ECHO_BOUNDS.stringChars, room));
  while (keep > 0 && jsonBytes(text.slice(0, keep)) > room) keep = Math.floor(keep / 2);
  // Never half of a surrogate pair.
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep--;
  const cut = `${text.slice(0, keep)}…+${text.length - keep} more characters`;
  budget.left -= jsonBytes(cut);
  return cut;
}

function echo(value: unknown, budget: EchoBudget, depth = 0): unknown {
  if (typeof value === 'string') return echoString(value, budget);
  if (typeof value !== 'object' || value === null) {
    budget.left -= jsonBytes(value);
    return value;
  }
  budget.left -= 2;
  if (depth >= MAX_ECHO_DEPTH) return Array.isArray(value) ? [] : {};
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const [index, item] of value.entries()) {
      if (index >= ECHO_BOUNDS.entries || budget.left <= 0) {
        items.push(`…+${value.length - index} more items`);
        break;
      }
      items.push(echo(item, budget, depth + 1));
      budget.left -= 1;
    }
    return items;
  }
  const keys = Object.keys(value);
  // Entries, not assignment: a `__proto__` key stays a key of the echo.
  const entries: [string, unknown][] = [];
  for (const [index, key] of keys.entries()) {
    if (index >= ECHO_BOUNDS.entries || budget.left <= 0) {
      entries.push(['…', `+${keys.length - index} more keys`]);
      break;
    }
    // A key is cut past the bounds like any echoed string.
    entries.push([echoString(key, budget), echo((value as Record<string, unknown>)[key], budget, depth + 1)]);
    budget.left -= 2;
  }
  return Object.fromEntries(entries);
}

/** `input` as a 422 repeats it: exactly within ECHO_BOUNDS, cut past them, at most `bytes` of JSON. */
export function echoInput(input: unknown, bytes: number = ECHO_BOUNDS.bytes): unknown {
  return echo(input, { left: bytes });
}

/** A `loc` whose strings are cut like an echoed string (a communication_prefs key can be megabytes long). */
function boundedLoc(loc: ValidationIssue['loc']): ValidationIssue['loc'] {
  return loc.map((part) =>
    typeof part === 'string' && part.length > ECHO_BOUNDS.stringChars ? echoString(part, { left: ECHO_BOUNDS.bytes }) : part,
  );
}

/** One pydantic-style issue at `loc`, for checks made outside a struct. */
export function issue(loc: ValidationIssue['loc'], problem: Problem, input: unknown): ValidationIssue {
  return {
    type: problem.type,
    loc: boundedLoc(loc),
    msg: problem.msg,
    input: echoInput(input),
    ...(problem.ctx ? { ctx: problem.ctx } : {}),
  };
}

/** The issue of `failure`, its `input` echoed in at most `echoBytes` of JSON. */
function toIssue(failure: Failure, source: LocSource, echoBytes: number): ValidationIssue {
  const { ctx } = failure as Failure & { ctx?: Record<string, unknown> };
  // pydantic echoes the enclosing object for a missing field.
  const input = failure.type === 'missing' ? failure.branch[failure.branch.length - 2] : failure.value;
  return {
    type: failure.type,
    loc: boundedLoc([source, ...(failure.path as (string | number)[])]),
    msg: failure.message,
    input: echoInput(input, echoBytes),
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
  let left = ECHO_BOUNDS.detailBytes;
  for (const failure of failuresOf(value, struct, [], [value])) {
    // The echo gets what the list has left once the rest of the issue is counted, so that many
    // issues echoing a large value stop at the list's bound instead of costing 1000 echoes each.
    const overhead = jsonBytes(toIssue(failure, source, 0)) + 1;
    if (overhead > left) break;
    const item = toIssue(failure, source, Math.min(ECHO_BOUNDS.bytes, left - overhead));
    const size = jsonBytes(item) + 1;
    if (size > left && issues.length > 0) break;
    issues.push(item);
    left -= size;
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
  const secrets = secretNames(fields);
  const issues = (value: unknown): ValidationIssue[] => {
    // No body, or a JSON null, is a required body left out (FastAPI's `missing` at ["body"]).
    if (source === 'body' && (value === undefined || value === null)) return [issue([source], problems.missing(), null)];
    if (!isPlainObject(value)) return [issue([source], problems.modelAttributesType(), value)];
    return withSecretsHidden(collectIssues(struct, value, source), secrets);
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

/** What a 422 echoes in place of a secret's value. */
export const SECRET_ECHO = '(not shown)';

/**
 * `issues` without the values of the fields named `secrets` (a PIN, a gateway's token): an issue
 * at one of them echoes SECRET_ECHO, and an object echoed whole (the body around a missing field)
 * has theirs replaced, so that a refusal printed or logged never holds a secret.
 */
export function withSecretsHidden(issues: readonly ValidationIssue[], secrets: ReadonlySet<string>): ValidationIssue[] {
  if (secrets.size === 0) return [...issues];
  return issues.map((found) => {
    if (typeof found.loc[1] === 'string' && secrets.has(found.loc[1])) return { ...found, input: SECRET_ECHO };
    if (!isPlainObject(found.input) || !Object.keys(found.input).some((key) => secrets.has(key))) return found;
    const input = Object.fromEntries(Object.entries(found.input).map(([key, value]) => [key, secrets.has(key) ? SECRET_ECHO : value]));
    return { ...found, input };
  });
}

/** The names of the secret fields among `fields`. */
export const secretNames = (fields: readonly FieldSpec[]): ReadonlySet<string> =>
  new Set(fields.filter((spec) => spec.secret === true).map((spec) => spec.name));

/**
 * Throws one ValidationError with the issues of every request part (path, query, headers and
 * body are reported together, decisions.md §1), or returns when there are none.
 */
export function throwIfIssues(...issueLists: ValidationIssue[][]): void {
  const issues = issueLists.flat();
  if (issues.length > 0) throw new ValidationError(withinDetailBytes(issues));
}

/** The first issues of `issues` whose JSON fits in ECHO_BOUNDS.detailBytes (at least one). */
function withinDetailBytes(issues: ValidationIssue[]): ValidationIssue[] {
  let left = ECHO_BOUNDS.detailBytes;
  for (const [index, item] of issues.entries()) {
    left -= jsonBytes(item) + 1;
    if (left < 0 && index > 0) return issues.slice(0, index);
  }
  return issues;
}
