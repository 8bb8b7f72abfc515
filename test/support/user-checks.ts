/**
 * Plays the user who answers "needs your check" (README "Sending exactly once") in the suites that stage
 * faults, crashes and power cuts: looks the document's reference up at the service, links the
 * request it finds, or sends the document as a new request when the service has none. A
 * reference the service holds twice is a duplicate the app let through, and fails the test.
 */
import { expect } from 'vitest';
import { phaseOf } from '../../main/domain/batch-state';
import type { SendEngine } from '../../main/engine/send-engine';
import type { BatchStore } from '../../main/store/batch-store';
import type { Simulator } from '../../simulator/simulator';

export interface CheckAnswers {
  readonly linked: number;
  readonly sentAsNew: number;
}

/** Answers every document of the batch that needs a check; returns how each was answered. */
export async function answerChecks(
  store: BatchStore,
  engine: SendEngine,
  sim: Simulator,
  batchId: string,
): Promise<CheckAnswers> {
  let linked = 0;
  let sentAsNew = 0;
  for (const document of store.get(batchId)?.documents ?? []) {
    if (phaseOf(document) !== 'needs_check') continue;
    const reference = document.draft.externalReference;
    const held = sim.state.requests().filter((request) => request.externalReference === reference);
    expect(held.length, `requests the service holds for ${reference}`).toBeLessThanOrEqual(1);
    const [request] = held;
    if (request) {
      let outcome = await engine.linkRequest(batchId, document.draft.id, request.id);
      // The service could not be reached to check the id (a storm): the user tries again, as the
      // message asks. No pause of the test's own: each read already waits out the service's
      // Retry-After and backs off between its attempts (the client's politeness), so a try is
      // never sooner than the service allows.
      for (
        let tries = 1;
        !outcome.ok && outcome.error.refusal === 'service_unreachable' && tries < 10;
        tries += 1
      ) {
        outcome = await engine.linkRequest(batchId, document.draft.id, request.id);
      }
      // A service whose reads do not show the reference: the user saw at the service that it
      // is this document's request, and confirms it.
      if (!outcome.ok && outcome.error.refusal === 'needs_confirmation')
        outcome = await engine.linkRequest(batchId, document.draft.id, request.id, { confirmed: true });
      expect(outcome).toEqual({ ok: true });
      linked += 1;
    } else {
      expect(await engine.sendAsNew(batchId, document.draft.id)).toEqual({ ok: true });
      sentAsNew += 1;
    }
  }
  return { linked, sentAsNew };
}
