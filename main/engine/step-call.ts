/**
 * One call of a step, in a call slot, turned into the answer the step machine reads: applied,
 * failed, or interrupted by a stop of the run, saying whether an attempt may have been applied.
 * While an attempt is on the wire it is watched for an answer that is late (slow-calls.ts).
 */
import type { CallOptions } from '../client/service-client';
import type { ServiceResult } from '../domain/service-failure';
import type { Answer } from '../domain/step-machine';
import type { CallSlots } from './call-slots';
import type { SendRun } from './send-run';

/**
 * What a call tells the engine of its attempts, to know whether one may have been applied, and
 * the run's departures signal: after a pause or a quit, nothing more leaves.
 */
export type AttemptTracking = Required<Pick<CallOptions, 'onAttempt' | 'onAttemptSettled' | 'departures'>>;

/**
 * Runs one call in a call slot and turns its result into an answer. A stop of the run while
 * the call waits or is in flight becomes `interrupted`, saying whether an attempt may have
 * been applied: one is on the wire, or one that left got no answer proving it was not (a
 * Pause during the backoff after a 503 is not a lost answer). `alive` tells the slow watch the
 * call shows life (bytes of an upload handed over, which may take `wireMs` to cross the line).
 */
export async function stepCall<T>(
  run: SendRun,
  call: (attempts: AttemptTracking, alive: (wireMs?: number) => void) => Promise<ServiceResult<T>>,
  slots: CallSlots = run.slots,
): Promise<Answer<T>> {
  const signal = run.stopping;
  let onTheWire = false;
  let mayHaveApplied = false;
  /** The attempt on the wire, watched for an answer that is late. */
  let watched: number | undefined;
  /** The attempt on the wire ended, with the service's answer or without one. */
  const settle = (answered: boolean) => {
    if (watched !== undefined) run.slow.end(watched, answered);
    watched = undefined;
  };
  const attempts: AttemptTracking = {
    departures: run.departures.signal,
    onAttempt: () => {
      onTheWire = true;
      settle(false);
      watched = run.slow.begin();
    },
    onAttemptSettled: (outcome, answered) => {
      onTheWire = false;
      settle(answered);
      if (outcome === 'maybe_applied') mayHaveApplied = true;
    },
  };
  const alive = (wireMs?: number) => {
    if (watched !== undefined) run.slow.alive(watched, wireMs);
  };
  const left = (): boolean => onTheWire || mayHaveApplied;
  try {
    const result = await slots.run(signal, () => call(attempts, alive));
    return result.ok ? { kind: 'applied', value: result.value } : { kind: 'failed', failure: result.error };
  } catch (error) {
    if (signal.aborted) return { kind: 'interrupted', left: left() };
    throw error;
  } finally {
    // Every attempt was settled already; one still watched here got no answer (stopped on its way).
    settle(false);
  }
}
