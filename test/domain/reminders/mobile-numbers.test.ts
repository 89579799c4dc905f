import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { e164Mobile } from '../../../src/domain/reminders/mobile-numbers.js';

/**
 * Whether a patient's mobile number, as the desk typed it, can take an SMS (interface 1.3.0,
 * "Sending"), and in which form the gateway is given it. The sender's use of it (SMS, else
 * e-mail, else `no_address`): test/domain/reminders/sms-gateway.test.ts and send-reminders.test.ts;
 * a reply matched to its patient by it: replies.test.ts.
 */

describe('mobile numbers', () => {
  it('reads an Austrian mobile written nationally, with spaces, dashes, slashes, dots and brackets, as +43', () => {
    for (const typed of ['0664 1234567', '0664/123 45 67', '(0664) 123-45-67', '0664.123.4567', ' 06641234567 '])
      assert.equal(e164Mobile(typed, 'AT'), '+436641234567', typed);
  });

  it("gives a national number the clinic country's calling code: +49 in Germany, +41 in Switzerland, +44 in Britain", () => {
    assert.equal(e164Mobile('0151 23456789', 'DE'), '+4915123456789');
    assert.equal(e164Mobile('079 123 45 67', 'CH'), '+41791234567');
    assert.equal(e164Mobile('07700 900123', 'GB'), '+447700900123');
  });

  it('reads 00 as +, and keeps a number written with +, whatever the country, or none', () => {
    for (const country of ['AT', 'DE', 'US', null]) {
      assert.equal(e164Mobile('0049 151 23456789', country), '+4915123456789', `${country}`);
      assert.equal(e164Mobile('+43 664 1234567', country), '+436641234567', `${country}`);
    }
  });

  it('takes no national number without a country, nor in a country whose numbers have no trunk 0', () => {
    assert.equal(e164Mobile('0664 1234567', null), null);
    assert.equal(e164Mobile('0664 1234567', 'US'), null);
    assert.equal(e164Mobile('212 555 0100', 'US'), null);
  });

  it('takes + and 8 to 15 digits, as E.164 allows, and no fewer or more', () => {
    assert.equal(e164Mobile('+1234567', null), null);
    assert.equal(e164Mobile('+12345678', null), '+12345678');
    assert.equal(e164Mobile('+123456789012345', null), '+123456789012345');
    assert.equal(e164Mobile('+1234567890123456', null), null);
    // The country's code counts: 0 and seven digits in Austria make +43 and seven, nine in all.
    assert.equal(e164Mobile('0123456', 'AT'), '+43123456');
    assert.equal(e164Mobile('012345', 'AT'), null);
  });

  it('refuses what is no phone number: letters, an extension, a second +, nothing', () => {
    for (const typed of ['0664 CALL ME', '+43 664 1234567 ext. 12', '++436641234567', '+43+6641234567', '', '   ', 'n/a'])
      assert.equal(e164Mobile(typed, 'AT'), null, typed);
    assert.equal(e164Mobile(null, 'AT'), null);
  });
});
