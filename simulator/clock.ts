import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Where the service's time comes from: this computer's clock (`Date`), or the virtual clock of an
 * in-process test (main/time/virtual-clock.ts), whose `callWaits` holds an answer back on its
 * time while the call stays on the wire, and whose `timer` ends an outage (`goOfflineFor`).
 */
export interface TimeSource {
  now(): number;
  callWaits?(ms: number, hungUp?: AbortSignal): Promise<void>;
  timer?(ms: number, run: () => void): () => void;
}

/**
 * Simulated time: a time source (this computer's clock, or a test's virtual one) plus an offset
 * that tests move forward, so token, upload and widget lifetimes can expire without waiting.
 */
export class SimulatorClock {
  #offsetMs = 0;
  readonly #source: TimeSource;

  constructor(source: TimeSource = Date) {
    this.#source = source;
  }

  /**
   * Holds a call's answer back `ms` (its latency), whether or not its caller is still there: on
   * the source's time when it has its own. `hungUp` aborts when the caller closed the connection.
   */
  async wait(ms: number, hungUp?: AbortSignal): Promise<void> {
    if (this.#source.callWaits) return this.#source.callWaits(ms, hungUp);
    await sleep(ms);
  }

  /** Runs `run` once after `ms`, on the source's time when it has timers; returns its cancellation. */
  after(ms: number, run: () => void): () => void {
    if (this.#source.timer) return this.#source.timer(ms, run);
    const handle = setTimeout(run, ms);
    return () => clearTimeout(handle);
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
