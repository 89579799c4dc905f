import { CommanderError, type Command } from 'commander';
import { errors, refusalBody, ValidationError, type ValidationIssue } from '../errors.js';
import { classifyError } from '../domain/classify-error.js';
import { DESK_AMOUNT_FORMS, DESK_DATE_HINT, DESK_DATE_TIME_HINT } from './desk-input.js';
import { editDistance } from '../domain/validation/edit-distance.js';
import { fieldLabels, optionFlag } from './field-options.js';
import type { CliIo } from './io.js';
import { inertJson, visibleText } from './terminal-text.js';

/** The widest line a refusal prints (clinic-api-1.1.md: people's output within 100 columns). */
const REFUSAL_COLUMNS = 100;

/** What a person at the desk can do about a failing value, by its pydantic type. */
const HINTS: Readonly<Record<string, string>> = {
  json_invalid: 'the file must hold one JSON object, shaped as the body of POST /patients',
  decimal_parsing: `write the amount with digits, e.g. ${DESK_AMOUNT_FORMS}`,
  decimal_max_places: 'at most 2 digits after the decimal mark, e.g. 40.50 or 40,50',
  decimal_whole_digits: 'at most 8 digits before the decimal mark',
  greater_than: 'the amount must be more than 0',
  uuid_parsing: 'the number on paper (P-42, A-17, INV-2026-2) or the id printed when it was made',
  datetime_parsing: `a date and time in clinic time: ${DESK_DATE_TIME_HINT}`,
  date_parsing: `a date: ${DESK_DATE_HINT}`,
  date_from_datetime_parsing: `a date: ${DESK_DATE_HINT}`,
  string_too_long: 'shorten it',
};

/**
 * What the desk says of a failing value, by its pydantic type, where the API's message would say
 * the format the hint gives again, or speak of UUIDs; other types keep the API's message.
 */
const DESK_MESSAGES: Readonly<Record<string, string>> = {
  date_parsing: 'is not a date',
  date_from_datetime_parsing: 'is not a date',
  datetime_parsing: 'is not a date and time',
  uuid_parsing: 'is neither a number on paper nor an id',
  literal_error: 'is not one of the choices',
  missing: 'is required',
};

/** Ids that have no number on paper: where to find them instead of the uuid_parsing hint above. */
const ID_HINTS: Readonly<Record<string, string>> = {
  resource_id: "the doctor's name or id: `clinic doctor list` prints them",
  service_id: "the service's name or id: `clinic service list` prints them",
  service_ids: "the services' ids: `clinic service list` prints them",
  // `clinic api-key revoke KEY`, the one command whose id field is named just `id`.
  id: "the key's name or id: `clinic api-key list` prints each key's",
};

/** Numbers on paper the uuid_parsing hint above does not name, and where to find them. */
const NUMBER_HINTS: Readonly<Record<string, string>> = {
  document_id: "the document's number (D-000017, D-17) or id: `clinic document list P-42` prints each document's number",
};

/** What to do about a missing value, by its field, where the field says more than "is required". */
const MISSING_HINTS: Readonly<Record<string, string>> = {
  end_at: 'give --end-at, or a --service: its length then sets the end',
};

/** The closest choice to a mistyped one (`appointments:wirte` → `appointments:write`), if one is close. */
function closestChoice(typed: string, choices: readonly string[]): string | undefined {
  const scored = choices.map((choice) => ({ choice, distance: editDistance(typed.toLowerCase(), choice.toLowerCase()) }));
  const best = scored.sort((a, b) => a.distance - b.distance)[0];
  return best !== undefined && best.distance <= Math.max(1, Math.floor(best.choice.length / 4)) ? best.choice : undefined;
}

/** `did you mean A, B or C?` from the names a refusal offers in `ctx.did_you_mean` (a time zone for a city). */
function suggestion(ctx: ValidationIssue['ctx']): string | undefined {
  const names = Array.isArray(ctx?.did_you_mean) ? ctx.did_you_mean.filter((name) => typeof name === 'string') : [];
  if (names.length === 0) return undefined;
  const last = names.pop()!;
  return `did you mean ${names.length === 0 ? last : `${names.join(', ')} or ${last}`}?`;
}

/** The hint for one failing value: what it may have meant, else by its field where that says more, else by its type. */
function hintFor(failing: ValidationIssue): string | undefined {
  if (failing.type === 'literal_error') {
    const choices = literalChoices(failing);
    const close = typeof failing.input === 'string' ? closestChoice(failing.input, choices) : undefined;
    return `${close === undefined ? '' : `did you mean ${close}? `}one of: ${choices.join(', ')}`;
  }
  const byField = failing.type === 'uuid_parsing' ? { ...ID_HINTS, ...NUMBER_HINTS } : failing.type === 'missing' ? MISSING_HINTS : {};
  return suggestion(failing.ctx) ?? byField[String(failing.loc[1])] ?? HINTS[failing.type];
}

