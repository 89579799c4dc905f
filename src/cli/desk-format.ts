/**
 * How the front desk's commands print for people (clinic-api-1.1.md, last section): clinic local
 * time on a 24-hour clock (`14:00`), dates as written in the clinic (`Mon 23.11.2026`), money with
 * two decimals and its currency (`85.50 EUR`), patients by number and name, and tables that fit
 * DESK_WIDTH columns. Formatting only: every value comes from a use case.
 */

import { wallClockAt } from '../domain/validation/calendar.js';
import { visibleValue } from './terminal-text.js';

/** The widest line a desk command prints: a terminal of 100 columns shows it unwrapped. */
export const DESK_WIDTH = 100;

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

const twoDigits = (n: number) => String(n).padStart(2, '0');

/** The clinic-local calendar date and clock time of an instant, as zero-padded text. */
function localParts(iso: string, timeZone: string): { year: string; month: string; day: string; hour: string; minute: string } {
  const { year, month, day, hour, minute } = wallClockAt(timeZone, Date.parse(iso));
  return {
    year: String(year).padStart(4, '0'),
    month: twoDigits(month),
    day: twoDigits(day),
    hour: twoDigits(hour),
    minute: twoDigits(minute),
  };
}

/** `2026-11-23T13:00:00.000Z` in Europe/Vienna → `14:00`. */
export function clockTime(iso: string, timeZone: string): string {
  const { hour, minute } = localParts(iso, timeZone);
  return `${hour}:${minute}`;
}

/** The clinic-local date of an instant as YYYY-MM-DD, to compare with a day asked for. */
export function localDay(iso: string, timeZone: string): string {
  const { year, month, day } = localParts(iso, timeZone);
  return `${year}-${month}-${day}`;
}

/** A calendar date YYYY-MM-DD → `23.11.2026`. */
export function shortDate(date: string): string {
  const [year, month, day] = date.split('-');
  return `${day}.${month}.${year}`;
}

/** The clinic-local date of an instant as people read it: `23.11.2026`. */
export function localShortDate(iso: string, timeZone: string): string {
  return shortDate(localDay(iso, timeZone));
}

/** A calendar date YYYY-MM-DD → `Mon 23.11.2026`. */
export function calendarDay(date: string): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const weekday = new Date(Date.UTC(2000, month - 1, day));
  weekday.setUTCFullYear(year);
  return `${WEEKDAYS[weekday.getUTCDay()]} ${shortDate(date)}`;
}

/** An instant → `Mon 23.11.2026 14:00`, clinic time. */
export function localDateTime(iso: string, timeZone: string): string {
  return `${calendarDay(localDay(iso, timeZone))} ${clockTime(iso, timeZone)}`;
}

/**
 * An appointment's time on a day sheet: `09:00-09:30`; an end or start on another day than
 * `day` carries that day's date (`22.11. 23:30-00:30`), so a night never reads as a morning.
 */
export function timeSpan(startIso: string, endIso: string, timeZone: string, day: string): string {
  const at = (iso: string) => {
    const local = localDay(iso, timeZone);
    return local === day ? clockTime(iso, timeZone) : `${shortDate(local).slice(0, 6)} ${clockTime(iso, timeZone)}`;
  };
  return `${at(startIso)}-${at(endIso)}`;
}

/** An amount (a JSON number or a decimal string) → `85.50 EUR`. */
export function money(amount: number | string, currency: string | null): string {
  const text = Number(amount).toFixed(2);
  return currency === null ? text : `${text} ${currency}`;
}

/** `P-000042 Ada Lovelace`; an appointment without a patient has none. */
export function patientLabel(patientNumber: string | null, firstName: string | null, lastName: string | null): string {
  if (patientNumber === null) return '(no patient)';
  return [patientNumber, firstName, lastName].filter((part) => part !== null && part !== '').join(' ');
}

/**
 * A stored value on one line of a printout: whitespace runs (a note's line breaks) become one
 * space, and what a terminal would obey is shown as an escape, before widths are counted.
 */
function oneLine(value: string): string {
  return visibleValue(value.replace(/\s+/g, ' ').trim());
}

/** Characters as a terminal counts them (code points of the composed form). */
const width = (text: string) => [...text.normalize('NFC')].length;

/** `text` cut to `columns`, with an ellipsis where it was cut. */
export function truncate(text: string, columns: number): string {
  const characters = [...text.normalize('NFC')];
  if (characters.length <= columns) return text.normalize('NFC');
  return `${characters.slice(0, Math.max(0, columns - 1)).join('')}…`;
}

const pad = (text: string, columns: number, align: 'left' | 'right') => {
  const fill = ' '.repeat(Math.max(0, columns - width(text)));
  return align === 'right' ? fill + text : text + fill;
};

/** One column of a desk table. */
export interface DeskColumn {
  header: string;
  /** Amounts are right-aligned, so their decimal points line up. */
  align?: 'left' | 'right';
  /** Text that may be cut (names, services) when the table would be wider than DESK_WIDTH. */
  shrink?: boolean;
}

