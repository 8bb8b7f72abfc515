import { backoffDelayMs } from '../client/backoff';

/**
 * The pause of every read while the service is busy (429, 503, a failure it says is passing):
 * longer with each busy answer in a row, never shorter than the Retry-After it asked for.
 */
export class ReadBackoff {
  readonly #random: () => number;
  #streak = 0;
  #pausedUntil = 0;

  constructor(random: () => number) {
    this.#random = random;
  }

  /** Until when no request is read (monotonic time; in the past when reads go on). */
  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  /** The service was busy at `tick` (monotonic): pauses every read and returns for how long. */
  pause(tick: number, retryAfterMs: number | undefined): number {
    this.#streak += 1;
    const delay = Math.max(
      retryAfterMs ?? 0,
      5_000 +
        backoffDelayMs(
          this.#streak,
          { maxAttempts: 0, baseDelayMs: 10_000, maxDelayMs: 15 * 60_000, maxRetryAfterMs: 0 },
          this.#random,
        ),
    );
    this.#pausedUntil = tick + delay;
    return delay;
  }

  /** The service answered: true when that ends a run of busy answers. */
  answered(): boolean {
    if (this.#streak === 0) return false;
    this.#streak = 0;
    return true;
  }
}
