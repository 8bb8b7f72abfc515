/**
 * Simulated time: a time source (this computer's clock, or a test's virtual one) plus an offset
 * that tests move forward, so token, upload and widget lifetimes can expire without waiting.
 */
export class SimulatorClock {
  #offsetMs = 0;
  readonly #source: { now(): number };

  constructor(source: { now(): number } = Date) {
    this.#source = source;
  }

  /** Current simulated time in milliseconds since the epoch. */
  now(): number {
    return this.#source.now() + this.#offsetMs;
  }

  /** Moves simulated time forward by `ms`; time never goes backwards. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RangeError(`clock.advance needs a finite, non-negative number of ms, got ${ms}`);
    }
    this.#offsetMs += ms;
  }
}

/** Formats a simulated time as ISO 8601 UTC with `Z`, as the service's timestamps are. */
export function isoTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}