/** The choices a literal_error offered (its ctx.expected: `'a', 'b' or 'c'`). */
function literalChoices(failing: ValidationIssue): string[] {
  const expected = failing.ctx?.expected;
  return typeof expected === 'string' ? [...expected.matchAll(/'([^']*)'/g)].map((match) => match[1]!) : [];
}

/** What a person at the desk can do about a refusal, by its code (printed below the error, never with --json). */
const CODE_HINTS: Readonly<Record<string, string>> = {
  PATIENT_NOT_FOUND: '`clinic patient find NAME` finds the patient and prints their number (P-000042, or P-42)',
  APPOINTMENT_NOT_FOUND: "`clinic appointment list --date 30.11.2026` lists a day's appointments and their numbers",
  INVOICE_NOT_FOUND: "`clinic invoice list --patient-id P-42` lists a patient's invoices and their numbers",
  DOCTOR_NOT_FOUND: "`clinic doctor list` shows every doctor's name; give more of the name, or the id",
  SERVICE_NOT_FOUND: "`clinic service list` shows every service's name; give more of the name, or the id",
  DOCUMENT_NOT_FOUND: "`clinic document list P-42` lists a patient's documents with their numbers (D-000017)",
  FILE_EXISTS: 'choose another file name, or add --force to replace that file',
  API_KEY_NOT_FOUND: "`clinic api-key list` shows every key's name and id",
  PATIENT_DUPLICATE: '`clinic patient show P-42` shows that patient; if this is another person, add --allow-duplicate',
  APPOINTMENT_NOT_STARTED: 'check the appointment number; if the status is meant all the same, add --force',
  MODULE_DISABLED: "`clinic module enable NAME` switches it on (ask whoever looks after the clinic's setup)",
  PATIENT_CONTACT_REQUIRED:
    "never invent an address: if the clinic registers patients without one, `clinic settings set-contact-rule email-or-mobile` (or `none`) allows it (ask whoever looks after the clinic's setup)",
};

/** The longest value a refusal repeats; a longer one is cut with `…`, so that its line stays readable. */
const SHOWN_VALUE_CHARACTERS = 40;

/** `value` as a refusal quotes it: on one line, at most SHOWN_VALUE_CHARACTERS. */
function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const line = text.replace(/\s+/g, ' ');
  return JSON.stringify(line.length > SHOWN_VALUE_CHARACTERS ? `${line.slice(0, SHOWN_VALUE_CHARACTERS - 1)}…` : line);
}

/**
 * The option (or argument) a failing value came from, as the person typed it, and the value typed:
 * `["body","first_name"]` → `--first-name` and the option's text; a field given another way
 * (labelField: `<ref>`, `--invoice`) by that label; an item of a list option (`--scopes`) by
 * the item that failed.
 */
function typedValue(failing: ValidationIssue, command: Command | undefined): { label: string; value?: unknown } {
  const [, field, ...rest] = failing.loc;
  // Text that is not JSON at all comes only from a --file (create-patient), which the message names.
  if (failing.type === 'json_invalid') return { label: '--file' };
  if (typeof field !== 'string') return { label: failing.loc.join('.'), value: failing.input };
  const label = fieldLabels(command).get(field) ?? optionFlag(field);
  if (rest.length > 0 || command === undefined) return { label, value: failing.input };
  if (label.startsWith('--')) {
    const option = command.options.find((candidate) => candidate.long === label);
    const value: unknown = option === undefined ? undefined : command.getOptionValue(option.attributeName());
    return { label, value: value ?? failing.input };
  }
  const position = command.registeredArguments.findIndex((argument) => `<${argument.name()}>` === label);
  return { label, value: position < 0 ? failing.input : command.processedArgs[position] };
}

/** Whether `message` quotes `value` itself (whole, or cut short as the time zone refusal does). */
function quotesAlready(message: string, value: unknown): boolean {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return message.includes(`"${text.slice(0, 12)}`);
}

/** One failing value, for people: the option, the value typed, what is wrong, and the hint on a line of its own. */
function describeIssue(failing: ValidationIssue, command: Command | undefined): string {
  const { label, value } = typedValue(failing, command);
  // An id with no number on paper (a doctor's, a key's) is just not an id.
  const idOnly = failing.type === 'uuid_parsing' && ID_HINTS[String(failing.loc[1])] !== undefined;
  const message = idOnly ? 'is not an id' : (DESK_MESSAGES[failing.type] ?? failing.msg);
  // The value once: not again where the message already quotes it.
  const shown = failing.type === 'missing' || value === undefined || quotesAlready(message, value) ? label : `${label} ${quoted(value)}`;
  const hint = hintFor(failing);
  return `  ${shown}: ${message} (${failing.type})${hint === undefined ? '' : `\n    hint: ${hint}`}`;
}

