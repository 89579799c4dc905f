/**
 * Dates and date-times as decisions.md §3 defines them: `date` is YYYY-MM-DD on the calendar;
 * `date-time` is RFC 3339 / ISO 8601, seconds optional, and without an offset means clinic local
 * time. Output is always UTC with milliseconds and 'Z'.
 */

import { hostTimeZoneWithoutIntl, wallClockThroughLocalTime, type WallClock } from './local-time-zones.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;

/**
 * The shape of an accepted date-time, for the interface description: looser than RFC 3339's
 * `date-time` format (seconds and offset optional), so requests are described by this pattern.
 */
export const DATE_TIME_PATTERN = DATE_TIME.source;

/**
 * Date.UTC, but for every year: Date.UTC reads years 0–99 as 1900–1999, which would move
 * `0050-01-01` by nineteen centuries and misjudge its leap days.
 */
function utcMillis(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, millisecond = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millisecond);
  return date.getTime();
}

function daysInMonth(year: number, month: number): number {
  return new Date(utcMillis(year, month + 1, 0)).getUTCDate();
}

/** The calendar of dates (and of pydantic's, which is Python's) has no year 0: 1 BC is followed by AD 1. */
const YEAR_ZERO = 'year 0 is out of range';

/** Why a date string is not a calendar date, or undefined when it is one. */
export function dateError(text: string): string | undefined {
  const match = DATE.exec(text);
  if (!match) return 'expected YYYY-MM-DD';
  const [year, month, day] = match.slice(1, 4).map(Number) as [number, number, number];
  if (year < 1) return YEAR_ZERO;
  if (month < 1 || month > 12) return 'month value is outside expected range';
  if (day < 1 || day > daysInMonth(year, month)) return 'day value is outside expected range';
  return undefined;
}

export type { WallClock } from './local-time-zones.js';

/** A date-time as written in a request: a wall clock, and the offset it gave if any. */
export interface LocalDateTime extends WallClock {
  millisecond: number;
  /** Minutes east of UTC, or undefined for a value without an offset (clinic local time). */
  offsetMinutes: number | undefined;
}

