import type { Command } from 'commander';
import type { Db } from '../db/open-database.js';
import { clinicToday, deskDateText, deskDateTimeText, type ClinicToday } from '../domain/desk/desk-date.js';
import { clinicTimeZone } from '../domain/settings.js';
import type { FieldSpec } from '../fields/field-spec.js';
import { fieldLabel } from './desk-format.js';
import { DESK_AMOUNT_FORMS, DESK_DATE_FORMS, DESK_DATE_TIME_FORMS, deskAmountText } from './desk-input.js';

/** `first_name` → `--first-name`. */
export const optionFlag = (name: string) => `--${name.replaceAll('_', '-')}`;

/** For each command, the label of each request field that is not its own option (`<ref>`, `--invoice`), by field. */
const FIELD_LABELS = new WeakMap<Command, Map<string, string>>();

/**
 * Says that the request field `field` (`invoice_id`) of `command` was given as `label` (`<ref>`,
 * `--invoice`), so that a refusal of its value names what the person typed, not an option
 * `--invoice-id` the command does not have or that was not used.
 */
export function labelField(command: Command, field: string, label: string): void {
  const labels = FIELD_LABELS.get(command) ?? new Map<string, string>();
  labels.set(field, label);
  FIELD_LABELS.set(command, labels);
}

/** A positional argument (`<ref>`) that fills the request field `field` (`appointment_id`). */
export function fieldArgument(command: Command, name: string, description: string, field: string): Command {
  labelField(command, field, name);
  return command.argument(name, description);
}

/** The labels of `command`'s fields given other than as their own option (labelField), by field. */
export function fieldLabels(command: Command | undefined): ReadonlyMap<string, string> {
  return (command && FIELD_LABELS.get(command)) ?? new Map();
}

