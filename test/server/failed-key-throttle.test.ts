import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailedKeyThrottle } from '../../src/server/failed-key-throttle.js';

/**
 * The rule of "Failed keys" (clinic-api-1.2.md, "Network") on a fake clock, where its minutes
 * pass at once; test/server/failed-keys.test.ts sees it over HTTP in real time.
 */
function onFakeClock(maxAddresses?: number) {
  let now = Date.parse('2026-11-26T10:00:00.000Z');
  const throttle = new FailedKeyThrottle({ now: () => now, ...(maxAddresses === undefined ? {} : { maxAddresses }) });
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
});
