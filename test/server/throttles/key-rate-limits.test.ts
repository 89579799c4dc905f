import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyRateLimits } from '../../../src/server/throttles/key-rate-limits.js';

/** A key's own limit (`api-key create --rate-limit N`) on a fake clock; test/server/failed-keys.test.ts sees it over HTTP. */
describe('the keys’ own limits per minute', () => {
  it('serves N requests of a clock minute, then refuses until :00 of the next', () => {
    let now = Date.parse('2026-11-26T10:00:50.250Z');
    const limits = new KeyRateLimits(() => now);
    assert.deepEqual([limits.take('a', 3), limits.take('a', 3), limits.take('a', 3)], [0, 0, 0]);
    assert.equal(limits.take('a', 3), 9750, 'ms to 10:01:00');
    now = Date.parse('2026-11-26T10:00:59.999Z');
    assert.equal(limits.take('a', 3), 1);
    now = Date.parse('2026-11-26T10:01:00.000Z');
    assert.deepEqual([limits.take('a', 3), limits.take('a', 3), limits.take('a', 3), limits.take('a', 3)], [0, 0, 0, 60_000]);
  });

  it('counts each key apart', () => {
    const now = Date.parse('2026-11-26T10:00:00.000Z');
    const limits = new KeyRateLimits(() => now);
    assert.equal(limits.take('a', 1), 0);
    assert.ok(limits.take('a', 1) > 0);
    assert.equal(limits.take('b', 1), 0);
  });

  it('counts an amount at a time (a read’s audit events): what would pass the limit is refused and not counted, unless the minute is unused', () => {
    let now = Date.parse('2026-11-26T10:00:00.000Z');
    const limits = new KeyRateLimits(() => now);
    assert.deepEqual([limits.take('a', 3000, 2900), limits.take('a', 3000, 150), limits.take('a', 3000, 100)], [0, 60_000, 0]);
    assert.ok(limits.take('a', 3000, 1) > 0, 'the minute is full');
    now = Date.parse('2026-11-26T10:01:00.000Z');
    assert.equal(limits.take('a', 3000, 5000), 0, 'more than a minute’s worth, in a minute not yet used');
    assert.ok(limits.take('a', 3000, 1) > 0);
  });
});
