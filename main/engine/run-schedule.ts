/**
 * When a run's workers take their next step: now, after a nap, or once the wait for the service
 * is over. A nap ends early when something changed (a document finished, a retry or an answer
 * to a check arrived: `wake`); "Try now" ends the wait for the service. Waits are measured on
 * the monotonic clock: a wall clock set back would stall sending.
 */
import type { Clock } from '../time/clock';
import type { ServiceFailure } from '../domain/service-failure';
import { waitDelayMs, type WaitBounds } from './service-waits';

export class RunSchedule {
  readonly #clock: Clock;
  /** Aborted when the run stops: a nap ends at once. */
  readonly #stopping: AbortSignal;
  readonly #bounds: WaitBounds;
  readonly #random: () => number;
  /** No new step starts before this time (the service is unreachable or asked to wait). */
  #resumeAt = 0;
  /** Waits in a row, with no answer that let a step continue in between. */
  #waitStreak = 0;
  /** A wait for the service is set, and the workers have not tried the service again since. */
  #waiting = false;
  #wake: () => void = () => undefined;
  #wakeSignal: Promise<void>;

  constructor(clock: Clock, stopping: AbortSignal, bounds: WaitBounds, random: () => number) {
    this.#clock = clock;
    this.#stopping = stopping;
    this.#bounds = bounds;
    this.#random = random;
    this.#wakeSignal = new Promise<void>((resolve) => (this.#wake = resolve));
  }

  /** When the wait for the service ends (monotonic clock); 0 or past when there is none. */
  get resumeAt(): number {
    return this.#resumeAt;
  }

  /** How long until the wait for the service ends (0 or less: none). */
  untilResume(): number {
    return this.#resumeAt - this.#clock.monotonic();
  }

  /** Ends every nap now: the workers look again. */
  wake(): void {
    // Every wake starts a new signal: a resolved one left in place would end every later nap at once (a busy loop).
    const wakeNow = this.#wake;
    this.#wakeSignal = new Promise<void>((resolve) => (this.#wake = resolve));
    wakeNow();
  }

  /** Ends the current wait: every worker tries the service again at once. */
  tryNow(): void {
    this.#resumeAt = 0;
    this.#waiting = false;
    this.wake();
  }

  /** Sleeps until `ms` passed or something changed (a document finished, a retry arrived). */
  async nap(ms: number): Promise<void> {
    const signal = this.#stopping;
    const timer = new AbortController();
    const onAbort = () => timer.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    await Promise.race([this.#wakeSignal, this.#clock.sleep(ms, timer.signal).catch(() => undefined)]);
    timer.abort();
    signal.removeEventListener('abort', onAbort);
  }

  /**
   * The service asked the run to wait (or could not be reached): no step starts before the wait
   * ends. Returns how long the wait is (ms).
   */
  waitAfter(failure: ServiceFailure): number {
    this.#waitStreak += 1;
    const delay = waitDelayMs(this.#waitStreak, failure, this.#bounds, this.#random);
    const resumesAt = this.#clock.monotonic() + delay;
    if (resumesAt > this.#resumeAt) this.#resumeAt = resumesAt;
    this.#waiting = true;
    return delay;
  }

  /**
   * True once when a wait for the service is over and the workers try it again: the wait's "next
   * try at" is gone by, and what the service does with the new tries is said from then on.
   */
  waitOver(): boolean {
    if (!this.#waiting || this.untilResume() > 0) return false;
    this.#waiting = false;
    return true;
  }

  /** A step went on: the next wait starts from the first again. True when a streak of waits ended. */
  endWaits(): boolean {
    if (this.#waitStreak === 0) return false;
    this.#waitStreak = 0;
    return true;
  }
}
