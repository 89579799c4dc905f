import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CLINIC_FAILED_KEYS_ALLOWED,
  FailedKeyThrottle,
  KNOWN_ADDRESS_MS,
  type FailedKeyThrottleOptions,
} from '../../../src/server/throttles/failed-key-throttle.js';

/**
 * The rule of "Failed keys" (clinic-api-1.2.md, "Network") on a fake clock, where its minutes
 * pass at once; test/server/failed-keys.test.ts sees it over HTTP in real time.
 */
function onFakeClock(maxAddresses?: number, options: Omit<FailedKeyThrottleOptions, 'now' | 'maxAddresses'> = {}) {
  let now = Date.parse('2026-11-26T10:00:00.000Z');
  const throttle = new FailedKeyThrottle({ now: () => now, ...(maxAddresses === undefined ? {} : { maxAddresses }), ...options });
  return {
    throttle,
    pass: (ms: number) => (now += ms),
    fail: (address: string, times: number, everyMs = 0) => {
      for (let i = 0; i < times; i += 1) {
        if (i > 0) now += everyMs;
        throttle.recordFailure(address);
      }
    },
  };
}

describe('the failed-key rule', () => {
  it('blocks an address at its 30th 401 within 60 s, until 60 s after that 401', () => {
    const { throttle, pass, fail } = onFakeClock();
    fail('192.168.1.50', 29, 2000);
    assert.equal(throttle.blockedFor('192.168.1.50'), 0, '29 401s in 56 s');
    pass(2000);
    fail('192.168.1.50', 1);
    assert.equal(throttle.blockedFor('192.168.1.50'), 60_000, 'the 30th, 58 s after the first');
    pass(59_999);
    assert.equal(throttle.blockedFor('192.168.1.50'), 1);
    pass(1);
    assert.equal(throttle.blockedFor('192.168.1.50'), 0, '60 s after the 30th 401 it is served again');
  });

  it('counts any 60 s, not fixed minutes: 15 401s late in one minute and 15 early in the next block', () => {
    const { throttle, pass, fail } = onFakeClock();
    pass(45_000);
    fail('10.0.0.7', 15, 1000);
    pass(1000);
    fail('10.0.0.7', 15, 1000);
    assert.ok(throttle.blockedFor('10.0.0.7') > 0);
  });

  it('does not block 29 401s, then 61 s later 29 more', () => {
    const { throttle, pass, fail } = onFakeClock();
    fail('10.0.0.8', 29);
    pass(61_000);
    fail('10.0.0.8', 29);
    assert.equal(throttle.blockedFor('10.0.0.8'), 0);
  });

  it('does not block 30 401s spread over more than 60 s', () => {
    const { throttle, fail } = onFakeClock();
    fail('10.0.0.9', 30, 2100);
    assert.equal(throttle.blockedFor('10.0.0.9'), 0, '30 401s over 60.9 s');
  });

  it('starts afresh after a block: its 30 401s are spent', () => {
    const { throttle, pass, fail } = onFakeClock();
    fail('10.0.0.10', 30);
    pass(60_000);
    assert.equal(throttle.blockedFor('10.0.0.10'), 0);
    fail('10.0.0.10', 29);
    assert.equal(throttle.blockedFor('10.0.0.10'), 0, '29 new 401s are not 30');
    fail('10.0.0.10', 1);
    assert.equal(throttle.blockedFor('10.0.0.10'), 60_000);
  });

  it('does not move the end of a block for a 401 answered during it', () => {
    const { throttle, pass, fail } = onFakeClock();
    fail('10.0.0.11', 30);
    pass(10_000);
    fail('10.0.0.11', 5);
    assert.equal(throttle.blockedFor('10.0.0.11'), 50_000);
  });

  it('blocks only the address that failed', () => {
    const { throttle, fail } = onFakeClock();
    fail('127.0.0.2', 30);
    assert.ok(throttle.blockedFor('127.0.0.2') > 0);
    assert.equal(throttle.blockedFor('127.0.0.3'), 0);
    assert.equal(throttle.blockedFor('fe80::1'), 0);
  });

  it('remembers at most its bound of addresses, the least recently seen forgotten first', () => {
    const { throttle, fail } = onFakeClock(100);
    fail('10.1.0.1', 30);
    for (let i = 0; i < 1000; i += 1) {
      fail(`10.2.${i >> 8}.${i & 255}`, 1);
      // The blocked address keeps knocking, so it stays among the recently seen.
      if (i % 50 === 0) assert.ok(throttle.blockedFor('10.1.0.1') > 0);
    }
    assert.equal(throttle.size, 100);
    assert.ok(throttle.blockedFor('10.1.0.1') > 0, 'still blocked');
  });

  // Issue 39, L2: blocks were entries of the same LRU as the counting logs.
  it('keeps a blocked address blocked whatever other addresses fail: 10,000 others with a 401 each, the blocked one silent', () => {
    const { throttle, fail } = onFakeClock();
    fail('10.1.0.1', 30);
    for (let i = 0; i < 10_000; i += 1) fail(`10.2.${i >> 8}.${i & 255}`, 1);
    assert.equal(throttle.blockedFor('10.1.0.1'), 60_000, 'still blocked, to the end');
  });

  it('holds at most its bound of blocked addresses, pushing out the one whose block ends first', () => {
    const { throttle, pass, fail } = onFakeClock(undefined, { maxBlocked: 3, clinicAllowed: 1_000_000 });
    for (const address of ['10.3.0.1', '10.3.0.2', '10.3.0.3', '10.3.0.4']) {
      fail(address, 30);
      pass(1000);
    }
    assert.equal(throttle.blockedCount, 3);
    assert.equal(throttle.blockedFor('10.3.0.1'), 0, 'the first to end went first');
    assert.deepEqual(
      ['10.3.0.2', '10.3.0.3', '10.3.0.4'].map((address) => throttle.blockedFor(address)),
      [57_000, 58_000, 59_000],
    );
  });
});