/** Parses an ISO 8601 date-time, or returns why it is not one. */
export function parseDateTime(text: string): LocalDateTime | string {
  const match = DATE_TIME.exec(text);
  if (!match) return 'expected an ISO 8601 date-time such as 2026-12-01T09:00:00+01:00';
  const [, y, mo, d, h, mi, s = '0', frac = '', zulu, sign, oh, om] = match;
  const parts = { year: Number(y), month: Number(mo), day: Number(d), hour: Number(h), minute: Number(mi), second: Number(s) };
  if (parts.year < 1) return YEAR_ZERO;
  if (parts.month < 1 || parts.month > 12) return 'month value is outside expected range';
  if (parts.day < 1 || parts.day > daysInMonth(parts.year, parts.month)) return 'day value is outside expected range';
  if (parts.hour > 23) return 'hour value is outside expected range';
  if (parts.minute > 59) return 'minute value is outside expected range';
  if (parts.second > 59) return 'second value is outside expected range';
  let offsetMinutes: number | undefined;
  if (zulu) offsetMinutes = 0;
  else if (sign) {
    const hours = Number(oh);
    const minutes = Number(om);
    if (hours > 23 || minutes > 59) return 'timezone offset is outside expected range';
    offsetMinutes = (sign === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const value = { ...parts, millisecond: Number(frac.padEnd(3, '0').slice(0, 3)), offsetMinutes };
  return fitsUtcYears(value) ? value : 'the time falls outside the years 0001 to 9999 in UTC';
}

const FIRST_UTC_INSTANT = utcMillis(1, 1, 1);
const LAST_UTC_INSTANT = utcMillis(9999, 12, 31, 23, 59, 59, 999);
/** Time zones lie between UTC-12 and UTC+14, so a wall clock without an offset is this near its UTC instant. */
const ZONE_EAST_MS = 14 * 3_600_000;
const ZONE_WEST_MS = 12 * 3_600_000;

/**
 * Whether `value` is an instant that UTC output (RFC 3339, four-digit years) can write: an offset
 * can carry 9999-12-31T23:00-02:00 into the year 10000. Without an offset, the clinic zone is not
 * known here, so the time must fit under any zone.
 */
function fitsUtcYears(value: LocalDateTime): boolean {
  const wallClock = utcMillis(value.year, value.month, value.day, value.hour, value.minute, value.second, value.millisecond);
  if (value.offsetMinutes === undefined)
    return wallClock - ZONE_EAST_MS >= FIRST_UTC_INSTANT && wallClock + ZONE_WEST_MS <= LAST_UTC_INSTANT;
  const instant = wallClock - value.offsetMinutes * 60_000;
  return instant >= FIRST_UTC_INSTANT && instant <= LAST_UTC_INSTANT;
}

const wallClockFormatters = new Map<string, Intl.DateTimeFormat>();

/** en-US's `MM/DD/YYYY, HH:MM:SS`, which the formatter below writes. */
const EN_US_CLOCK = /^(\d{2})\/(\d{2})\/(\d{4}), (\d{2}):(\d{2}):(\d{2})$/;

/**
 * What a wall clock in `timeZone` shows at `instant` (milliseconds since the epoch): through the
 * process's local time where that says the same (local-time-zones.ts: a desk command then makes no
 * DateTimeFormat), else through Intl.
 */
export function wallClockAt(timeZone: string, instant: number): WallClock {
  return wallClockThroughLocalTime(timeZone, instant) ?? wallClockThroughIntl(timeZone, instant);
}

/**
 * What a wall clock in `timeZone` shows at `instant`, read with one formatter per zone made once:
 * making a DateTimeFormat costs far more than using one. Its text is read by position (a third of
 * formatToParts's cost, which a booking with reminders pays for each rule); formatToParts reads
 * any other text (a year before 1000).
 */
export function wallClockThroughIntl(timeZone: string, instant: number): WallClock {
  let format = wallClockFormatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    wallClockFormatters.set(timeZone, format);
  }
  const date = new Date(instant);
  const text = EN_US_CLOCK.exec(format.format(date));
  if (text !== null) {
    const [, month, day, year, hour, minute, second] = text.map(Number) as number[];
    return { year: year!, month: month!, day: day!, hour: hour!, minute: minute!, second: second! };
  }
  const fields = Object.fromEntries(format.formatToParts(date).map((p) => [p.type, p.value]));
  return {
    year: Number(fields.year),
    month: Number(fields.month),
    day: Number(fields.day),
    hour: Number(fields.hour),
    minute: Number(fields.minute),
    second: Number(fields.second),
  };
}

/** The offset read from the wall clock at `instant`: one formatting, about 4 µs. */
function wallClockOffsetMinutes(timeZone: string, instant: number): number {
  const { year, month, day, hour, minute, second } = wallClockAt(timeZone, instant);
  const asUtc = utcMillis(year, month, day, hour, minute, second);
  return Math.round((asUtc - Math.floor(instant / 1000) * 1000) / 60000);
}

const HOUR_MS = 3_600_000;
/** How many hours of offsets a zone keeps before they are read afresh: ten years of them is about 88,000. */
const KEPT_HOURS_PER_ZONE = 100_000;
/** Per zone, the offset of each UTC hour (instant / 1 h) read so far whose start and end agree. */
const hourOffsets = new Map<string, Map<number, number>>();

/**
 * Minutes east of UTC that `timeZone` observes at the instant `instant` (milliseconds since the
 * epoch). An hour whose first and last millisecond have the same offset has it throughout (no
 * zone changes its offset twice within an hour), so it is kept for the hour: a booking reads the
 * offset once per reminder rule, mostly for hours already read. The hour of a change is read
 * exactly each time.
 */
export function zoneOffsetMinutes(timeZone: string, instant: number): number {
  let hours = hourOffsets.get(timeZone);
  if (hours === undefined) {
    hours = new Map();
    hourOffsets.set(timeZone, hours);
  }
  const hour = Math.floor(instant / HOUR_MS);
  const known = hours.get(hour);
  if (known !== undefined) return known;
  const first = wallClockOffsetMinutes(timeZone, hour * HOUR_MS);
  if (first !== wallClockOffsetMinutes(timeZone, hour * HOUR_MS + HOUR_MS - 1)) return wallClockOffsetMinutes(timeZone, instant);
  if (hours.size >= KEPT_HOURS_PER_ZONE) hours.clear();
  hours.set(hour, first);
  return first;
}

/** True when `timeZone` is an IANA zone name this runtime knows. */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

let machineZone: string | undefined;

/**
 * The machine's own time zone: the default clinic `timezone` setting. Read once per process, so
 * a change of the machine's zone applies from the next start: making a DateTimeFormat took 7 % of
 * the server's time for POST /patients, which reads the clinic time zone on every request
 * (bench/README.md). Read from TZ or /etc/localtime where they name it as Intl would
 * (local-time-zones.ts), else asked of Intl.
 */
export function machineTimeZone(): string {
  machineZone ??= hostTimeZoneWithoutIntl() ?? (Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  return machineZone;
}

/**
 * The UTC ISO string of a parsed date-time; an offset-less value is read in `timeZone`.
 * A local time that a DST change skips is read with the offset before the change, and one that
 * occurs twice is read as its first occurrence, as most calendar programs do.
 */
export function toUtcIso(value: LocalDateTime, timeZone: string): string {
  const wallClock = utcMillis(value.year, value.month, value.day, value.hour, value.minute, value.second, value.millisecond);
  if (value.offsetMinutes !== undefined) {
    return new Date(wallClock - value.offsetMinutes * 60000).toISOString();
  }
  // Try the offsets in force a day either side of the wall-clock time; the earliest instant
  // whose local reading is this wall clock wins.
  const candidates = [zoneOffsetMinutes(timeZone, wallClock - 86400000), zoneOffsetMinutes(timeZone, wallClock + 86400000)]
    .map((offset) => wallClock - offset * 60000)
    .sort((a, b) => a - b);
  const exact = candidates.find((instant) => instant + zoneOffsetMinutes(timeZone, instant) * 60000 === wallClock);
  return new Date(exact ?? (candidates[1] as number)).toISOString();
}

/** A day on the calendar. */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

/** The calendar date of YYYY-MM-DD text that dateError accepts. */
export function parseDate(text: string): CalendarDate {
  const [year, month, day] = text.split('-').map(Number) as [number, number, number];
  return { year, month, day };
}

/** The date in `timeZone` at the instant `instant` (milliseconds since the epoch). */
export function localDateOf(instant: number, timeZone: string): CalendarDate {
  const local = new Date(instant + zoneOffsetMinutes(timeZone, instant) * 60000);
  return { year: local.getUTCFullYear(), month: local.getUTCMonth() + 1, day: local.getUTCDate() };
}

/** The day after `date`. */
export function nextDay(date: CalendarDate): CalendarDate {
  const next = new Date(utcMillis(date.year, date.month, date.day + 1));
  return { year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() };
}

/** The day before `date`. */
export function previousDay(date: CalendarDate): CalendarDate {
  const previous = new Date(utcMillis(date.year, date.month, date.day - 1));
  return { year: previous.getUTCFullYear(), month: previous.getUTCMonth() + 1, day: previous.getUTCDate() };
}

/** The day of the week of `date`: 0 Sunday … 6 Saturday. */
export function weekdayOf(date: CalendarDate): number {
  return new Date(utcMillis(date.year, date.month, date.day)).getUTCDay();
}

/** The UTC ISO instant at which `date` begins in `timeZone` (midnight, or the first minute after a DST gap). */
export function startOfDay(date: CalendarDate, timeZone: string): string {
  return toUtcIso({ ...date, hour: 0, minute: 0, second: 0, millisecond: 0, offsetMinutes: undefined }, timeZone);
}

/** `date` as YYYY-MM-DD. */
export function formatDate(date: CalendarDate): string {
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}
