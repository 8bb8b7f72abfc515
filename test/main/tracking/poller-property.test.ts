import { clockSteppedBy } from '../../support/clocks';
import { describe, expect, it } from 'vitest';
import { applyBatchEvent, emptyBatch } from '../../../main/domain/apply-batch-event';
import type { BatchState } from '../../../main/domain/batch-state';
import type { BatchEvent } from '../../../main/domain/batch-events';
import { needsTracking } from '../../../main/domain/document-class';
import type { BatchStore } from '../../../main/store/batch-store';
import type { ServiceClient } from '../../../main/client/service-client';
import { StatusPoller } from '../../../main/tracking/status-poller';
import type { PollSchedule } from '../../../main/tracking/poll-schedule';
import { createSeededRandom } from '../../../simulator/seeded-random';

const SCHEDULE: PollSchedule = {
  attentionMs: 1_000,
  attentionGraceMs: 2_000,
  byAge: [[3_600_000, 10_000]],
  oldestMs: 10_000,
  jitter: 0.2,
  minimumMs: 0,
  unrecognized: { firstMs: 10_000, longestMs: 10_000 },
};
const T0 = 1_700_000_000_000;

function draft(id: string) {
  return { id, externalReference: `ref-${id}`, extraParticipants: [], recipients: [], options: {} } as never;
}

async function runSequence(seed: number, opsPerStep: number): Promise<string[]> {
  const rnd = createSeededRandom(seed);
  const pick = <T>(list: readonly T[]): T | undefined => list[Math.floor(rnd() * list.length)];
  let t = T0;
  let seq = 0;
  let counter = 0;
  const batches = new Map<string, BatchState>();
  const apply = (id: string, ...events: BatchEvent[]) => {
    const before = batches.get(id);
    if (!before) return;
    batches.set(
      id,
      events.reduce(
        (s, event) => applyBatchEvent(s, { seq: ++seq, at: new Date(t).toISOString(), event } as never),
        before,
      ),
    );
  };
  const serviceFinal = new Set<string>();
  const reads = new Map<string, number>();
  const store = {
    loaded: () => [...batches.values()],
    get: (id: string) => batches.get(id),
    record: async (id: string, events: BatchEvent[]) => {
      await Promise.resolve();
      apply(id, ...events);
      return batches.get(id);
    },
    subscribe: () => () => undefined,
  } as unknown as BatchStore;
  const client = {
    getSigningRequest: async (requestId: string) => {
      reads.set(requestId, (reads.get(requestId) ?? 0) + 1);
      await new Promise((r) => setImmediate(r));
      return serviceFinal.has(requestId)
        ? {
            ok: true,
            value: {
              id: requestId,
              status: 'completed',
              document: { status: 'finalized' },
              evidence: { ready: true },
              finalized_at: new Date(t).toISOString(),
            },
          }
        : {
            ok: true,
            value: {
              id: requestId,
              status: 'sent',
              document: { status: 'ready' },
              opened_at: rnd() < 0.3 ? new Date(t).toISOString() : undefined,
            },
          };
    },
  } as unknown as ServiceClient;
  const poller = new StatusPoller({
    store,
    client,
    schedule: SCHEDULE,
    readsPerMinute: 6_000,
    random: rnd,
    clock: clockSteppedBy(
      () => t,
      async (ms) => {
        t += Math.max(ms, 1);
        await new Promise((resolve) => setImmediate(resolve));
      },
    ),
  });
  const newBatch = () => {
    const id = `b${++counter}`;
    batches.set(id, emptyBatch(id));
    apply(id, { type: 'batch_created', batchId: id, name: id, defaults: { defaultRecipients: [] } } as never);
  };
  newBatch();
  newBatch();
  const ops: (() => void)[] = [
    () => newBatch(),
    () => {
      const b = pick([...batches.keys()]);
      if (b) apply(b, { type: 'document_added', document: draft(`d${++counter}`) } as never);
    },
    () => {
      const b = pick([...batches.keys()]);
      if (b) apply(b, { type: 'document_added', document: draft(`d${++counter}`) } as never);
    },
    () => {
      // remove a draft (never a sent one, as the app allows)
      const b = pick([...batches.keys()]);
      const d = b && pick(batches.get(b)!.documents.filter((doc) => !doc.send.requestId));
      if (b && d) apply(b, { type: 'document_removed', documentId: d.draft.id } as never);
    },
    () => {
      const b = pick([...batches.keys()]);
      const d = b && pick(batches.get(b)!.documents.filter((doc) => !doc.send.requestId));
      if (b && d)
        apply(
          b,
          { type: 'send_requested', documentIds: [d.draft.id] } as never,
          { type: 'request_created', documentId: d.draft.id, requestId: `r-${d.draft.id}` } as never,
          { type: 'request_prepared', documentId: d.draft.id, revision: 1, sha256: 'x' } as never,
        );
    },
    () => {
      const b = pick([...batches.keys()]);
      const d = b && pick(batches.get(b)!.documents.filter((doc) => doc.send.requestId));
      if (d && rnd() < 0.3) serviceFinal.add(d.send.requestId!);
    },
    () => {
      const b = pick([...batches.keys()]);
      if (b && batches.size > 1 && rnd() < 0.2) batches.delete(b);
    },
    () => {
      const b = pick([...batches.keys()]);
      if (b) apply(b, { type: 'batch_renamed', name: `n${++counter}` } as never);
    },
    () => poller.refreshNow(rnd() < 0.5 ? pick([...batches.keys()]) : undefined),
    () => {
      const b = pick([...batches.keys()]);
      const d = b && pick(batches.get(b)!.documents);
      if (!b || !d) return;
      if (rnd() < 0.5) poller.watch(b, d.draft.id);
      else poller.unwatch(b, d.draft.id, 500);
    },
  ];
  poller.start();
  for (let step = 0; step < 60; step++) {
    for (let k = 0; k < opsPerStep; k++) pick(ops)!();
    const turns = Math.floor(rnd() * 6);
    for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
  }
  // Quiet: nothing changes any more. Every request still waiting must be read within a few intervals.
  const before = new Map(reads);
  const quietStart = t;
  for (let i = 0; i < 20_000 && t < quietStart + 5 * SCHEDULE.oldestMs; i++)
    await new Promise((r) => setImmediate(r));
  poller.stop();
  const lost: string[] = [];
  for (const batch of batches.values())
    for (const doc of batch.documents)
      if (
        needsTracking(doc) &&
        !serviceFinal.has(doc.send.requestId!) &&
        (reads.get(doc.send.requestId!) ?? 0) <= (before.get(doc.send.requestId!) ?? 0)
      )
        lost.push(`seed ${seed}: ${batch.id}/${doc.draft.id} never read in ${t - quietStart} ms of quiet`);
  return lost;
}

describe('poller: every tracked request stays due (against the scan semantics)', () => {
  for (const opsPerStep of [1, 3])
    it(`random sequences, ${opsPerStep} change(s) between the poller's looks`, async () => {
      const lost: string[] = [];
      for (let seed = 1; seed <= Number(process.env.SEEDS ?? 150); seed++)
        lost.push(...(await runSequence(seed * 7 + opsPerStep, opsPerStep)));
      expect(lost.slice(0, 10)).toEqual([]);
    }, 120_000);
});
