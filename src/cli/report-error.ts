import { CommanderError } from 'commander';
import { classifyError, errors, refusalBody, ValidationError, type ValidationIssue } from '../domain/errors.js';
import { optionFlag } from './field-options.js';
import type { CliIo } from './io.js';
import { inertJson, visibleText } from './terminal-text.js';

/** What a person at the desk can do about a failing value, by its pydantic type. */
const HINTS: Readonly<Record<string, string>> = {
  decimal_parsing: 'write the amount with digits and a dot, e.g. 40.00 (not 40,00)',
  decimal_max_places: 'at most 2 digits after the dot, e.g. 40.50',
  decimal_whole_digits: 'at most 8 digits before the dot',
  greater_than: 'the amount must be more than 0',
  uuid_parsing: 'use the number on paper (P-42, A-17, INV-2026-2) or the id printed when it was made (36 characters)',
  datetime_parsing: 'a date and time like 2026-12-01T09:00 (clinic time) or 2026-12-01T08:00Z',
  date_parsing: 'a date like 2026-12-01',
  date_from_datetime_parsing: 'a date like 2026-12-01',
  missing: 'this option is required',
  string_too_long: 'shorten it',
};

/** Ids that have no number on paper: where to find them instead of the uuid_parsing hint above. */
const ID_HINTS: Readonly<Record<string, string>> = {
  resource_id: "the doctor's id: `clinic doctor list` prints each doctor's (36 characters)",
  service_id: "the service's id: `clinic service list` prints each service's (36 characters)",
  service_ids: "the services' ids: `clinic service list` prints each service's (36 characters)",
  // `clinic api-key revoke ID`, the one command whose id field is named just `id`.
  id: "the key's id: `clinic api-key list` prints each key's (36 characters)",
  document_id: "the document's id: `clinic patient show P-42` prints each document's (36 characters)",
};

/** `did you mean A, B or C?` from the names a refusal offers in `ctx.did_you_mean` (a time zone for a city). */
function suggestion(ctx: ValidationIssue['ctx']): string | undefined {
  const names = Array.isArray(ctx?.did_you_mean) ? ctx.did_you_mean.filter((name) => typeof name === 'string') : [];
  if (names.length === 0) return undefined;
  const last = names.pop()!;
  return `did you mean ${names.length === 0 ? last : `${names.join(', ')} or ${last}`}?`;
}

/** The hint for one failing value: what it may have meant, else by its field where that says more, else by its type. */
function hintFor({ loc, type, ctx }: ValidationIssue): string | undefined {
  return suggestion(ctx) ?? (type === 'uuid_parsing' ? ID_HINTS[String(loc[1])] : undefined) ?? HINTS[type];
}

/** What a person at the desk can do about a refusal, by its code (printed below the error, never with --json). */
const CODE_HINTS: Readonly<Record<string, string>> = {
  PATIENT_NOT_FOUND: '`clinic patient find NAME` finds the patient and prints their number (P-000042, or P-42)',
  APPOINTMENT_NOT_FOUND: "`clinic appointment list --date YYYY-MM-DD` lists a day's appointments and their numbers",
  INVOICE_NOT_FOUND: "`clinic invoice list --patient-id P-42` lists a patient's invoices and their numbers",
  DOCTOR_NOT_FOUND: "`clinic doctor list` shows every doctor's name; give more of the name, or the id",
  DOCUMENT_NOT_FOUND: "`clinic patient show P-42` lists a patient's documents with their ids",
  FILE_EXISTS: 'choose another file name, or add --force to replace that file',
  MODULE_DISABLED: "`clinic module enable NAME` switches it on (ask whoever looks after the clinic's setup)",
};

/**
 * `["body","first_name"]` → `--first-name`: the option the value came from, as staff typed it;
 * a field the command takes as a positional argument by that argument's name (`<ref>`).
 */
function optionName(loc: readonly (string | number)[], argumentNames: ReadonlyMap<string, string>): string {
  const [, field, ...rest] = loc;
  if (typeof field === 'string') return [argumentNames.get(field) ?? optionFlag(field), ...rest].join('.');
  return loc.join('.');
}

/** Exit codes of decisions.md §8. */
export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;

/**
 * The one place a failed command is turned into output and an exit code: refused requests
 * print the API's error code (and with --json the API's error body) and exit 1.
 */
export function reportError(io: CliIo, error: unknown, json: boolean, argumentNames: ReadonlyMap<string, string> = new Map()): number {
  if (error instanceof CommanderError) {
    // commander has already printed its own message (usage errors) or the help text.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  // Messages may carry stored or typed text: shown, never obeyed, by the terminal (terminal-text.ts).
  const say = (text: string) => io.stderr(json ? inertJson(text) : visibleText(text));
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
      const lines = refusal.issues.map((i) => {
        const hint = hintFor(i);
        // The hint on a line of its own, so that the message stays within 100 columns.
        return `  ${optionName(i.loc, argumentNames)}: ${i.msg} (${i.type})${hint === undefined ? '' : `\n    hint: ${hint}`}`;
      });
      say(`error: VALIDATION_ERROR: the input is not valid\n${lines.join('\n')}\n`);
    }
    return EXIT.refused;
  }
  if (json) say(`${JSON.stringify(refusalBody(refusal))}\n`);
  else {
    const hint = CODE_HINTS[refusal.code];
    say(`error: ${refusal.code}: ${refusal.message}\n${hint === undefined ? '' : `hint: ${hint}\n`}`);
  }
  return EXIT.refused;
}
