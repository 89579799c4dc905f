import { readlinkSync } from 'node:fs';
import { isListedTimeZone } from '../time-zones.js';

/**
 * A zone's wall clock, and the machine's zone, read through the process's own local time instead
 * of an Intl.DateTimeFormat, where that gives the same answer.
 *
 * Why: a process's first DateTimeFormat costs 10-16 ms (ICU loads a locale's calendar, symbols
 * and date patterns), a fifth of a desk command's start (docs/benchmarks.md, "A receptionist's
 * day at the desk"). V8's local time reads the same ICU zone data without any of that: naming the
 * zone in TZ for the length of one synchronous call, reading the local date and time, and putting
 * TZ back costs 0.2 ms the first time and about 20 µs after. Node tells V8 of every change of TZ,
 * and no other JavaScript runs between the change and its undoing.
 *
 * Where: not on Windows, whose ICU takes the host's zone from the system rather than from TZ;
 * only for the zones Intl lists whose names ICU reads from TZ as zone names (none with a digit:
 * ICU reads `Etc/GMT+5` from TZ as a POSIX rule); and for the first LOCAL_TIME_READINGS readings of
 * a zone in a process: after that many, a long-running server's DateTimeFormat is cheaper.
 * calendar.ts asks Intl in every other case, as before.
 */

/** Readings of a zone through local time before its DateTimeFormat is made: about 5 ms of them. */
const LOCAL_TIME_READINGS = 200;

/** The calendar date and clock time on a wall clock, as numbers. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const readings = new Map<string, number>();

/** Whether `timeZone` is one Intl lists under a name ICU takes from TZ as that zone. */
export function nameableInTz(timeZone: string): boolean {
  return process.platform !== 'win32' && !/\d/.test(timeZone) && isListedTimeZone(timeZone);
}

/**
 * What a wall clock in `timeZone` shows at `instant` (milliseconds since the epoch), read through
 * the process's local time; undefined where Intl must be asked (see above).
 */
export function wallClockThroughLocalTime(timeZone: string, instant: number): WallClock | undefined {
  if (timeZone === 'UTC') {
    const utc = new Date(instant);
    return {
      year: utc.getUTCFullYear(),
      month: utc.getUTCMonth() + 1,
      day: utc.getUTCDate(),
      hour: utc.getUTCHours(),
      minute: utc.getUTCMinutes(),
      second: utc.getUTCSeconds(),
    };
  }
  const count = readings.get(timeZone) ?? 0;
  if (count >= LOCAL_TIME_READINGS || !nameableInTz(timeZone)) return undefined;
  readings.set(timeZone, count + 1);
  return readLocalWallClock(timeZone, instant);
}

/** The wall clock of `timeZone` (one nameableInTz allows) at `instant`, with TZ naming it for the call. */
export function readLocalWallClock(timeZone: string, instant: number): WallClock {
  const previous = process.env.TZ;
  process.env.TZ = timeZone;
  try {
    const local = new Date(instant);
    return {
      year: local.getFullYear(),
      month: local.getMonth() + 1,
      day: local.getDate(),
      hour: local.getHours(),
      minute: local.getMinutes(),
      second: local.getSeconds(),
    };
  } finally {
    if (previous === undefined) delete process.env.TZ;
    else process.env.TZ = previous;
  }
}

/** Names of UTC that V8 reports as `UTC` (its canonical form of them; Node 24 reports TZ=GMT as `+00:00`). */
const UTC_NAMES = new Set(['UTC', 'Etc/UTC', 'Etc/GMT']);

/**
 * The machine's time zone as Intl would name it, from TZ or the link /etc/localtime as ICU reads
 * them; undefined where only Intl can tell (Windows, a POSIX rule in TZ, /etc/localtime a copy
 * rather than a link, a name ICU would write another way).
 */
export function hostTimeZoneWithoutIntl(): string | undefined {
  if (process.platform === 'win32') return undefined;
  let name: string;
  const tz = process.env.TZ;
  // An empty TZ is a zone of its own to ICU (`Etc/Unknown`): Intl says what it makes of it.
  if (tz === '') return undefined;
  if (tz !== undefined) name = tz.replace(/^:/, '');
  else {
    let target: string;
    try {
      target = readlinkSync('/etc/localtime');
    } catch {
      return undefined;
    }
    const zone = /\/zoneinfo\/(?:posix\/|right\/)?(.+)$/.exec(target);
    if (zone === null) return undefined;
    name = zone[1]!;
  }
  if (UTC_NAMES.has(name)) return 'UTC';
  return nameableInTz(name) ? name : undefined;
}
