import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  hostTimeZoneWithoutIntl,
  nameableInTz,
  readLocalWallClock,
  wallClockThroughLocalTime,
} from '../../../src/domain/validation/local-time-zones.js';
import { wallClockThroughIntl } from '../../../src/domain/validation/calendar.js';

const HOUR = 3_600_000;
const onWindows = process.platform === 'win32';

describe('wall clocks through local time say what Intl says (local-time-zones.ts)', { skip: onWindows && 'not used on Windows' }, () => {
  it('for every zone it reads, twice a month over two and a half centuries', () => {
    const zones = [...Intl.supportedValuesOf('timeZone'), 'UTC'].filter(nameableInTz);
    assert.ok(zones.length > 300, `only ${zones.length} zones`);
    const instants: number[] = [];
    for (const year of [1850, 1890, 1920, 1945, 1970, 1990, 2000, 2026, 2037, 2038, 2060, 2100])
      for (let month = 0; month < 12; month++) for (const day of [1, 15]) instants.push(Date.UTC(year, month, day, 12, 30, 15));
    const wrong: string[] = [];
    for (const zone of zones) {
      for (const instant of instants) {
        const local = readLocalWallClock(zone, instant);
        const intl = wallClockThroughIntl(zone, instant);
        if (JSON.stringify(local) !== JSON.stringify(intl))
          wrong.push(`${zone} at ${new Date(instant).toISOString()}: ${JSON.stringify(local)} against ${JSON.stringify(intl)}`);
      }
    }
    assert.deepEqual(wrong.slice(0, 10), []);
  });

  it('around every change of offset of 2026 and 2040, to the second, in zones with odd rules', () => {
    // Summer time of an hour and of half an hour, one that goes back in summer, by the moon's calendar, and at odd minutes.
    const zones = [
      'Europe/Vienna',
      'America/New_York',
      'Australia/Lord_Howe',
      'Europe/Dublin',
      'Africa/Casablanca',
      'America/St_Johns',
      'Pacific/Chatham',
      'America/Santiago',
      'Asia/Kathmandu',
    ];
    const DAY = 24 * HOUR;
    const wrong: string[] = [];
    let changes = 0;
    for (const zone of zones) {
      const offset = (at: number) => {
        const { year, month, day, hour, minute, second } = wallClockThroughIntl(zone, at);
        return Date.UTC(year, month - 1, day, hour, minute, second) - Math.floor(at / 1000) * 1000;
      };
      for (const year of [2026, 2040]) {
        // A day whose start and end have different offsets holds a change: every quarter hour of it, and the second before each, is compared.
        for (let dayStart = Date.UTC(year, 0, 1); dayStart < Date.UTC(year + 1, 0, 1); dayStart += DAY) {
          if (offset(dayStart) === offset(dayStart + DAY)) continue;
          changes++;
          for (let at = dayStart; at <= dayStart + DAY; at += HOUR / 4) {
            for (const instant of [at - 1000, at]) {
              const local = readLocalWallClock(zone, instant);
              const intl = wallClockThroughIntl(zone, instant);
              if (JSON.stringify(local) !== JSON.stringify(intl))
                wrong.push(`${zone} at ${new Date(instant).toISOString()}: ${JSON.stringify(local)} against ${JSON.stringify(intl)}`);
            }
          }
        }
      }
    }
    assert.ok(changes > 20, `only ${changes} days with a change of offset were found`);
    assert.deepEqual(wrong.slice(0, 10), []);
  });

  it('leaves TZ as it found it, set or not', () => {
    const before = process.env.TZ;
    try {
      delete process.env.TZ;
      readLocalWallClock('Asia/Tokyo', 0);
      assert.equal(process.env.TZ, undefined);
      process.env.TZ = 'America/Denver';
      readLocalWallClock('Asia/Tokyo', 0);
      assert.equal(process.env.TZ, 'America/Denver');
      assert.equal(new Date(Date.UTC(2026, 0, 1)).getTimezoneOffset(), 7 * 60);
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });

  it('leaves to Intl the zones ICU would read from TZ as a rule, and stops after 200 readings of a zone', () => {
    assert.equal(wallClockThroughLocalTime('Etc/GMT+5', 0), undefined);
    assert.equal(wallClockThroughLocalTime('Nowhere/City', 0), undefined);
    for (let n = 0; n < 200; n++) assert.notEqual(wallClockThroughLocalTime('Europe/Lisbon', n * HOUR), undefined);
    assert.equal(wallClockThroughLocalTime('Europe/Lisbon', 0), undefined);
    assert.deepEqual(wallClockThroughLocalTime('UTC', Date.UTC(2026, 10, 30, 8, 5, 9, 999)), {
      year: 2026,
      month: 11,
      day: 30,
      hour: 8,
      minute: 5,
      second: 9,
    });
  });
});

describe("the machine's zone without Intl (local-time-zones.ts)", { skip: onWindows && 'not used on Windows' }, () => {
  it('names the zone TZ names as Intl does, or leaves it to Intl', () => {
    const before = process.env.TZ;
    try {
      for (const tz of [
        'Europe/Vienna',
        ':America/New_York',
        'Asia/Kolkata',
        'UTC',
        'Etc/UTC',
        'GMT',
        'Europe/Kiev',
        'Europe/Kyiv',
        'Asia/Calcutta',
        'CET-1CEST,M3.5.0,M10.5.0/3',
        'Etc/GMT-3',
      ]) {
        process.env.TZ = tz;
        const named = hostTimeZoneWithoutIntl();
        if (named !== undefined) assert.equal(named, Intl.DateTimeFormat().resolvedOptions().timeZone, `TZ=${tz}`);
      }
      process.env.TZ = 'Europe/Vienna';
      assert.equal(hostTimeZoneWithoutIntl(), 'Europe/Vienna');
      process.env.TZ = 'CET-1CEST,M3.5.0,M10.5.0/3';
      assert.equal(hostTimeZoneWithoutIntl(), undefined);
      // Without TZ, /etc/localtime's link names it, as ICU reads it.
      delete process.env.TZ;
      const named = hostTimeZoneWithoutIntl();
      if (named !== undefined) assert.equal(named, Intl.DateTimeFormat().resolvedOptions().timeZone);
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });
});
