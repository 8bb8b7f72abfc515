import type { ServiceErrorCode } from '../../shared/service/error-codes';
import { MAX_OPERATION_HOLD_MS } from '../domain/service-failure';
import { systemClock, type Clock } from '../time/clock';
import type { OperationName } from '../domain/service-failure';

/** Why an operation is held back, and for how much longer. */
export interface OperationHold {
  /** Milliseconds until the operation may be attempted again. */
  readonly remainingMs: number;
  /** The code of the answer that asked for the wait (`rate_limited`, `upstream_unavailable`…). */
  readonly code: ServiceErrorCode;
}

/** What an attempt of an operation must do before it leaves. */
export type GateCheck =
  | { readonly kind: 'go' }
  | ({ readonly kind: 'held' } & OperationHold)
  /** The first attempt after a pause is on its way alone: wait for its answer, at most `maxWaitMs`. */
  | { readonly kind: 'probing'; readonly answered: Promise<void>; readonly maxWaitMs: number };

/** An attempt that passed the gate; `finish` must be called once it has its outcome. */
export interface GatePass {
  /**
   * Called once the attempt is over: `answered` when the service answered it (after any hold
   * that answer imposed is in place), false when it learned nothing (network failure, abort).
   */
  finish(answered: boolean): void;
}

/**
 * How long the first attempt after a pause goes alone before the others follow it anyway: a
 * refusal comes quickly, so an attempt still on its way after this long was taken in.
 */
export const PROBE_ALONE_MS = 1_000;

interface OperationState {
  /** Monotonic time until which no attempt may start (0: none). */
  until: number;
  /** The code of the answer that set `until` (none before the first hold). */
  code: ServiceErrorCode | undefined;
  /** A pause ended and no attempt since has been answered: the next one goes alone. */
  probeNeeded: boolean;
  probe: { startedAt: number; answered: Promise<void>; release: () => void } | undefined;
}

/**
 * Retry-After for everyone (README "Answers the spec does not pin down"): once the service asked
 * for a pause of one operation (a 429, or a 503 with Retry-After), no attempt of that operation
 * may start before the instant it gave, whichever caller makes it. When the pause ends, one
 * attempt goes first, alone, and the others wait for its answer (at most `PROBE_ALONE_MS`):
 * if the service asks for another pause, they keep waiting instead of arriving all at once.
 *
 * One gate per service client, shared by every caller of that client. Holds only ever grow: a
 * shorter answer that arrives later never shortens a longer pause already asked for. Time runs
 * on a monotonic clock, so a wall-clock jump neither lifts nor lengthens a hold.
 */
export class OperationGate {
  readonly #states = new Map<OperationName, OperationState>();
  readonly #clock: Clock;

  constructor(clock: Clock = systemClock) {
    this.#clock = clock;
  }

  /**
   * Holds `operation` back for `forMs` from now (at most a day), unless it is already held
   * longer. Returns how long the hold now lasts from now when this call lengthened it, and
   * undefined when it changed nothing (a longer hold was already in place, or `forMs` ≤ 0).
   */
  hold(operation: OperationName, forMs: number, code: ServiceErrorCode): number | undefined {
    if (!(forMs > 0)) return undefined;
    const heldMs = Math.min(forMs, MAX_OPERATION_HOLD_MS);
    const until = this.#clock.monotonic() + heldMs;
    const state = this.#stateOf(operation);
    state.probeNeeded = true;
    if (state.until >= until) return undefined;
    state.until = until;
    state.code = code;
    return heldMs;
  }

  /** How long `operation` is still held back, or undefined when it may be attempted now. */
  remaining(operation: OperationName): OperationHold | undefined {
    const state = this.#states.get(operation);
    if (state?.code === undefined) return undefined;
    const remainingMs = state.until - this.#clock.monotonic();
    return remainingMs > 0 ? { remainingMs: Math.ceil(remainingMs), code: state.code } : undefined;
  }

  /** Whether an attempt of `operation` may start now; changes nothing. */
  check(operation: OperationName): GateCheck {
    const held = this.remaining(operation);
    if (held) return { kind: 'held', ...held };
    const probe = this.#states.get(operation)?.probe;
    if (probe) {
      const maxWaitMs = Math.ceil(probe.startedAt + PROBE_ALONE_MS - this.#clock.monotonic());
      if (maxWaitMs > 0) return { kind: 'probing', answered: probe.answered, maxWaitMs };
    }
    return { kind: 'go' };
  }

  /**
   * Lets an attempt of `operation` through: call it right after `check` said `go`, with no
   * await in between. The first attempt after a pause becomes the one that goes alone.
   */
  pass(operation: OperationName): GatePass {
    const state = this.#states.get(operation);
    if (!state?.probeNeeded) return { finish: () => undefined };
    state.probeNeeded = false;
    let release = (): void => undefined;
    const answered = new Promise<void>((resolve) => (release = resolve));
    const probe = { startedAt: this.#clock.monotonic(), answered, release };
    state.probe = probe;
    return {
      finish: (wasAnswered) => {
        if (state.probe === probe) state.probe = undefined;
        // Nothing learned: the next attempt goes alone in its place.
        if (!wasAnswered) state.probeNeeded = true;
        release();
      },
    };
  }

  #stateOf(operation: OperationName): OperationState {
    let state = this.#states.get(operation);
    if (!state) {
      state = { until: 0, code: undefined, probeNeeded: false, probe: undefined };
      this.#states.set(operation, state);
    }
    return state;
  }
}
