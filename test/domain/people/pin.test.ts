// A person's PIN: which the clinic takes, and how it is kept (clinic-api-1.3.md, "Persons": "PINs: 6–12 ASCII digits ...").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPin, pinFault, pinMatches } from '../../../src/domain/people/pin.js';

describe('PINs', () => {
  it('take 6 to 12 digits exactly: 5 and 13 are refused by their length', () => {
    assert.equal(pinFault('482913'), null);
    assert.equal(pinFault('482913482057'), null);
    assert.equal(pinFault('48291'), 'length');
    assert.equal(pinFault('4829134820571'), 'length');
    assert.equal(pinFault(''), 'length');
  });

  it('refuse anything but ASCII digits, before their length', () => {
    for (const pin of ['48291a', '4829 13', '482-913', '٤٨٢٩١٣', '４８２９１３', 'ab']) assert.equal(pinFault(pin), 'not_digits', pin);
  });

  it('refuse one digit throughout', () => {
    assert.equal(pinFault('000000'), 'one_digit');
    assert.equal(pinFault('999999999999'), 'one_digit');
  });

  it('refuse a sequence up or down, which does not wrap past 9 or 0', () => {
    for (const pin of ['123456', '3456789', '0123456789', '987654', '9876543210']) assert.equal(pinFault(pin), 'sequence', pin);
    // 9 → 0 is no step of 1: the specification's own example passes.
    assert.equal(pinFault('890123'), null);
    assert.equal(pinFault('210987'), null);
    assert.equal(pinFault('123457'), null);
  });

  it('refuse the first 2 or 3 digits repeated, the last repeat possibly cut, and take a repeat of 4', () => {
    for (const pin of ['121212', '1212121', '123123', '1231231', '12312312', '909090909090']) assert.equal(pinFault(pin), 'repeated', pin);
    assert.equal(pinFault('12341234'), null);
    assert.equal(pinFault('112233'), null);
    assert.equal(pinFault('121213'), null);
  });

  it('are kept as a salted scrypt hash that names its cost, never as the PIN', () => {
    const stored = hashPin('482913');
    assert.match(stored, /^scrypt\$32768\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    assert.doesNotMatch(stored, /482913/);
    // A new salt each time: two people with one PIN are not told apart by their hashes.
    assert.notEqual(hashPin('482913'), stored);
    assert.equal(pinMatches('482913', stored), true);
    assert.equal(pinMatches('482914', stored), false);
    assert.equal(pinMatches('', stored), false);
  });

  it('match no stored form of another scheme, or a damaged one', () => {
    const stored = hashPin('482913');
    assert.equal(pinMatches('482913', stored.replace(/^scrypt/, 'argon2')), false);
    assert.equal(pinMatches('482913', 'scrypt$32768$8$1'), false);
    assert.equal(pinMatches('482913', ''), false);
  });
});
