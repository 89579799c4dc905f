import { ValidationError, type ValidationIssue } from '../../errors.js';
import {
  dateError,
  formatDate,
  localDateOf,
  nextDay,
  parseDate,
  previousDay,
  weekdayOf,
  type CalendarDate,
} from '../validation/calendar.js';
import { problems } from '../validation/problems.js';
import { issue } from '../validation/validate.js';

/**
 * Dates as the desk types them (issues 28 and 42): besides the API's ISO 8601, the way every
 * printout writes them (`30.11.2026`, also `1.3.2026`, and with a two-digit year `30.11.26`),
 * with or without the weekday in front (`Mo 30.11.2026`, `Mon 30.11.2026`), and the words
 * `today`, `tomorrow` and `yesterday` (`heute`, `morgen`, `gestern`; any case), which mean the
 * clinic's day. A date-time is such a date, a space and a clock time (`30.11.2026 10:00`,
 * `tomorrow 9:30`), in clinic time. The API keeps ISO 8601 only: these readings are the command
 * line's. Text that is none of them is passed on unchanged, so that the validation of the use
 * case refuses it as it would over HTTP, with the value as it was typed. A weekday that is not
 * the date's is refused here: the person meant another day than the one they typed.
 */

/** `30.11.2026`, `1.3.2026`, `30.11.26`: day, month and year, as printouts write them. */
const DOTTED_DATE = /^(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})$/;
/** `10:00`, `9:30`, `10:00:15`. */
const CLOCK_TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;

/** The words for a day relative to the clinic's today, in English and German. */
const RELATIVE_DAYS: Readonly<Record<string, -1 | 0 | 1>> = {
  yesterday: -1,
  gestern: -1,
  today: 0,
  heute: 0,
  tomorrow: 1,
  morgen: 1,
};

/** The names of each day of the week (0 Sunday), as English and German calendars shorten and write them. */
const WEEKDAY_NAMES: readonly (readonly string[])[] = [
  ['sun', 'sunday', 'so', 'sonntag'],
  ['mon', 'monday', 'mo', 'montag'],
  ['tue', 'tuesday', 'di', 'dienstag'],
  ['wed', 'wednesday', 'mi', 'mittwoch'],
  ['thu', 'thursday', 'do', 'donnerstag'],
  ['fri', 'friday', 'fr', 'freitag'],
  ['sat', 'saturday', 'sa', 'samstag', 'sonnabend'],
];

/** How printouts name a day of the week, for a refusal. */
const WEEKDAY_WORDS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

const pad = (n: string) => n.padStart(2, '0');

/** The day of the week a word names (`Mo`, `mon`, `Montag,`), or undefined when it names none. */
function weekdayNamed(word: string): number | undefined {
  const name = word.toLowerCase().replace(/[.,]$/, '');
  const day = WEEKDAY_NAMES.findIndex((names) => names.includes(name));
  return day < 0 ? undefined : day;
}

/** The clinic's today as YYYY-MM-DD, asked for only when a word needs it. */
export type ClinicToday = () => string;

/** The clinic's today in `timeZone` at `now`. */
export function clinicToday(timeZone: string, now: number): ClinicToday {
  return () => formatDate(localDateOf(now, timeZone));
}

/** How a date is read where it is typed. */
export interface DeskDateReading {
  /**
   * Where a refusal points (`["body","date_of_birth"]`, `["query","date"]`), so that the desk
   * names the option as it was typed.
   */
  loc: ValidationIssue['loc'];
  /**
   * A date that cannot lie ahead (a date of birth): a two-digit year is then the latest that is
   * not after today (`1.3.40` is 1940), where otherwise it is the year nearest today (`30.11.26`
   * is 2026, `2.3.85` 1985).
   */
  past?: boolean;
}

/**
 * The four-digit year a two-digit `yy` stands for: the nearest to today's year (a tie goes to the
 * past), or for a date that cannot lie ahead the latest that puts `month`.`day` not after today.
 */