/** The property commander stores `--first-name` (field `first_name`, or a header's `idempotency-key`) under. */
const attributeName = (name: string) => name.replace(/[_-]([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** What an option's value looks like, in its help line: `--date-of-birth <date>`. */
function placeholder(spec: FieldSpec): string {
  switch (spec.kind) {
    case 'date':
      return '<date>';
    case 'datetime':
      return '<time>';
    case 'uuid':
      return '<id>';
    // Bare, the option says true (`--reminders-opt-out`); a value says which.
    case 'boolean':
      return '[true|false]';
    case 'integer':
      return '<n>';
    case 'decimal':
    case 'money':
      return '<amount>';
    case 'literal':
      return spec.values.join('|').length <= 24 ? `<${spec.values.join('|')}>` : '<choice>';
    case 'string':
      return '<text>';
    default:
      return '<json>';
  }
}

/** The help line of a field: what it is, then how to write it (the format named), then its default. */
function describe(spec: FieldSpec): string {
  const notes = [spec.description ?? fieldLabel(spec.name)];
  if (spec.kind === 'string' && spec.maxLength !== undefined) notes.push(`up to ${spec.maxLength} characters`);
  if (spec.kind === 'date') notes.push(`a date: ${DESK_DATE_FORMS}`);
  if (spec.kind === 'datetime') notes.push(`clinic time: ${DESK_DATE_TIME_FORMS}`);
  if (spec.kind === 'decimal' || spec.kind === 'money') notes.push(`e.g. ${DESK_AMOUNT_FORMS}`);
  if (
    spec.kind === 'object' ||
    spec.kind === 'object_list' ||
    spec.kind === 'string_list_map' ||
    spec.kind === 'uuid_list' ||
    spec.kind === 'string_list'
  )
    notes.push('as JSON');
  if (spec.kind === 'literal' && placeholder(spec) === '<choice>') notes.push(`one of ${spec.values.join(', ')}`);
  if (spec.default !== undefined) notes.push(`default ${typeof spec.default === 'string' ? spec.default : JSON.stringify(spec.default)}`);
  return notes.join('; ');
}

/** The names of options named otherwise than their field, by field, without the leading `--`. */
export type OptionNames = Readonly<Record<string, string>>;

/** Help headings for a command's many fields, each with the fields under it; the rest go under "Other fields:". */
export type OptionGroups = readonly (readonly [heading: string, fields: RegExp])[];

/**
 * Adds one option per field, named after it, so the CLI accepts exactly what the API accepts.
 * Required fields become required options (a missing one is a usage error, exit 2) unless the
 * command can take them from elsewhere, such as a --file.
 */
export function addFieldOptions(
  command: Command,
  fields: readonly FieldSpec[],
  {
    enforceRequired = true,
    /** With enforceRequired off, where else a required value may come from, for the help. */
    requiredElsewhere = '',
    /** Help texts that say more at the desk than the field's own, by field name (a reference the desk resolves). */
    descriptions = {} as Readonly<Record<string, string>>,
    /** Headings that group the fields in the help, for a command with many. */
    groups = [] as OptionGroups,
    /** Options named otherwise than their field, by field (`rate_limit_per_minute` → `rate-limit`); readFieldOptions takes the same. */
    names = {} as OptionNames,
  } = {},
): Command {
  for (const spec of fields) {
    const text = descriptions[spec.name] ?? describe(spec);
    const required = spec.required === true;
    const flag = optionFlag(names[spec.name] ?? spec.name);
    // A refusal of the field's value names the option as it is typed.
    if (names[spec.name] !== undefined) labelField(command, spec.name, flag);
    const option = command.createOption(`${flag} ${placeholder(spec)}`, text);
    if (required && enforceRequired) option.makeOptionMandatory();
    else if (required) option.description = `${text} (required${requiredElsewhere ? ` ${requiredElsewhere}` : ''})`;
    if (groups.length > 0) option.helpGroup(groups.find(([, names]) => names.test(spec.name))?.[0] ?? 'Other fields:');
    command.addOption(option);
  }
  return command;
}

/** Dates that cannot lie ahead, whose two-digit year is in the past (`1.3.40` is born in 1940). */
const PAST_DATES: ReadonlySet<string> = new Set(['date_of_birth']);

/**
 * The option's text as the JSON value the API would receive. Only unambiguous spellings are
 * converted ("true", "12", valid JSON for objects); anything else is passed on as text so that
 * the domain's validation reports it exactly as it would over HTTP.
 */
function fromOptionText(spec: FieldSpec, text: string, today: ClinicToday): unknown {
  switch (spec.kind) {
    // The desk's dates (30.11.2026, tomorrow, 30.11.2026 10:00) become the API's ISO 8601.
    case 'date':
      return deskDateText(text, today, { loc: ['body', spec.name], past: PAST_DATES.has(spec.name) });
    case 'datetime':
      return deskDateTimeText(text, today, { loc: ['body', spec.name] });
    // The desk's amounts (85,50, 1.234,50) become the API's decimal text.
    case 'decimal':
    case 'money':
      return deskAmountText(text, ['body', spec.name]);
    // A receptionist types `Card` or `CASH`: the values of a choice are lower-case words.
    case 'literal':
      return spec.values.includes(text.toLowerCase()) ? text.toLowerCase() : text;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'integer':
      return /^[+-]?\d+$/.test(text) ? Number(text) : text;
    case 'object':
    case 'object_list':
    case 'string_list_map':
    case 'uuid_list':
    case 'string_list':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    default:
      return text;
  }
}

/** The clinic's today for the desk's `today` and `tomorrow`, read from the database only when one is typed. */
export function deskToday(db: Db): ClinicToday {
  return () => clinicToday(clinicTimeZone(db), Date.now())();
}

/**
 * The request body the given options describe, over an optional base (e.g. from --file), with the
 * desk's spellings of dates and choices read as the API's (`today` needs the clinic's `db`).
 */
export function readFieldOptions(
  options: Record<string, unknown>,
  fields: readonly FieldSpec[],
  db: Db,
  { base = {}, names = {} }: { base?: Record<string, unknown>; names?: OptionNames } = {},
): Record<string, unknown> {
  const body = { ...base };
  const today = deskToday(db);
  for (const spec of fields) {
    const text = options[attributeName(names[spec.name] ?? spec.name)];
    if (typeof text === 'string') body[spec.name] = fromOptionText(spec, text, today);
    else if (text === true) body[spec.name] = true;
  }
  return body;
}
