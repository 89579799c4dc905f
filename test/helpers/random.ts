/**
 * A seeded generator for tests that choose at random: a failure names its seed, and running the
 * test again with that seed (env `TEST_SEED`) makes the same choices.
 */
export interface SeededRandom {
  seed: number;
  /** A number in [0, 1). */
  next(): number;
  /** One of `items`. */
  pick<T>(items: readonly T[]): T;
  /** An integer in [min, max]. */
  integer(min: number, max: number): number;
}

/** The generator of `TEST_SEED`, or of a new seed; mulberry32, small and good enough for choosing. */
export function seededRandom(seed = Number(process.env.TEST_SEED) || Math.floor(Math.random() * 2 ** 31)): SeededRandom {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return {
    seed,
    next,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    integer: (min, max) => min + Math.floor(next() * (max - min + 1)),
  };
}