describe('the clinic-wide budget of failed keys', () => {
  /** `addresses` addresses with 30 401s each, one after the other. */
  const failFrom = (fail: (address: string, times: number) => void, addresses: number, prefix = '10.4.0') => {
    for (let i = 1; i <= addresses; i += 1) fail(`${prefix}.${i}`, 30);
  };

  it(`refuses every address without a valid key lately for 60 s once ${CLINIC_FAILED_KEYS_ALLOWED} 401s fall within 60 s`, () => {
    const { throttle, pass, fail } = onFakeClock();
    throttle.recordValidKey('192.168.1.30');
    failFrom(fail, 9);
    fail('10.4.0.10', 29);
    assert.equal(throttle.clinicBlockedFor('10.9.9.9'), 0, `${CLINIC_FAILED_KEYS_ALLOWED - 1} 401s`);
    fail('10.4.0.10', 1);
    assert.equal(throttle.clinicBlockedFor('10.9.9.9'), 60_000, 'a new address');
    assert.equal(throttle.clinicBlockedFor('192.168.1.30'), 0, 'an address that used a valid key is served');
    pass(59_999);
    assert.equal(throttle.clinicBlockedFor('10.9.9.9'), 1);
    pass(1);
    assert.equal(throttle.clinicBlockedFor('10.9.9.9'), 0, '60 s after the last 401');
    fail('10.5.0.1', 29);
    assert.equal(throttle.clinicBlockedFor('10.9.9.9'), 0, 'the budget starts afresh');
  });

  it(`does not count ${CLINIC_FAILED_KEYS_ALLOWED} 401s spread over more than 60 s`, () => {
    const { throttle, pass, fail } = onFakeClock();
    for (let i = 1; i <= 15; i += 1) {
      fail(`10.6.0.${i}`, 20);
      pass(4300);
    }
    assert.equal(throttle.clinicBlockedFor('10.9.9.9'), 0);
  });

  it('serves an address that used a valid key within the hour, not one that used it longer ago', () => {
    const { throttle, pass, fail } = onFakeClock();
    throttle.recordValidKey('192.168.1.31');
    pass(KNOWN_ADDRESS_MS - 60_000);
    throttle.recordValidKey('192.168.1.32');
    pass(59_000);
    failFrom(fail, 10);
    assert.equal(throttle.clinicBlockedFor('192.168.1.32'), 0);
    pass(2000);
    assert.ok(throttle.clinicBlockedFor('192.168.1.31') > 0, 'its valid key is more than an hour old');
  });

  it(`gives addresses rotating through 10,000 at most ${CLINIC_FAILED_KEYS_ALLOWED} guesses a minute`, () => {
    const { throttle, pass } = onFakeClock();
    let guesses = 0;
    // A guess a millisecond for 10 minutes, each from the next of 10,000 addresses.
    for (let attempt = 0; attempt < 600_000; attempt += 1) {
      const address = `10.7.${(attempt % 10_000) >> 8}.${attempt & 255}`;
      if (throttle.blockedFor(address) === 0 && throttle.clinicBlockedFor(address) === 0) {
        guesses += 1;
        throttle.recordFailure(address);
      }
      pass(1);
    }
    assert.ok(guesses <= 10 * CLINIC_FAILED_KEYS_ALLOWED, `${guesses} guesses in 10 minutes`);
    assert.ok(guesses >= 5 * CLINIC_FAILED_KEYS_ALLOWED, `${guesses}: the budget is spent, then renewed a minute later`);
  });
});
