/**
 * A clock whose time moves only when told: for tests and benchmarks. Timers wait in a queue
 * ordered by their virtual due time; `advance(ms)` runs them in order, and `runUntil(check)`
 * jumps from one to the next until `check` holds — an hour of tracking runs as fast as its reads.
 *
 * Real work still happens for real (HTTP on loopback, files): before each jump the clock lets it
 * finish, so virtual time never passes over a call on the wire (the transport marks one with
 * `busy()`) or a file operation in progress. A jump is then what a quiet moment of real time
 * would be, only shorter.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as nextTurn, setTimeout as realDelay } from 'node:timers/promises';
import { sleepOn, timerDelay, type Cancel, type Clock } from './clock';

interface Pending {
  readonly at: number;
  readonly order: number;
  readonly run: () => void;
}

export interface VirtualClockOptions {
  /** The wall-clock time at the start, ms since the epoch (default 2026-01-05 09:00 UTC, a Monday). */
  readonly startAt?: number;
}

export interface RunUntilOptions {
  /** Virtual time after which `runUntil` gives up (default seven days). */
  readonly withinMs?: number;
  /** Real time after which it gives up while nothing moves (default 20 s): a test never hangs. */
  readonly realLimitMs?: number;
  /** Said in the error when it gives up. */
  readonly what?: string;
}

/**
 * Active requests (not handles) of libuv that mean real I/O is under way. `CloseReq` is the close
 * that ends `fs.promises.readFile` (and a closing socket): without it, time could jump while a
 * file read is all but done.
 */
const REAL_WORK =
  /^(FSReq|FileHandleCloseReq|CloseReq|GetAddrInfoReqWrap|ConnectWrap|WriteWrap|ShutdownWrap)/;

function realWorkPending(): boolean {
  return process.getActiveResourcesInfo().some((name) => REAL_WORK.test(name));
}

export class VirtualClock implements Clock {
  #elapsed = 0;
  #wallAtZero: number;
  #order = 0;
  #busy = 0;
  /** Calls marked busy whose far end holds them on this clock (`callWaits`). */
  #waitingFarEnd = 0;
  readonly #queue: Pending[] = [];

  constructor(options: VirtualClockOptions = {}) {
    this.#wallAtZero = options.startAt ?? Date.UTC(2026, 0, 5, 9, 0, 0);
  }

  now(): number {
    return this.#wallAtZero + this.#elapsed;
  }

  monotonic(): number {
    return this.#elapsed;
  }

  /** Sets the wall clock (as a person or NTP would); monotonic time and timers do not move. */
  setWallClock(at: number): void {
    this.#wallAtZero = at - this.#elapsed;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn((delay, run) => this.timer(delay, run), ms, signal);
  }

  timer(ms: number, run: () => void): Cancel {
    // Run in the context it was set in, as Node's timers are (not that of whoever moves time):
    // what a timer's work knows from its context (the language it speaks) is the same as live.
    const entry: Pending = {
      at: this.#elapsed + timerDelay(ms),
      order: this.#order++,
      run: AsyncLocalStorage.bind(run),
    };
    this.#insert(entry);
    return () => this.#remove(entry);
  }

  every(ms: number, run: () => void): Cancel {
    const period = Math.max(1, timerDelay(ms));
    let cancelled = false;
    let cancelNext: Cancel = () => undefined;
    const schedule = (): void => {
      cancelNext = this.timer(period, () => {
        if (cancelled) return;
        schedule();
        run();
      });
    };
    schedule();
    return () => {
      cancelled = true;
      cancelNext();
    };
  }