function fullYear(yy: number, month: number, day: number, today: CalendarDate, past: boolean): number {
  const century = Math.floor(today.year / 100) * 100;
  const candidates = [century - 100 + yy, century + yy, century + 100 + yy];
  if (past) {
    const notAhead = candidates.filter((year) => formatDate({ year, month, day }) <= formatDate(today));
    return notAhead[notAhead.length - 1]!;
  }
  return candidates.reduce((best, year) => (Math.abs(year - today.year) < Math.abs(best - today.year) ? year : best));
}

/** The YYYY-MM-DD a date word or dotted date stands for, or undefined when `word` is neither. */
function calendarDateOf(word: string, today: ClinicToday, past: boolean): string | undefined {
  const relative = RELATIVE_DAYS[word.toLowerCase()];
  if (relative !== undefined) {
    const day = parseDate(today());
    return formatDate(relative === 0 ? day : relative === 1 ? nextDay(day) : previousDay(day));
  }
  const dotted = DOTTED_DATE.exec(word);
  if (!dotted) return undefined;
  const [day, month, year] = [dotted[1]!, dotted[2]!, dotted[3]!];
  const yearText =
    year.length === 4 ? year : String(fullYear(Number(year), Number(month), Number(day), parseDate(today()), past)).padStart(4, '0');
  return `${yearText}-${pad(month)}-${pad(day)}`;
}

/**
 * A date as the desk types it, split into its date (YYYY-MM-DD when it is one of the desk's
 * forms, else as typed) and clock time, or undefined when the words are not a date and a time.
 * A weekday in front must be the date's (a ValidationError at `loc` otherwise).
 */
function readDeskWords(text: string, today: ClinicToday, reading: DeskDateReading): { date: string; time?: string } | undefined {
  const words = text.trim().split(/\s+/);
  const weekday = words.length > 1 ? weekdayNamed(words[0]!) : undefined;
  if (weekday !== undefined) words.shift();
  if (words.length > 2 || words[0] === undefined) return undefined;
  const date = calendarDateOf(words[0], today, reading.past === true) ?? words[0];
  if (weekday !== undefined && dateError(date) === undefined && weekdayOf(parseDate(date)) !== weekday) {
    const actual = WEEKDAY_WORDS[weekdayOf(parseDate(date))];
    const said = `${words[0]} is a ${actual}, not a ${WEEKDAY_WORDS[weekday]}: give the date or the weekday you meant`;
    throw new ValidationError([issue(reading.loc, problems.valueError(said), text)]);
  }
  return words.length === 1 ? { date } : { date, time: words[1]! };
}

/**
 * `text` as YYYY-MM-DD when it is a desk date (a weekday in front must be its own), else
 * unchanged (an impossible `31.02.2026` becomes `2026-02-31`, refused as such).
 */
export function deskDateText(text: string, today: ClinicToday, reading: DeskDateReading): string {
  const read = readDeskWords(text, today, reading);
  return read === undefined || read.time !== undefined ? text : read.date;
}

/**
 * `text` as an ISO date-time without offset (clinic time) when it is a desk date and a clock time
 * (`30.11.2026 10:00`, `today 9:30`, `Mo 30.11.26 10:00`, `2026-11-30 10:00`), as an ISO date
 * when it is a desk date alone, else unchanged.
 */
export function deskDateTimeText(text: string, today: ClinicToday, reading: DeskDateReading): string {
  const read = readDeskWords(text, today, reading);
  if (read === undefined || dateError(read.date) !== undefined) return text;
  // A date alone stays a date (invoice create --issued-at 30.11.2026), for the use case to read or refuse.
  if (read.time === undefined) return read.date;
  const clock = CLOCK_TIME.exec(read.time);
  if (clock === null) return text;
  return `${read.date}T${pad(clock[1]!)}:${clock[2]}${clock[3] === undefined ? '' : `:${clock[3]}`}`;
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
  const date = deskDateText(text, today, { loc: ['query', option] });
  const error = dateError(date);
  if (error !== undefined) throw new ValidationError([issue(['query', option], problems.dateParsing(error), text)]);
  return date;
}
