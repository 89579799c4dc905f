import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/domain/clock.js';
import { osRandomBytes, randomUuidV4 } from '../../src/domain/os-random.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('ids from the operating system’s random bytes (os-random.ts)', () => {
  it('gives lowercase UUIDs of version 4 and variant 10, as decisions.md §3 asks, none twice', () => {
    const ids = Array.from({ length: 5000 }, () => newId());
    for (const id of ids) assert.match(id, UUID_V4);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('sets every bit but the version’s and the variant’s at random', () => {
    // Over 4,000 ids, each of the 122 random bits is 1 in about half of them (binomial: 2,000 ± 32;
    // a bit stuck at 0 or 1, or a byte read twice, falls far outside 1,700-2,300).
    const counts = new Array<number>(128).fill(0);
    for (let n = 0; n < 4000; n++) {
      const hex = randomUuidV4().replace(/-/g, '');
      for (let bit = 0; bit < 128; bit++) if ((parseInt(hex[bit >> 2]!, 16) >> (3 - (bit & 3))) & 1) counts[bit]!++;
    }
    const fixed = new Set([48, 49, 50, 51, 64, 65]);
    for (let bit = 0; bit < 128; bit++) {
      if (fixed.has(bit)) continue;
      assert.ok(counts[bit]! > 1700 && counts[bit]! < 2300, `bit ${bit} was 1 in ${counts[bit]} of 4000 ids`);
    }
  });

  it('never hands out the same bytes twice across a refill of its pool', () => {
    const seen = new Set<string>();
    for (let n = 0; n < 3000; n++) {
      const key = Buffer.from(osRandomBytes(8)).toString('hex');
      assert.ok(!seen.has(key), `the bytes ${key} came twice`);
      seen.add(key);
    }
  });

  it('refuses a request larger than its pool rather than repeat bytes', () => {
    assert.throws(() => osRandomBytes(4097), RangeError);
  });
});
