import { randomInt } from 'node:crypto';

/**
 * A small seeded generator (mulberry32) returning numbers in [0, 1). Faults draw from it so a
 * run with the same seed and the same request order fails the same way.
 */
export function createSeededRandom(seed: number = randomInt(0, 2 ** 31)): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}
