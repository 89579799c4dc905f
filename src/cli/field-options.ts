import type { Command } from 'commander';
import type { FieldSpec } from '../fields/field-spec.js';

/** `first_name` → `--first-name`. */
export const optionFlag = (name: string) => `--${name.replaceAll('_', '-')}`;

/** For each command, the request field each of its positional arguments fills, and the argument's name. */
const ARGUMENT_FIELDS = new WeakMap<Command, Map<string, string>>();

/**
 * A positional argument (`<ref>`) that fills the request field `field` (`appointment_id`), so that
 * a refusal of its value names the argument the person typed, not an option `--appointment-id`
 * the command does not have.
 */
export function fieldArgument(command: Command, name: string, description: string, field: string): Command {
  const labels = ARGUMENT_FIELDS.get(command) ?? new Map<string, string>();
  labels.set(field, name);
  ARGUMENT_FIELDS.set(command, labels);
  return command.argument(name, description);
}

/** The argument names of `command`'s positional fields (fieldArgument), by field. */
export function argumentLabels(command: Command | undefined): ReadonlyMap<string, string> {
  return (command && ARGUMENT_FIELDS.get(command)) ?? new Map();
}

/** The property commander stores `--first-name` under. */
const attributeName = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

function describe(spec: FieldSpec): string {
  const notes = [spec.description ?? spec.kind.replaceAll('_', ' ')];
  if (spec.kind === 'string' && spec.maxLength !== undefined) notes.push(`at most ${spec.maxLength} characters`);
  if (spec.kind === 'boolean') notes.push('true or false');
  if (spec.kind === 'object' || spec.kind === 'object_list' || spec.kind === 'string_list_map' || spec.kind === 'uuid_list')
    notes.push('as JSON');
  if (spec.kind === 'literal') notes.push(`one of ${spec.values.join(', ')}`);
  if (spec.default !== undefined) notes.push(`default ${JSON.stringify(spec.default)}`);
  return notes.join('; ');
}

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
    /** Fields a rule of the use case requires although their schema does not. */
    alsoRequired = [] as readonly string[],
    /** Help texts that say more at the desk than the field's own, by field name (a reference the desk resolves). */
    descriptions = {} as Readonly<Record<string, string>>,
  } = {},
): Command {
  for (const spec of fields) {
    const flags = `${optionFlag(spec.name)} <value>`;
    const text = descriptions[spec.name] ?? describe(spec);
    const required = spec.required === true || alsoRequired.includes(spec.name);
    if (required && enforceRequired) command.requiredOption(flags, text);
    else if (required) command.option(flags, `${text} (required${requiredElsewhere ? ` ${requiredElsewhere}` : ''})`);
    else command.option(flags, text);
  }
  return command;
}

/**
 * The option's text as the JSON value the API would receive. Only unambiguous spellings are
 * converted ("true", "12", valid JSON for objects); anything else is passed on as text so that
 * the domain's validation reports it exactly as it would over HTTP.
 */
function fromOptionText(spec: FieldSpec, text: string): unknown {
  switch (spec.kind) {
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'integer':
      return /^[+-]?\d+$/.test(text) ? Number(text) : text;
    case 'object':
    case 'object_list':
    case 'string_list_map':
    case 'uuid_list':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    default:
      return text;
  }
}

/** The request body the given options describe, over an optional base (e.g. from --file). */
export function readFieldOptions(
  options: Record<string, unknown>,
  fields: readonly FieldSpec[],
  base: Record<string, unknown> = {},
): Record<string, unknown> {
  const body = { ...base };
  for (const spec of fields) {
    const text = options[attributeName(spec.name)];
    if (typeof text === 'string') body[spec.name] = fromOptionText(spec, text);
  }
  return body;
}
