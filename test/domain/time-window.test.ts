// src/domain/time-window.ts: the `from` and `to` ends of a list's window of time (clinic-api-1.1.md, "GET /appointments").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isIssue, windowEnd, windowEndIssues } from '../../src/domain/time-window.js';

// The ends of a list's window of time (`from`, `to` of GET /appointments and GET /audit-events;
// clinic-api-1.1.md, "GET /appointments"; decisions.md §3): a calendar date, or a date-time in
// clinic time when it has no offset.

describe('the ends of a window of time', () => {
  it('keeps a calendar date as a date, for the list to read as a whole clinic day', () => {
    assert.deepEqual(windowEnd('from', '2026-11-30', 'Europe/Vienna'), { date: '2026-11-30' });
    assert.deepEqual(windowEnd('to', '2028-02-29', 'Europe/Vienna'), { date: '2028-02-29' }, 'a leap day');
  });

  it('reads a date-time without offset in clinic time, and one with an offset or Z as that instant', () => {
    assert.deepEqual(windowEnd('from', '2026-11-30T09:00', 'Europe/Vienna'), { instant: '2026-11-30T08:00:00.000Z' });
    assert.deepEqual(windowEnd('from', '2026-07-01T09:00', 'Europe/Vienna'), { instant: '2026-07-01T07:00:00.000Z' }, 'summer time');
    assert.deepEqual(windowEnd('to', '2026-11-30T09:00Z', 'Europe/Vienna'), { instant: '2026-11-30T09:00:00.000Z' });
    assert.deepEqual(windowEnd('to', '2026-11-30T09:00:00-05:00', 'Europe/Vienna'), { instant: '2026-11-30T14:00:00.000Z' });
  });

  it('refuses a date off the calendar as date_parsing, other text as datetime_parsing, at the end it names', () => {
    const offCalendar = windowEnd('to', '2026-02-30', 'UTC');
    assert.ok(isIssue(offCalendar), JSON.stringify(offCalendar));
    assert.deepEqual([offCalendar.type, offCalendar.loc, offCalendar.input], ['date_parsing', ['query', 'to'], '2026-02-30']);
    const words = windowEnd('from', 'yesterday', 'UTC');
    assert.ok(isIssue(words), JSON.stringify(words));
    assert.deepEqual([words.type, words.loc, words.input], ['datetime_parsing', ['query', 'from'], 'yesterday']);
    const hour = windowEnd('from', '2026-11-30T24:30', 'UTC');
    assert.ok(isIssue(hour) && hour.type === 'datetime_parsing', JSON.stringify(hour));
  });

  it("reports the issues of both ends of a query at once, leaving what is no text to the fields' own checks", () => {
    assert.deepEqual(
      windowEndIssues({ from: '30.11.2026', to: 'noon' }, 'UTC').map((issue) => [issue.loc.join('.'), issue.type]),
      [
        ['query.from', 'datetime_parsing'],
        ['query.to', 'datetime_parsing'],
      ],
    );
    assert.deepEqual(windowEndIssues({ from: '2026-11-30', to: '2026-12-01T00:00Z' }, 'UTC'), []);
    assert.deepEqual(windowEndIssues({ from: 20261130, to: ['2026-11-30'] }, 'UTC'), []);
    assert.deepEqual(windowEndIssues('from=2026-11-30', 'UTC'), [], 'a query that is no object');
    assert.equal(isIssue(undefined), false);
  });
});
