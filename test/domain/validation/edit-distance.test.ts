// edit-distance.ts: how many typing mistakes apart two words are, for the "did you mean" of a
// mistyped command, choice or time zone (the desk's hints, clinic-api-1.3.md's settings).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { editDistance } from '../../../src/domain/validation/edit-distance.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const FC_OPTIONS = { numRuns: RUNS, ...(process.env.TEST_SEED ? { seed: Number(process.env.TEST_SEED) } : {}) };

/** Short words of few letters, so that generated pairs share letters and are often close. */
const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), maxLength: 7 });

describe('edit distance', () => {
  it('is 0 between equal words and the length of the other against an empty one', () => {
    assert.equal(editDistance('', ''), 0);
    assert.equal(editDistance('serve', 'serve'), 0);
    assert.equal(editDistance('', 'serve'), 5);
    assert.equal(editDistance('backup', ''), 6);
  });

  it('counts one inserted, removed, replaced or swapped neighbouring letter as one mistake', () => {
    assert.equal(editDistance('sevre', 'serve'), 1, 'swapped');
    assert.equal(editDistance('appointments:wirte', 'appointments:write'), 1, 'swapped');
    assert.equal(editDistance('serv', 'serve'), 1, 'left out');
    assert.equal(editDistance('serrve', 'serve'), 1, 'doubled');
    assert.equal(editDistance('setve', 'serve'), 1, 'replaced');
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('Berlin', 'berlin'), 1, 'letter case is a mistake: callers fold it first');
  });

  it('answers the distance up to the limit, exactly at it, and limit + 1 one past it', () => {
    assert.equal(editDistance('kitten', 'sitting', 4), 3);
    assert.equal(editDistance('kitten', 'sitting', 3), 3);
    assert.equal(editDistance('kitten', 'sitting', 2), 3);
    assert.equal(editDistance('kitten', 'sitting', 1), 2);
    assert.equal(editDistance('Lima', 'Rome', 1), 2);
    // Lengths further apart than the limit are past it whatever the letters.
    assert.equal(editDistance('ab', 'abcde', 2), 3);
    assert.equal(editDistance('ab', 'abcd', 2), 2);
  });

  it('with any limit, gives the distance when it is within the limit, and a number past the limit when it is not', () => {
    // Callers keep what is within the limit (`distance <= limit`); past it only "past" matters.
    fc.assert(
      fc.property(word, word, fc.nat({ max: 8 }), (a, b, limit) => {
        const full = editDistance(a, b);
        const limited = editDistance(a, b, limit);
        if (full <= limit) assert.equal(limited, full);
        else assert.ok(limited > limit, `${limited} for ${full} at limit ${limit}`);
      }),
      FC_OPTIONS,
    );
  });

  it('is the same either way round, and never more than the longer length', () => {
    fc.assert(
      fc.property(word, word, (a, b) => {
        const distance = editDistance(a, b);
        assert.equal(editDistance(b, a), distance);
        assert.ok(distance <= Math.max(a.length, b.length));
        assert.ok(distance >= Math.abs(a.length - b.length));
      }),
      FC_OPTIONS,
    );
  });
});
