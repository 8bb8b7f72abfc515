import { describe, expect, it } from 'vitest';
import { phaseOf } from '../../../main/domain/batch-state';
import { describeVariant, variantsForSuite, type ServiceVariant } from '../../../simulator/variants';
import { makeBatch } from '../../support/batch-harness';
import { makeTempFolder } from '../../support/pdf-files';
import { answerChecks } from '../../support/user-checks';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

/**
 * The send engine through a fault storm, against every service variant: 503s, 429s with
 * Retry-After, connections dropped before and after the service acted, a gateway's 404s,
 * latency spikes and short-lived tokens. No document may fail for a passing reason; documents
 * whose creation's outcome could not be known are answered as a user would; in the end every
 * document has exactly one prepared request, and the service saw no breach of its protocol.
 * Each storm runs on a virtual clock of its own: Retry-After, backoff, latency spikes and token
 * lifetimes pass without real waiting.
 */
const DOCUMENTS = 8;
const variants = variantsForSuite();

describe.concurrent.each(
  variants.map((variant, index) => [describeVariant(variant), variant, index] as const),
)('a fault storm against %s', (_description, variant: ServiceVariant, index: number) => {
  it(`sends every document exactly once (seed ${100 + index})`, async () => {
    const seed = 100 + index;
    const { sim, clock } = await startVirtualSimulator({
      seed,
      variant,
      // Tokens expire during the run; a service that does not say when answers 401 instead.
      tokenTtlSeconds: variant.token.reportsExpiresIn ? 2 : 6,
    });
    const files = makeTempFolder('desk-storm-');
    const desk = await openVirtualDesk(sim, clock, files.file('data'));
    try {
      const batch = await makeBatch(desk, files, DOCUMENTS);
      sim.faults.set({
        rate503: 0.15,
        rate429: 0.03,
        retryAfterSeconds: 1,
        dropBeforeRate: 0.04,
        dropAfterRate: 0.04,
        gateway404Rate: 0.02,
        latencyMs: 5,
        latencySpikeRate: 0.05,
        latencySpikeMs: 300,
      });
      // Every variant meets every kind of fault at least once, whatever the random draws.
      sim.faults.enqueue(
        { kind: 'dropBefore', pathPattern: '^/api/v1/signing-requests$' },
        { kind: 'dropAfter', pathPattern: '^/api/v1/signing-requests$' },
        { kind: 'gateway404', pathPattern: '/participants$' },
        { kind: '429', retryAfterSeconds: 1, pathPattern: '/prepare$' },
      );
      const failures: string[] = [];
      let expired = false;
      desk.engine.subscribe((event) => {
        if (event.type === 'item-failed') failures.push(`${event.externalReference}: ${event.error.code}`);
        // Halfway, every token the service gave has expired by its clock, whatever the storm's
        // length: the rest of the batch needs new ones.
        if (!expired && event.type === 'batch-progress' && event.counts.prepared >= DOCUMENTS / 2) {
          expired = true;
          sim.clock.advance(7_000);
        }
      });
      let answered = { linked: 0, sentAsNew: 0 };
      for (let round = 0; round < 4; round += 1) {
        const summary = await clock.complete(desk.engine.send(batch.id));
        expect(summary.state).toBe('finished');
        if (summary.needsCheck === 0) break;
        const answers = await clock.complete(answerChecks(desk.store, desk.engine, sim, batch.id));
        answered = {
          linked: answered.linked + answers.linked,
          sentAsNew: answered.sentAsNew + answers.sentAsNew,
        };
      }
      expect(failures, 'no document fails for a passing reason').toEqual([]);
      const documents = desk.store.get(batch.id)!.documents;
      expect(documents.map(phaseOf)).toEqual(Array(DOCUMENTS).fill('prepared'));
      const counts = sim.state.countByExternalReference();
      for (const document of documents) {
        expect(counts[document.draft.externalReference]).toBe(1);
        const remote = sim.state.requests().find((request) => request.id === document.send.requestId);
        expect(remote?.status).toBe('prepared');
        expect(remote?.participants.map((participant) => participant.email).sort()).toEqual(
          [...document.draft.recipients, ...document.draft.extraParticipants].map((p) => p.email).sort(),
        );
      }
      const faults = new Set(sim.state.calls().map((call) => call.fault));
      expect([...faults]).toEqual(
        expect.arrayContaining(['503', '429', 'dropBefore', 'dropAfter', 'gateway404']),
      );
      expect(sim.state.violations()).toEqual([]);
      // The tokens did expire on the way: more than one was needed.
      const tokens = sim.state.calls().filter((call) => call.operation === 'token' && call.status === 200);
      expect(tokens.length, 'tokens issued during the storm').toBeGreaterThan(1);
      console.log(
        `fault storm, ${variant.name} (seed ${seed}): ${Math.round(clock.monotonic() / 1000)} s virtual, ${tokens.length} tokens, ${sim.state.calls().filter((call) => call.fault).length} faults, checks answered: ${answered.linked} linked, ${answered.sentAsNew} sent anew; 0 duplicates`,
      );
    } finally {
      await clock.complete(desk.close());
      await sim.close();
      files.remove();
    }
  }, 120_000);
});
