import { systemClock, type Clock } from '../time/clock';

/**
 * Least time between the starts of two reads of the same signing request (README "Tracking politely": "No
 * request is read twice within 5 s, whatever asks"). 50 ms above 5 s so that loopback and
 * scheduling jitter never bring two arrivals at the service under 5 s apart.
 */
export const READ_SPACING_MS = 5_050;

/** Entries older than the spacing say nothing any more; they are swept once the map grows past this. */
const SWEEP_ABOVE_ENTRIES = 512;

/**
 * Remembers when each key (a signing request id) was last attempted, so that no two attempts of
 * the same key start less than `spacingMs` apart, whoever makes them: the send engine, the
 * poller, a ceremony, or a call's own retry. One instance per service client. Monotonic clock.
 */
export class ReadSpacing {
  readonly #lastStart = new Map<string, number>();
  readonly #spacingMs: number;
  readonly #clock: Clock;
  /**
   * When this client began. A process that started just before it (the app restarting after a
   * crash, a command run twice) may have read any request then: the first read of each waits
   * until the spacing has passed since this client began.
   */
  readonly #since: number;

  constructor(spacingMs: number = READ_SPACING_MS, clock: Clock = systemClock) {
    this.#spacingMs = spacingMs;
    this.#clock = clock;
    this.#since = clock.monotonic();
  }

  /** Milliseconds until an attempt of `key` may start; 0 when it may start now. */
  remainingMs(key: string): number {
    const last = this.#lastStart.get(key) ?? this.#since;
    return Math.max(0, Math.ceil(last + this.#spacingMs - this.#clock.monotonic()));
  }

  /**
   * Records that an attempt of `key` starts now. The caller checks `remainingMs` first and
   * calls this with no await in between, so no other attempt can slip in.
   */
  markStarted(key: string): void {
    const now = this.#clock.monotonic();
    this.#lastStart.set(key, now);
    if (this.#lastStart.size <= SWEEP_ABOVE_ENTRIES) return;
    for (const [other, at] of this.#lastStart) {
      if (at + this.#spacingMs <= now) this.#lastStart.delete(other);
    }
  }
}
