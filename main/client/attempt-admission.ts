import type { Clock } from '../time/clock';
import type { GatePass, OperationGate, OperationHold } from './operation-gate';
import type { ReadSpacing } from './read-spacing';
import type { OperationName } from '../domain/service-failure';

/** The shared politeness state of one service client. */
export interface Politeness {
  readonly gate: OperationGate;
  readonly spacing: ReadSpacing;
  /** The clock the gate and the spacing run on, and the waits they ask for. */
  readonly clock: Clock;
}

/** The attempt this admission is for. */
export interface AttemptToAdmit {
  readonly operation: OperationName;
  /** Attempts with the same key start at least the read spacing apart. */
  readonly spacingKey?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

export type Admission =
  { readonly kind: 'pass'; readonly pass: GatePass } | ({ readonly kind: 'held' } & OperationHold);

/** Waits for `answered`, at most `ms`; the signal's abort rejects with its reason. */
async function waitForAnswer(
  clock: Clock,
  answered: Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const timer = new AbortController();
  const sleeping = clock.sleep(ms, signal ? AbortSignal.any([signal, timer.signal]) : timer.signal);
  try {
    await Promise.race([answered, sleeping]);
  } finally {
    timer.abort();
    // The sleep rejects once cut short; only the caller's abort matters, and it is rethrown below.
    sleeping.catch(() => undefined);
  }
  signal?.throwIfAborted();
}

/**
 * Waits until an attempt may leave: no Retry-After hold on its operation, no first attempt
 * after a pause still on its way alone, and the read spacing of its key respected. The last
 * checks and the records they make (the spacing's start, the gate's pass) happen with no await
 * in between, so two callers cannot both slip through. Returns the hold instead of waiting when
 * it is longer than `maxHoldMs`. The attempt's abort rejects with its reason.
 */
export async function admitAttempt(
  politeness: Politeness,
  attempt: AttemptToAdmit,
  maxHoldMs: number,
): Promise<Admission> {
  const { gate, spacing, clock } = politeness;
  for (;;) {
    const check = gate.check(attempt.operation);
    if (check.kind === 'held') {
      if (check.remainingMs > maxHoldMs) return check;
      await clock.sleep(check.remainingMs, attempt.signal);
      continue;
    }
    if (check.kind === 'probing') {
      await waitForAnswer(clock, check.answered, check.maxWaitMs, attempt.signal);
      continue;
    }
    if (attempt.spacingKey !== undefined) {
      const waitMs = spacing.remainingMs(attempt.spacingKey);
      if (waitMs > 0) {
        await clock.sleep(waitMs, attempt.signal);
        continue;
      }
    }
    attempt.signal?.throwIfAborted();
    if (attempt.spacingKey !== undefined) spacing.markStarted(attempt.spacingKey);
    return { kind: 'pass', pass: gate.pass(attempt.operation) };
  }
}