  busy(): () => void {
    this.#busy += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#busy -= 1;
    };
  }

  /**
   * A call on the wire waits `ms` at the far end (a simulated service's latency, on this clock):
   * while it waits, it is not real work, so time may jump to its end (or to an earlier timer).
   * `hungUp` aborts when the caller gives the call up (its connection closed): the far end still
   * takes its time, but from then on it holds no call of this process, so it is no longer set
   * against the calls marked busy (one of which may be real work).
   */
  async callWaits(ms: number, hungUp?: AbortSignal): Promise<void> {
    const release = hungUp?.aborted === true ? () => undefined : this.holdsCall();
    hungUp?.addEventListener('abort', release, { once: true });
    try {
      await this.sleep(ms);
    } finally {
      hungUp?.removeEventListener('abort', release);
      release();
    }
  }

  /**
   * The far end holds a call on the wire on this clock until the returned release is called
   * (a simulated line carrying a body's piece at its rate, or a stall): meanwhile that call is
   * not real work, so time may jump. Released when the hold ends or the caller hangs up.
   */
  holdsCall(): () => void {
    let lent = this.#busy > this.#waitingFarEnd;
    if (lent) this.#waitingFarEnd += 1;
    return () => {
      if (!lent) return;
      lent = false;
      this.#waitingFarEnd -= 1;
    };
  }

  /**
   * Calls on the wire doing real work: those marked busy, less those waiting on this clock at the
   * far end. Between a client giving a call up and its far end seeing the connection close (the
   * next turn of the event loop on loopback), the difference can dip below zero: that is no call.
   */
  get #callsOnWire(): number {
    return Math.max(0, this.#busy - this.#waitingFarEnd);
  }

  /** Timers waiting, for a test's own checks ("nothing is scheduled"). */
  get pendingTimers(): number {
    return this.#queue.length;
  }

  /**
   * Moves time forward by `ms`, running every timer that falls due, in order, each once the real
   * work the earlier ones started has finished (calls on the wire answered, files written).
   */
  async advance(ms: number, options: Pick<RunUntilOptions, 'realLimitMs'> = {}): Promise<void> {
    await this.#advanceTo(this.#elapsed + Math.max(0, ms), true, options.realLimitMs ?? 20_000);
  }

  /**
   * Moves time forward by `ms` whatever is on the wire: for a service that does not answer, whose
   * calls hang until a deadline on this clock gives them up.
   */
  async advanceWhileCallsHang(ms: number): Promise<void> {
    await this.#advanceTo(this.#elapsed + Math.max(0, ms), false, 20_000);
  }

  async #advanceTo(target: number, waitForCalls: boolean, realLimitMs: number): Promise<void> {
    for (;;) {
      await this.#settle(waitForCalls);
      if (waitForCalls && this.#callsOnWire > 0) {
        const since = performance.now();
        while (this.#callsOnWire > 0 && performance.now() - since < realLimitMs) await realDelay(1);
        if (this.#callsOnWire > 0)
          throw new Error(
            `${this.#callsOnWire} call(s) stayed on the wire for ${realLimitMs / 1000} s of real time: use advanceWhileCallsHang for a service that does not answer.`,
          );
        continue;
      }
      if (!this.#runNextDue(target)) break;
    }
    this.#elapsed = Math.max(this.#elapsed, target);
    await this.#settle(waitForCalls);
  }

  /**
   * Lets time run until `check` holds: real work first (calls on the wire, files), then a jump to
   * the next timer, and again. Throws when `check` is still false after `withinMs` of virtual
   * time, or when nothing at all moves for `realLimitMs` of real time.
   */
  async runUntil(check: () => boolean | Promise<boolean>, options: RunUntilOptions = {}): Promise<void> {
    const startedAt = this.#elapsed;
    const limit = startedAt + (options.withinMs ?? 7 * 24 * 3_600_000);
    const realLimitMs = options.realLimitMs ?? 20_000;
    let stillSince = performance.now();
    for (;;) {
      await this.#settle(true);
      if (await check()) return;
      if (this.#callsOnWire === 0) {
        if (this.#runNextDue(limit)) {
          stillSince = performance.now();
          continue;
        }
        if (this.#elapsed >= limit) break;
      }
      if (performance.now() - stillSince > realLimitMs) break;
      // Something real is under way (a call, a child process, a timer not on this clock): wait for it.
      await realDelay(1);
    }
    throw new Error(
      `${options.what ?? 'The awaited outcome'} did not come within ${Math.round((this.#elapsed - startedAt) / 1000)} s of virtual time` +
        ` (${this.#callsOnWire} call(s) on the wire, ${this.#queue.length} timer(s) waiting).`,
    );
  }

  /**
   * Lets time run until `work` settles, and returns what it gives (or throws what it throws): a
   * send or a command that waits for backoffs, spacing and holds on this clock.
   */
  async complete<T>(work: Promise<T>, options: RunUntilOptions = {}): Promise<T> {
    let settled = false;
    const watched = work.finally(() => {
      settled = true;
    });
    watched.catch(() => undefined);
    await this.runUntil(() => settled, { what: 'the work', ...options });
    return watched;
  }

  /** Runs until `check` holds and returns the value `read` gives then. */
  async when<T>(
    read: () => T | undefined | Promise<T | undefined>,
    options: RunUntilOptions = {},
  ): Promise<T> {
    let value: T | undefined;
    await this.runUntil(async () => {
      value = await read();
      return value !== undefined;
    }, options);
    return value as T;
  }

  /**
   * Waits (in real time) until promise callbacks have run and no file or socket request is in
   * progress; when `waitForCalls`, also until no call is on the wire.
   */
  async #settle(waitForCalls: boolean): Promise<void> {
    let quietTurns = 0;
    const started = performance.now();
    while (quietTurns < 3) {
      await nextTurn();
      const quiet = !realWorkPending() && (!waitForCalls || this.#callsOnWire === 0);
      quietTurns = quiet ? quietTurns + 1 : 0;
      // A call that waits on something outside this process (or a stuck one) must not spin.
      if (!quiet && performance.now() - started > 5) await realDelay(1);
      if (performance.now() - started > 2_000) return;
    }
  }

  /** Moves time to the next timer and runs it, when one falls due by `limit`; says whether one did. */
  #runNextDue(limit: number): boolean {
    const next = this.#queue[0];
    if (next === undefined || next.at > limit) return false;
    this.#queue.shift();
    this.#elapsed = Math.max(this.#elapsed, next.at);
    next.run();
    return true;
  }

  #insert(entry: Pending): void {
    const queue = this.#queue;
    let low = 0;
    let high = queue.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const other = queue[middle] as Pending;
      if (other.at < entry.at || (other.at === entry.at && other.order < entry.order)) low = middle + 1;
      else high = middle;
    }
    queue.splice(low, 0, entry);
  }

  #remove(entry: Pending): void {
    const index = this.#queue.indexOf(entry);
    if (index !== -1) this.#queue.splice(index, 1);
  }
}