/** The narrowest a shrinking column becomes: enough for `P-000042 Ad…`. */
const MIN_SHRUNK = 12;

/**
 * A table of `rows` under `columns`, two spaces apart, at most DESK_WIDTH columns wide: when it
 * would be wider, the widest shrinking column is cut first, one character at a time, so short
 * names stay whole. Whitespace inside a cell (a note with a line break) becomes one space.
 */
export function deskTable(columns: readonly DeskColumn[], rows: readonly (readonly string[])[], empty = '(none)'): string {
  if (rows.length === 0) return `${empty}\n`;
  const cells = rows.map((row) => columns.map((_, i) => oneLine(row[i] ?? '')));
  const widths = columns.map((column, i) => Math.max(width(column.header), ...cells.map((row) => width(row[i] ?? ''))));
  const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (columns.length - 1);
  while (total() > DESK_WIDTH) {
    let widest = -1;
    columns.forEach((column, i) => {
      if (column.shrink && (widths[i] ?? 0) > MIN_SHRUNK && (widest === -1 || (widths[i] ?? 0) > (widths[widest] ?? 0))) widest = i;
    });
    if (widest === -1) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  const line = (values: readonly string[]) =>
    values
      .map((value, i) => pad(truncate(value, widths[i] ?? 0), widths[i] ?? 0, columns[i]?.align ?? 'left'))
      .join('  ')
      .trimEnd();
  return `${[line(columns.map((column) => column.header)), ...cells.map(line)].join('\n')}\n`;
}

/**
 * A record as `label  value` lines, skipping absent values; a long value (a note) wraps at word
 * boundaries under itself, so no line is wider than DESK_WIDTH.
 */
export function deskRecord(entries: readonly (readonly [string, string | null | undefined])[]): string {
  const shown = entries.filter(
    (entry): entry is readonly [string, string] => entry[1] !== null && entry[1] !== undefined && entry[1] !== '',
  );
  const labelWidth = Math.max(0, ...shown.map(([label]) => width(label)));
  const room = DESK_WIDTH - labelWidth - 2;
  return shown
    .map(([label, value]) => {
      const lines = wrap(oneLine(value), room);
      return lines.map((text, i) => `${pad(i === 0 ? label : '', labelWidth, 'left')}  ${text}`.trimEnd()).join('\n');
    })
    .map((text) => `${text}\n`)
    .join('');
}

/** `text` in lines of at most `columns`, broken at spaces (a word longer than a line is cut). */
function wrap(text: string, columns: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    const candidate = current === '' ? word : `${current} ${word}`;
    if (width(candidate) <= columns) current = candidate;
    else {
      if (current !== '') lines.push(current);
      current = truncate(word, columns);
    }
  }
  lines.push(current);
  return lines;
}

/** A heading over a section of a printout, on one line (a line break in it shows as `\x0a`) cut to DESK_WIDTH. */
export function heading(text: string): string {
  return `${truncate(visibleValue(text), DESK_WIDTH)}\n`;
}

/**
 * A size for people, in binary units named as such (IEC): `812 B`, `11.5 KiB`, `19.1 MiB`,
 * `1.25 GiB`; 20,000,000 bytes are 19.1 MiB, never "19.1 MB" (which would be 19,100,000).
 */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}

/** Statuses whose word for people is not the value's own with spaces: the desk's command word. */
const STATUS_WORDS: Readonly<Record<string, string>> = { no_show: 'no-show', n_a: 'not applicable' };

/** A status or state as people read it: `partially_paid` → `partially paid`, `no_show` → `no-show`. */
export function statusText(status: string): string {
  return STATUS_WORDS[status] ?? status.replaceAll('_', ' ');
}

/** Words of field names that are written otherwise: abbreviations in capitals. */
const FIELD_WORDS: Readonly<Record<string, string>> = { gdpr: 'GDPR', tin: 'TIN', iban: 'IBAN', bic: 'BIC', gp: 'GP', zip: 'ZIP' };

/** Fields whose name says less to people than a label of their own. */
const FIELD_LABELS: Readonly<Record<string, string>> = {
  is_active: 'Active',
  tin: 'TIN (tax identification number)',
};

/** A field's name as a label for people: `date_of_birth` → `Date of birth`, `gdpr_consent` → `GDPR consent`, `is_active` → `Active`. */
export function fieldLabel(name: string): string {
  const label = FIELD_LABELS[name];
  if (label !== undefined) return label;
  const words = name.split('_').map((word) => FIELD_WORDS[word] ?? word);
  const first = words[0] ?? '';
  return [first.charAt(0).toUpperCase() + first.slice(1), ...words.slice(1)].join(' ');
}

/** A value of a field for people: yes or no, `(empty)`, JSON for an object, else its text. */
export function fieldValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(empty)';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return typeof value === 'object' ? JSON.stringify(value) : String(value as string | number);
}
