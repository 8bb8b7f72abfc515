import { describe, expect, it } from 'vitest';
import { applyBatchEvent, emptyBatch } from '../../../main/domain/apply-batch-event';
import type { BatchState } from '../../../main/domain/batch-state';
import type { BatchEvent } from '../../../main/domain/batch-events';
import type { BatchStore } from '../../../main/store/batch-store';
import type { ServiceClient } from '../../../main/client/service-client';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { StatusPoller } from '../../../main/tracking/status-poller';
import type { PollSchedule } from '../../../main/tracking/poll-schedule';

const SCHEDULE: PollSchedule = {
  attentionMs: 1_000,
  attentionGraceMs: 1_000,
  byAge: [[3_600_000, 10_000]],
  oldestMs: 10_000,
  jitter: 0,
  minimumMs: 0,
  unrecognized: { firstMs: 10_000, longestMs: 10_000 },
};

let seq = 0;
function apply(state: BatchState, ...events: BatchEvent[]): BatchState {
  return events.reduce(
    (s, event) =>
      applyBatchEvent(s, { seq: ++seq, at: new Date(1_700_000_000_000).toISOString(), event } as never),
    state,
  );
}
const draft = (id: string) =>
  ({ id, externalReference: `ref-${id}`, extraParticipants: [], recipients: [], options: {} }) as never;
const sent = (id: string): BatchEvent[] =>
  [
    { type: 'send_requested', documentIds: [id] },
    { type: 'request_created', documentId: id, requestId: `req-${id}` },
    { type: 'request_prepared', documentId: id, revision: 1, sha256: 'x' },
  ] as never;

describe('poller: documents shifting in a batch of unchanged length', () => {
  it('keeps reading a waiting request after a draft before it is removed and another added', async () => {
    let state = apply(
      emptyBatch('b1'),
      { type: 'batch_created', batchId: 'b1', name: 'B', defaults: { defaultRecipients: [] } } as never,
      { type: 'document_added', document: draft('A') },
      { type: 'document_added', document: draft('B') },
      { type: 'document_added', document: draft('C') },
      ...sent('A'),
      ...sent('C'),
    );
    const store = {
      loaded: () => [state],
      get: () => state,
      record: async (_: string, events: BatchEvent[]) => (state = apply(state, ...events)),
      subscribe: () => () => undefined,
    } as unknown as BatchStore;
    const reads = new Map<string, number>();
    const client = {
      getSigningRequest: async (requestId: string) => {
        reads.set(requestId, (reads.get(requestId) ?? 0) + 1);
        return { ok: true, value: { id: requestId, status: 'sent', document: { status: 'ready' } } };
      },
    } as unknown as ServiceClient;
    const clock = new VirtualClock({ startAt: 1_700_000_000_000 });
    const poller = new StatusPoller({
      store,
      client,
      schedule: SCHEDULE,
      readsPerMinute: 6_000,
      random: () => 0.5,
      clock,
    });
    poller.start();
    // Within an hour of virtual time, or it fails saying what did not come.
    const until = (what: string, pred: () => boolean) => clock.runUntil(pred, { what, withinMs: 3_600_000 });
    await until(
      'three reads of A and of C',
      () => (reads.get('req-A') ?? 0) >= 3 && (reads.get('req-C') ?? 0) >= 3,
    );
    expect(reads.get('req-C')).toBeGreaterThanOrEqual(3);
    // The person removes draft B and adds draft D (between two of the poller's looks).
    state = apply(state, { type: 'document_removed', documentId: 'B' } as never, {
      type: 'document_added',
      document: draft('D'),
    });
    const aBefore = reads.get('req-A') ?? 0;
    const cBefore = reads.get('req-C') ?? 0;
    await until('ten more reads of A', () => (reads.get('req-A') ?? 0) >= aBefore + 10);
    // "Refresh now" on the batch, as the person would when the row looks stale.
    const due = poller.refreshNow('b1');
    // Both waiting requests, A and C, are due again.
    expect(due).toBe(2);
    await until('twenty more reads of A', () => (reads.get('req-A') ?? 0) >= aBefore + 20);
    poller.stop();
    expect(reads.get('req-A')).toBeGreaterThanOrEqual(aBefore + 20);
    // C is still waiting for signatures: it must be read as often as A.
    expect(reads.get('req-C') ?? 0).toBeGreaterThanOrEqual(cBefore + 10);
  });
});
