import type { CliIo } from './io.js';
import { inertJson, visibleText, visibleValue } from './terminal-text.js';

/** Options every command takes. */
export interface CommonOptions {
  data: string;
  json?: boolean;
}

/** A value as one line of a table or record: whitespace runs are one space, controls shown as escapes. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return visibleValue((typeof value === 'object' ? JSON.stringify(value) : String(value)).replace(/\s+/g, ' '));
}

/** A plain text table: a header row and one row per item, columns padded to fit. */
export function formatTable(rows: readonly object[], columns: readonly string[]): string {
  if (rows.length === 0) return '(none)\n';
  const cells = rows.map((row) => columns.map((column) => cell((row as Record<string, unknown>)[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return `${[line(columns), ...cells.map(line)].join('\n')}\n`;
}

/** One record as `key: value` lines, skipping empty values. */
export function formatRecord(record: object): string {
  const entries = Object.entries(record).filter(([, value]) => value !== null && value !== undefined);
  const width = Math.max(...entries.map(([key]) => key.length));
  return `${entries.map(([key, value]) => `${key.padEnd(width)}  ${cell(value)}`).join('\n')}\n`;
}

/**
 * Prints what a command made or read: the API's JSON shape with --json, else text for a person;
 * either way no stored character reaches the terminal as a command to it (terminal-text.ts).
 */
export function emit(io: CliIo, options: Pick<CommonOptions, 'json'>, value: unknown, human: () => string): void {
  io.stdout(options.json ? inertJson(`${JSON.stringify(value, null, 2)}\n`) : visibleText(human()));
}