/**
 * A message too long for its line with each sentence after the first on a line of its own: the
 * refusal stays on the error line and what to do about it follows, so that few lines need wrapping.
 */
function sentencesOnLines(message: string, lead: string): string {
  if (lead.length + message.length <= REFUSAL_COLUMNS) return message;
  return message.replace(/([.!?]) (?=[A-Z`])/g, '$1\n  ');
}

/** Characters as a terminal counts them (code points). */
const columnsOf = (text: string) => [...text].length;

/**
 * Whether a word of a message is a file or folder path (`/var/lib/clinic/data`, `~/x`,
 * `C:\ProgramData\Clinic`, also in parentheses or quotes): never broken, and on a line of its
 * own where it does not fit on the line it is in, so that it can be copied whole.
 */
const isPath = (word: string) => /^[("'`]?(?:[A-Za-z]:[\\/]|~?\/[^/\s]|\\\\)/.test(word);

/**
 * One line of a message in lines of at most `columns`, broken at spaces, each further line
 * indented two more than the first. A path that does not fit where it is goes on a line of its
 * own, whole, however long; no word is cut.
 */
function wrapLine(line: string, columns: number): string[] {
  if (columnsOf(line) <= columns) return [line];
  const indent = /^ */.exec(line)![0];
  const further = `${indent}  `;
  const lines: string[] = [];
  let current = '';
  const lead = () => (lines.length === 0 ? indent : further);
  const flush = () => {
    if (current !== '') lines.push(current);
    current = '';
  };
  for (const word of line.slice(indent.length).split(' ')) {
    if (word === '') continue;
    const fits = current === '' || columnsOf(current) + 1 + columnsOf(word) <= columns;
    if (isPath(word) && !fits) {
      flush();
      lines.push(`${further}${word}`);
    } else if (current === '') current = `${lead()}${word}`;
    else if (columnsOf(current) + 1 + columnsOf(word) <= columns) current = `${current} ${word}`;
    else {
      flush();
      current = `${further}${word}`;
    }
  }
  flush();
  return lines;
}

/**
 * `text` with every line over `columns` (REFUSAL_COLUMNS: the desk's 100) broken at spaces, the
 * error line too, and each path kept whole on a line of its own (wrapLine).
 */
export function wrapLines(text: string, columns = REFUSAL_COLUMNS): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, columns))
    .join('\n');
}

/** Exit codes of decisions.md §8. */
export const EXIT = { ok: 0, refused: 1, usage: 2, noServer: 3 } as const;

/** A desk PC whose server did not answer (interface 1.3.0): exit 3, which exists only there. */
const NO_SERVER = new Set(['SERVER_UNREACHABLE', 'SERVER_NO_ANSWER']);

/**
 * The one place a failed command is turned into output and an exit code: refused requests
 * print the API's error code (and with --json the API's error body) and exit 1.
 */
export function reportError(io: CliIo, error: unknown, json: boolean, command?: Command): number {
  if (error instanceof CommanderError) {
    // commander has already printed its own message (usage errors) or the help text.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  // Messages may carry stored or typed text: shown, never obeyed, by the terminal (terminal-text.ts).
  const say = (text: string) => io.stderr(json ? inertJson(text) : wrapLines(visibleText(text)));
  const refusal = classifyError(error);
  if (refusal === undefined) {
    // A bug, not a refusal: the INTERNAL code like the API's, and what went wrong for whoever reports it.
    const internal = errors.internal();
    const cause = error instanceof Error ? (error.stack ?? error.message) : String(error);
    if (json) say(`${JSON.stringify({ detail: { code: internal.code, message: `${internal.message} ${cause.split('\n')[0]}` } })}\n`);
    else say(`error: ${internal.code}: this is a bug in clinic, please report it with what follows:\n${cause}\n`);
    return EXIT.refused;
  }
  if (refusal instanceof ValidationError) {
    if (json) say(`${JSON.stringify({ detail: refusal.issues })}\n`);
    else {
      const lines = refusal.issues.map((failing) => describeIssue(failing, command));
      say(`error: VALIDATION_ERROR: the input is not valid\n${lines.join('\n')}\n`);
    }
    return EXIT.refused;
  }
  if (json) say(`${JSON.stringify(refusalBody(refusal))}\n`);
  else {
    const hint = CODE_HINTS[refusal.code];
    say(
      `error: ${refusal.code}: ${sentencesOnLines(refusal.message, `error: ${refusal.code}: `)}\n${hint === undefined ? '' : `hint: ${hint}\n`}`,
    );
  }
  return NO_SERVER.has(refusal.code) ? EXIT.noServer : EXIT.refused;
}
