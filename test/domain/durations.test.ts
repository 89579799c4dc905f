// Durations as the desk types and reads them: `serve --backup-every`, `reminders set --before` (clinic-api-1.3.md, "Rules and templates").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { durationMsOf, durationText } from '../../src/domain/durations.js';

const [SECOND, MINUTE, HOUR, DAY] = [1000, 60_000, 3_600_000, 86_400_000];

describe('durations', () => {
  it('reads whole numbers with the units d, h, m and s, alone or together', () => {
    for (const [typed, ms] of [
      ['24h', 24 * HOUR],
      ['30m', 30 * MINUTE],
      ['1h30m', HOUR + 30 * MINUTE],
      ['2d', 2 * DAY],
      ['3s', 3 * SECOND],
      ['1d2h3m4s', DAY + 2 * HOUR + 3 * MINUTE + 4 * SECOND],
      ['0m', 0],
      ['90m', 90 * MINUTE],
    ] as const)
      assert.equal(durationMsOf(typed), ms, typed);
  });

  it('takes twelve digits to a unit and refuses the thirteenth', () => {
    assert.equal(durationMsOf('999999999999s'), 999_999_999_999 * SECOND);
    assert.equal(durationMsOf('1000000000000s'), undefined);
  });

  it('refuses what is not a duration: no unit, a fraction, a unit in capitals, spaces, a sign, nothing', () => {
    for (const typed of ['90', '1.5h', '1H', '1h 30m', ' 1h', '-1h', '+1h', 'h', '1w', ''])
      assert.equal(durationMsOf(typed), undefined, JSON.stringify(typed));
  });

  it('shows a duration in its largest units, the larger first, as reminders show lists rules', () => {
    assert.equal(durationText(HOUR + 30 * MINUTE), '1h30m');
    assert.equal(durationText(DAY), '1d');
    assert.equal(durationText(2 * HOUR), '2h');
    assert.equal(durationText(25 * HOUR), '1d1h');
    assert.equal(durationText(90 * MINUTE), '1h30m');
    assert.equal(durationText(DAY + SECOND), '1d1s');
    assert.equal(durationText(30 * DAY), '30d');
  });

  it('shows nothing as 0s, and leaves out what is less than a second', () => {
    assert.equal(durationText(0), '0s');
    assert.equal(durationText(999), '0s');
    assert.equal(durationText(1500), '1s');
  });

  it('reads back what it shows', () => {
    for (const ms of [15 * MINUTE, HOUR + 30 * MINUTE, DAY + 2 * HOUR + 3 * MINUTE + 4 * SECOND, 30 * DAY, SECOND])
      assert.equal(durationMsOf(durationText(ms)), ms);
  });
});
