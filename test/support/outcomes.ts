import { vi } from 'vitest';

/**
 * How long a test lets an outcome take before it fails. A failure bound, never a wait: the
 * test goes on as soon as the outcome is there. vitest's own default (1 s) is a wall-clock
 * bound that a loaded machine (two cores, the simulator, a child process, Chromium) misses.
 */
export const OUTCOME_BOUND_MS = 30_000;

/** Waits until `check` passes (it throws until then), failing after OUTCOME_BOUND_MS. */
export function eventually<T>(check: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(check, { timeout: OUTCOME_BOUND_MS, interval: 20 });
}
