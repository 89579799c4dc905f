import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  dateError,
  parseDateTime,
  toUtcIso,
  wallClockAt,
  zoneOffsetMinutes,
  type LocalDateTime,
} from '../../../src/domain/validation/calendar.js';

const utc = (text: string, zone: string) => toUtcIso(parseDateTime(text) as LocalDateTime, zone);

describe('dates', () => {
  const cases: [string, boolean][] = [
    ['2024-02-29', true],
    ['2025-02-29', false],
    ['2025-02-30', false],
    ['2025-04-31', false],
    ['2025-12-31', true],
    ['2025-00-10', false],
    ['2025-1-10', false],
    ['20250110', false],
    ['0004-02-29', true],
    ['0100-02-29', false],
    ['1900-02-29', false],
    ['2000-02-29', true],
    ['0001-01-01', true],
    ['0000-01-01', false],
  ];
  for (const [text, valid] of cases) {
    it(`${valid ? 'accepts' : 'rejects'} ${text}`, () => assert.equal(dateError(text) === undefined, valid));
  }
});

describe('date-times', () => {
  it('converts an offset to UTC', () => assert.equal(utc('2026-12-01T09:00:00+01:00', 'UTC'), '2026-12-01T08:00:00.000Z'));
  it('accepts Z and omitted seconds', () => assert.equal(utc('2026-12-01T09:00Z', 'Europe/Berlin'), '2026-12-01T09:00:00.000Z'));
  it('keeps milliseconds', () => assert.equal(utc('2026-12-01T09:00:00.5Z', 'UTC'), '2026-12-01T09:00:00.500Z'));
  it('reads an offset-less value in the clinic zone in winter', () =>
    assert.equal(utc('2026-12-01T09:00', 'Europe/Berlin'), '2026-12-01T08:00:00.000Z'));
  it('reads an offset-less value in the clinic zone in summer', () =>
    assert.equal(utc('2026-07-01T09:00:00', 'Europe/Berlin'), '2026-07-01T07:00:00.000Z'));
  it('reads a time skipped by the spring change with the offset before it', () =>
    assert.equal(utc('2026-03-29T02:30:00', 'Europe/Berlin'), '2026-03-29T01:30:00.000Z'));
  it('reads a time repeated by the autumn change as its first occurrence', () =>
    assert.equal(utc('2026-10-25T02:30:00', 'Europe/Berlin'), '2026-10-25T00:30:00.000Z'));
  it('takes the first and last instants UTC output can write', () => {
    assert.equal(utc('0001-01-01T00:00Z', 'UTC'), '0001-01-01T00:00:00.000Z');
    assert.equal(utc('9999-12-31T23:59:59.999Z', 'UTC'), '9999-12-31T23:59:59.999Z');
    assert.equal(utc('9999-12-31T10:00+09:00', 'UTC'), '9999-12-31T01:00:00.000Z');
    assert.equal(utc('9999-12-30T10:00', 'Pacific/Kiritimati'), '9999-12-29T20:00:00.000Z');
  });
  it('keeps years before 100 as written', () => assert.equal(utc('0050-01-01T00:00Z', 'UTC'), '0050-01-01T00:00:00.000Z'));
  it('handles zones west of UTC', () => assert.equal(utc('2026-01-15T09:00', 'America/New_York'), '2026-01-15T14:00:00.000Z'));
  for (const bad of [
    '2026-12-01',
    '2026-12-01T25:00',
    '2026-02-30T10:00Z',
    'tomorrow',
    '2026-12-01T09:00+25:00',
    '0000-06-01T09:00Z',
    // UTC output has four-digit years: instants an offset moves out of 0001-9999 are refused.
    '9999-12-31T23:00-02:00',
    '0001-01-01T00:30+01:00',
    '9999-12-31T20:00',
  ]) {
    it(`rejects ${bad}`, () => assert.equal(typeof parseDateTime(bad), 'string'));
  }
});

describe("a zone's offset at an instant", () => {
  /** The offset as the wall clock shows it, read afresh: what the kept hours must agree with. */
  const shown = (zone: string, instant: number) => {
    const clock = wallClockAt(zone, instant);
    const asUtc = Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute, clock.second);
    return Math.round((asUtc - Math.floor(instant / 1000) * 1000) / 60000);
  };
  // Vienna changes on the hour (01:00 UTC); Lord Howe by half an hour at 15:00 UTC in April and at
  // 15:30 UTC in October; Chatham at 14:00 UTC with a 45-minute base offset.
  for (const [zone, around] of [
    ['Europe/Vienna', '2027-03-28T01:00:00Z'],
    ['Europe/Vienna', '2027-10-31T01:00:00Z'],
    ['Australia/Lord_Howe', '2027-04-03T15:00:00Z'],
    ['Australia/Lord_Howe', '2027-10-02T15:30:00Z'],
    ['Pacific/Chatham', '2027-04-03T14:00:00Z'],
  ] as const) {
    it(`is the wall clock's in ${zone} on every minute of the hours around ${around}, read twice`, () => {
      const change = Date.parse(around);
      for (const pass of [1, 2]) {
        for (let instant = change - 3 * 3_600_000 + 1; instant < change + 3 * 3_600_000; instant += 59_999) {
          assert.equal(zoneOffsetMinutes(zone, instant), shown(zone, instant), `${zone} ${new Date(instant).toISOString()} pass ${pass}`);
        }
        const before = zoneOffsetMinutes(zone, change - 1);
        assert.notEqual(zoneOffsetMinutes(zone, change), before, `${zone} changes at ${around}`);
      }
    });
  }
});
