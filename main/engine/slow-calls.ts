/**
 * Whether the service keeps the calls of a run waiting. A service that stops answering, with
 * no refusal, leaves every call on the wire until its timeout: progress stands still with no
 * reason given. A call with no sign of life (an answer, bytes of an upload going out) for
 * longer than a normal answer takes makes the run "slow". It is slow no more once the service
 * answers again (any answer: a refusal is an answer) and no call on the wire is that late, or
 * once the run ends. A late call that ends with no answer (its deadline struck, its connection
 * was lost) leaves the run slow: the service is as silent as it was, and the next attempt,
 * after a wait or at once, would otherwise be said to be on time for another two seconds each
 * time (the banner went away at every timeout while the service stayed frozen). An upload's
 * bytes may still be on their way long after the app handed them over: such a call is not late
 * before the time they may take on a slow line has passed (`alive`'s `wireMs`).
 */

import { systemClock, type Cancel, type Clock } from '../time/clock';

/** A normal answer comes well within this (ms); a call silent for longer is said to be slow. */
export const SLOW_CALL_MS = 2_000;

/** How often outstanding calls are looked at: the slowness shows within this of `afterMs`. */
const LOOK_EVERY_MS = 250;

export class SlowCalls {
  readonly #afterMs: number;
  readonly #onChange: (slow: boolean) => void;
  readonly #clock: Clock;
  /** Each outstanding call's start, and since when it owes an answer (its last sign of life, or later). */
  readonly #calls = new Map<number, { readonly began: number; readonly owedSince: number }>();
  #next = 0;
  /** A late call ended with no answer, and none has come since: the service is still silent. */
  #silent = false;
  /** When the service last answered a call (monotonic). */
  #answeredAt = Number.NEGATIVE_INFINITY;
  #slow = false;
  #stopLooking: Cancel | undefined;

  constructor(onChange: (slow: boolean) => void, options: { afterMs?: number; clock?: Clock } = {}) {
    this.#onChange = onChange;
    this.#afterMs = options.afterMs ?? SLOW_CALL_MS;
    this.#clock = options.clock ?? systemClock;
  }

  /** A call went on the wire; returns its handle. */
  begin(): number {
    const call = (this.#next += 1);
    const now = this.#clock.monotonic();
    this.#calls.set(call, { began: now, owedSince: now });
    this.#stopLooking ??= this.#clock.every(LOOK_EVERY_MS, () => this.#look(), true);
    return call;
  }

  /**
   * The call showed life: bytes of its upload were handed over. `wireMs`: how long, from the
   * call's start, the bytes handed over so far may take to reach the service; no answer is owed
   * before then.
   */
  alive(call: number, wireMs = 0): void {
    const watched = this.#calls.get(call);
    if (watched) {
      const owedSince = Math.max(this.#clock.monotonic(), watched.began + wireMs);
      this.#calls.set(call, { began: watched.began, owedSince });
    }
    this.#look();
  }

  /**
   * The call ended: with the service's answer (`answered`), or without one (its deadline struck,
   * its connection was lost or refused, the run stopped it). Default: answered.
   */
  end(call: number, answered = true): void {
    const watched = this.#calls.get(call);
    const now = this.#clock.monotonic();
    this.#calls.delete(call);
    if (answered) {
      this.#silent = false;
      this.#answeredAt = now;
    } else if (watched && this.#late(watched.owedSince, now) && this.#answeredAt <= watched.began) {
      // Nothing has been answered since it left: the silence goes on (an older call given up
      // after answers came again says nothing of the service now).
      this.#silent = true;
    }
    this.#look();
  }

  /** Calls on the wire now, waiting for their answer. */
  get pending(): number {
    return this.#calls.size;
  }

  /** The run ended: no call of it waits any more. */
  close(): void {
    this.#calls.clear();
    this.#silent = false;
    this.#look();
  }

  #late(owedSince: number, now: number): boolean {
    return now - owedSince >= this.#afterMs;
  }

  #look(): void {
    const now = this.#clock.monotonic();
    let slow = this.#silent;
    for (const { owedSince } of this.#calls.values()) if (this.#late(owedSince, now)) slow = true;
    if (this.#calls.size === 0 && this.#stopLooking) {
      this.#stopLooking();
      this.#stopLooking = undefined;
    }
    if (slow !== this.#slow) {
      this.#slow = slow;
      this.#onChange(slow);
    }
  }
}
