/**
 * The one clock and scheduler of the app. Everything that reads the time or waits for it (backoff
 * sleeps, the call runner's deadlines, read spacing, the operation gate, the send engine's naps,
 * slow-call detection, the status poller, the tray's timer) takes a `Clock` instead of calling
 * `Date.now`, `performance.now` or `setTimeout` itself. The app passes `systemClock`; tests and
 * benchmarks pass a `VirtualClock` (virtual-clock.ts), so an hour of tracking runs in
 * milliseconds and a test never waits for a duration.
 *
 * Real time stays only where the real thing is the point: the data folder's lock between
 * processes, power cuts of real files, child processes, Chromium.
 */

/** Cancels a timer; calling it again, or after the timer ran, does nothing. */
export type Cancel = () => void;

export interface Clock {
  /** Wall-clock time, milliseconds since the epoch (what `Date.now()` gives). */
  now(): number;
  /** Monotonic milliseconds for measuring spans: never goes back when the wall clock is set back. */
  monotonic(): number;
  /**
   * Resolves after `ms` (at most `MAX_TIMER_DELAY_MS`), or rejects with the signal's reason as
   * soon as it aborts.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Runs `run` once after `ms`. Like Node's timers, a pending one keeps the process alive
   * (a command-line run waiting out a backoff must not exit), unless `background` says it is only
   * housekeeping.
   */
  timer(ms: number, run: () => void, background?: boolean): Cancel;
  /** Runs `run` every `ms` until cancelled; keeps the process alive unless `background`. */
  every(ms: number, run: () => void, background?: boolean): Cancel;
  /**
   * Marks real work in progress (a call on the wire) until the returned function is called: a
   * virtual clock does not jump over it while it waits for outcomes. The system clock ignores it.
   */
  busy(): () => void;
}

/**
 * The longest delay a Node timer takes: above it, `setTimeout` warns (TimeoutOverflowWarning)
 * and fires after 1 ms, which would turn a huge wait into a busy loop.
 */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** A timer's delay as Node takes it: not negative, not beyond the longest it can wait. */
export function timerDelay(ms: number): number {
  return Math.min(Math.max(0, Number.isFinite(ms) ? ms : MAX_TIMER_DELAY_MS), MAX_TIMER_DELAY_MS);
}

/**
 * A sleep on any clock's `timer`: resolves after `ms`, rejects with the signal's reason when it
 * aborts (at once if it already has).
 */
export function sleepOn(timer: Clock['timer'], ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason);
    };
    const cancel = timer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const NOT_BUSY = (): void => undefined;

/** The computer's own clock and Node's timers. */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms: number, signal?: AbortSignal) => sleepOn(systemClock.timer, ms, signal),
  timer(ms: number, run: () => void, background = false): Cancel {
    const handle = setTimeout(run, timerDelay(ms));
    if (background) handle.unref();
    return () => clearTimeout(handle);
  },
  every(ms: number, run: () => void, background = false): Cancel {
    const handle = setInterval(run, Math.max(1, timerDelay(ms)));
    if (background) handle.unref();
    return () => clearInterval(handle);
  },
  busy: () => NOT_BUSY,
});
