/**
 * Whether the service keeps the calls of a run waiting. A service that stops answering, with
 * no refusal, leaves every call on the wire until its timeout: progress stands still with no
 * reason given. A call with no sign of life (an answer, bytes of an upload going out) for
 * longer than a normal answer takes makes the run "slow"; it is slow no more once no call is
 * that late (answers come again, or the calls ended in a wait the engine states itself). An
 * upload's bytes may still be on their way long after the app handed them over: such a call is
 * not late before the time they may take on a slow line has passed (`alive`'s `wireMs`).
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

  /** The call got its answer, or ended. */
  end(call: number): void {
    this.#calls.delete(call);
    this.#look();
  }

  /** Calls on the wire now, waiting for their answer. */
  get pending(): number {
    return this.#calls.size;
  }

  /** The run ended: no call of it waits any more. */
  close(): void {
    this.#calls.clear();
    this.#look();
  }

  #look(): void {
    const now = this.#clock.monotonic();
    let slow = false;
    for (const { owedSince } of this.#calls.values()) if (now - owedSince >= this.#afterMs) slow = true;
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
