import { ValidationError } from '../errors.js';
import { dateError, formatDate, localDateOf, nextDay } from '../validation/calendar.js';
import { problems } from '../validation/problems.js';
import { issue } from '../validation/validate.js';

/**
 * Dates as the desk types them (issue 28): besides the API's ISO 8601, the way every printout
 * writes them (`30.11.2026`, also `1.3.2026`), and the words `today` and `tomorrow` (any case),
 * which mean the clinic's day. A date-time is such a date, a space and a clock time (`30.11.2026
 * 10:00`, `tomorrow 9:30`), in clinic time. The API keeps ISO 8601 only: these readings are the
 * command line's. Text that is none of them is passed on unchanged, so that the validation of the
 * use case refuses it as it would over HTTP, with the value as it was typed.
 */

/** `30.11.2026`, `1.3.2026`: day, month and year, as printouts write them. */
const DOTTED_DATE = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/;
/** `10:00`, `9:30`, `10:00:15`. */
const CLOCK_TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;

const pad = (n: string) => n.padStart(2, '0');

/** The clinic's today as YYYY-MM-DD, asked for only when a word needs it. */
export type ClinicToday = () => string;

/** The clinic's today in `timeZone` at `now`. */
export function clinicToday(timeZone: string, now: number): ClinicToday {
  return () => formatDate(localDateOf(now, timeZone));
}

/** `text` as YYYY-MM-DD when it is a desk date, else unchanged (an impossible `31.02.2026` becomes `2026-02-31`, refused as such). */
export function deskDateText(text: string, today: ClinicToday): string {
  const trimmed = text.trim();
  const word = trimmed.toLowerCase();
  if (word === 'today') return today();
  if (word === 'tomorrow') {
    const [year, month, day] = today().split('-').map(Number) as [number, number, number];
    return formatDate(nextDay({ year, month, day }));
  }
  const dotted = DOTTED_DATE.exec(trimmed);
  if (dotted) return `${dotted[3]}-${pad(dotted[2]!)}-${pad(dotted[1]!)}`;
  return text;
}

/**
 * `text` as an ISO date-time without offset (clinic time) when it is a desk date and a clock time
 * (`30.11.2026 10:00`, `today 9:30`, `2026-11-30 10:00`), as an ISO date when it is a desk date
 * alone, else unchanged.
 */
export function deskDateTimeText(text: string, today: ClinicToday): string {
  const parts = text.trim().split(/\s+/);
  // A date alone stays a date (invoice create --issued-at 30.11.2026), for the use case to read or refuse.
  if (parts.length === 1) {
    const date = deskDateText(parts[0]!, today);
    return dateError(date) === undefined ? date : text;
  }
  if (parts.length !== 2) return text;
  const date = deskDateText(parts[0]!, today);
  const clock = CLOCK_TIME.exec(parts[1]!);
  if (clock === null || dateError(date) !== undefined) return text;
  return `${date}T${pad(clock[1]!)}:${clock[2]}${clock[3] === undefined ? '' : `:${clock[3]}`}`;
}

/**
 * The clinic day a desk command asks about (`--date`), as YYYY-MM-DD: absent is today; else a
 * desk date (deskDateText). Anything else is 422 date_parsing at ["query", option] (`date`
 * unless the command names the day otherwise, as `--from`), which the command line reports as
 * that option with the value typed.
 */
export function deskDate(text: string | undefined, timeZone: string, now: number, option = 'date'): string {
  const today = clinicToday(timeZone, now);
  if (text === undefined) return today();
  const date = deskDateText(text, today);
  const error = dateError(date);
  if (error !== undefined) throw new ValidationError([issue(['query', option], problems.dateParsing(error), text)]);
  return date;
}
