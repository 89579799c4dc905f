import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deskDate, deskDateText, deskDateTimeText } from '../../../src/domain/desk/desk-date.js';
import { ValidationError } from '../../../src/errors.js';

// Issue 42, finding 7: the desk's dates as a German front desk types them. The API keeps ISO 8601
// (its validation is untouched); these are the command line's readings only.

/** A clinic whose today is Wednesday 25.11.2026. */
const today = () => '2026-11-25';
const at = { loc: ['body', 'start_at'] };

describe('the desk reads a date', () => {
  it('takes yesterday, today and tomorrow, in English and German, in any case', () => {
    const cases: [string, string][] = [
      ['yesterday', '2026-11-24'],
      ['Gestern', '2026-11-24'],
      ['today', '2026-11-25'],
      ['HEUTE', '2026-11-25'],
      ['tomorrow', '2026-11-26'],
      ['morgen', '2026-11-26'],
    ];
    for (const [typed, expected] of cases) assert.equal(deskDateText(typed, today, at), expected, typed);
  });

  it('reads yesterday across a month and a year', () => {
    assert.equal(
      deskDateText('yesterday', () => '2026-03-01', at),
      '2026-02-28',
    );
    assert.equal(
      deskDateText('gestern', () => '2027-01-01', at),
      '2026-12-31',
    );
  });

  it('takes a two-digit year as the year nearest today', () => {
    const cases: [string, string][] = [
      ['30.11.26', '2026-11-30'],
      ['1.3.27', '2027-03-01'],
      ['2.3.85', '1985-03-02'],
      ['31.12.75', '2075-12-31'],
      ['1.1.77', '1977-01-01'],
    ];
    for (const [typed, expected] of cases) assert.equal(deskDateText(typed, today, at), expected, typed);
  });

  it('takes the two-digit year of a date of birth as the latest not after today', () => {
    const born = { loc: ['body', 'date_of_birth'], past: true };
    assert.equal(deskDateText('1.3.40', today, born), '1940-03-01');
    assert.equal(deskDateText('24.11.26', today, born), '2026-11-24');
    // Five days ahead: not born yet, so a hundred years earlier.
    assert.equal(deskDateText('30.11.26', today, born), '1926-11-30');
  });

  it('takes a weekday in front, English or German, when it is the date’s', () => {
    for (const typed of ['Mo 30.11.2026', 'Mon 30.11.2026', 'mon, 30.11.26', 'Montag 30.11.2026', 'Mo. 2026-11-30']) {
      assert.equal(deskDateText(typed, today, at), '2026-11-30', typed);
    }
    assert.equal(deskDateTimeText('Mo 30.11.26 14:00', today, at), '2026-11-30T14:00');
  });

  it('refuses a weekday that is not the date’s, saying which day the date is', () => {
    for (const typed of ['Di 30.11.2026', 'Tue 30.11.2026 14:00']) {
      assert.throws(
        () => deskDateTimeText(typed, today, at),
        (error: unknown) => {
          assert.ok(error instanceof ValidationError);
          const [failing] = error.issues;
          assert.deepEqual(failing?.loc, ['body', 'start_at']);
          assert.equal(failing?.input, typed);
          assert.match(failing?.msg ?? '', /30\.11\.2026 is a Monday, not a Tuesday/);
          return true;
        },
        typed,
      );
    }
  });

  it('takes a date and time with the new forms', () => {
    assert.equal(deskDateTimeText('yesterday 18:30', today, at), '2026-11-24T18:30');
    assert.equal(deskDateTimeText('30.11.26 9:05', today, at), '2026-11-30T09:05');
  });

  it('passes on what it does not read, for the use case to refuse as typed', () => {
    for (const typed of ['Mo', 'next week', '30.11.', '2026-11-30T10:00', 'Mo 30.11.2026 10:00 extra']) {
      assert.equal(deskDateTimeText(typed, today, at), typed, typed);
    }
  });

  it('answers report day --date yesterday with the day before the clinic’s today', () => {
    // 23:30 UTC on 24.11.2026 is already the 25th in Vienna: yesterday is the 24th there.
    const now = Date.parse('2026-11-24T23:30:00Z');
    assert.equal(deskDate('yesterday', 'Europe/Vienna', now), '2026-11-24');
    assert.equal(deskDate('gestern', 'UTC', now), '2026-11-23');
  });
});
