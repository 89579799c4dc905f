import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deskTable, fileSize, localDateTime, money, patientLabel, timeSpan, truncate } from '../../src/cli/desk-format.js';

// What the desk prints for people (issue 42, finding 14: sizes in binary units), tested on the
// functions; the commands' tests show them in their printouts.

describe('a size for people', () => {
  it('is in binary units named as such', () => {
    assert.equal(fileSize(812), '812 B');
    assert.equal(fileSize(11_776), '11.5 KiB');
    assert.equal(fileSize(20_000_000), '19.1 MiB');
    assert.equal(fileSize(322_961_408), '308.0 MiB');
    assert.equal(fileSize(1_342_177_280), '1.25 GiB');
  });
});

describe('a time for people', () => {
  it('is clinic time, with the weekday, across a change of daylight saving time', () => {
    assert.equal(localDateTime('2026-11-23T13:00:00.000Z', 'Europe/Vienna'), 'Mon 23.11.2026 14:00');
    assert.equal(localDateTime('2026-07-01T13:00:00.000Z', 'Europe/Vienna'), 'Wed 01.07.2026 15:00');
    assert.equal(localDateTime('2026-11-23T23:30:00.000Z', 'Europe/Vienna'), 'Tue 24.11.2026 00:30');
  });

  it("dates an appointment's start or end that falls on another day than the sheet's", () => {
    assert.equal(timeSpan('2026-11-23T08:00:00.000Z', '2026-11-23T08:30:00.000Z', 'Europe/Vienna', '2026-11-23'), '09:00-09:30');
    assert.equal(timeSpan('2026-11-22T22:30:00.000Z', '2026-11-22T23:30:00.000Z', 'Europe/Vienna', '2026-11-22'), '23:30-23.11. 00:30');
  });
});

describe('money and names for people', () => {
  it('prints an amount with two decimals and its currency', () => {
    assert.equal(money(85.5, 'EUR'), '85.50 EUR');
    assert.equal(money('-12', 'CHF'), '-12.00 CHF');
    assert.equal(money(0, null), '0.00');
  });

  it('names a patient by number and name, and a blocked time as no patient', () => {
    assert.equal(patientLabel('P-000042', 'Ada', 'Lovelace'), 'P-000042 Ada Lovelace');
    assert.equal(patientLabel('P-000042', null, 'Lovelace'), 'P-000042 Lovelace');
    assert.equal(patientLabel(null, null, null), '(no patient)');
  });
});

describe('a desk table', () => {
  it('cuts the widest shrinking column first, with an ellipsis, to fit 100 columns', () => {
    const long = 'A'.repeat(150);
    const table = deskTable(
      [{ header: 'No.' }, { header: 'Name', shrink: true }, { header: 'Total', align: 'right' }],
      [['P-000001', long, '85.50 EUR']],
    );
    for (const line of table.split('\n')) assert.ok([...line].length <= 100, line);
    assert.match(table, /A…/);
    assert.match(table, /85\.50 EUR$/m);
  });

  it('counts a name written with combining accents as the letters it shows', () => {
    assert.equal(truncate('Zoe\u0308 Mu\u0308ller', 20), 'Zoë Müller');
    assert.equal(truncate('Zoë Müller', 5), 'Zoë …');
  });
});
