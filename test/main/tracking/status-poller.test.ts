import { classOf } from '../../../main/domain/document-class';
import { READ_SPACING_MS } from '../../../main/client/read-spacing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Desk } from '../../../main/app/desk-core';
import {
  StatusPoller,
  type PollerEvent,
  type StatusPollerOptions,
} from '../../../main/tracking/status-poller';
import type { PollSchedule } from '../../../main/tracking/poll-schedule';
import { nextInterval, DEFAULT_POLL_SCHEDULE } from '../../../main/tracking/poll-schedule';
import { ReadBudget } from '../../../main/tracking/read-budget';
import { createJsonLogger } from '../../../main/base/log';
import type { Simulator } from '../../../simulator/simulator';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { batchOfPdfs, makeBatch } from '../../support/batch-harness';
import { makeTestClient } from '../../support/client-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import { startScriptedServer, tokenWithoutLifetime } from '../../support/scripted-server';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

/** A schedule compressed for tests: the same shape, in tens of milliseconds. */
const FAST: PollSchedule = {
  attentionMs: 40,
  attentionGraceMs: 200,
  byAge: [[60_000, 150]],
  oldestMs: 300,
  jitter: 0.2,
  minimumMs: 0,
  unrecognized: { firstMs: 600, longestMs: 2_400 },
};

let sim: Simulator;
let clock: VirtualClock;
let files: TempFolder;
let desk: Desk;
let poller: StatusPoller | undefined;

beforeEach(async () => {
  ({ sim, clock } = await startVirtualSimulator({ seed: 3, evidenceDelayMs: 300 }));
  files = makeTempFolder();
  desk = await openVirtualDesk(sim, clock, files.file('data'));
});
afterEach(async () => {
  poller?.stop();
  await desk.close();
  await sim.close();
  files.remove();
});

/** Starts a poller on the test desk (fast schedule, generous budget, unless overridden); returns its events. */
function startPoller(overrides: Partial<StatusPollerOptions> = {}): PollerEvent[] {
  poller = new StatusPoller({
    store: desk.store,
    client: desk.client,
    schedule: FAST,
    readsPerMinute: 6_000,
    // The desk's clock, which stamps its journal (prepared at…).
    clock,
    ...overrides,
  });
  const events: PollerEvent[] = [];
  poller.subscribe((event) => events.push(event));
  poller.start();
  return events;
}

function readsOf(): number {
  return sim.state.calls().filter((call) => call.operation === 'readSigningRequest').length;
}

/** Sends a batch, virtual time running until the send has ended. */
function sent(batchId: string): Promise<unknown> {
  return clock.complete(desk.engine.send(batchId));
}

/** Lets virtual time run until the poller has said what `predicate` looks for. */
function until(events: PollerEvent[], predicate: (event: PollerEvent) => boolean): Promise<void> {
  return clock.runUntil(() => events.some(predicate), { what: 'the poller event' });
}

describe('status poller', () => {
  it('keeps tracking after a batch is deleted while one of its reads is on its way (its answer cannot be stored)', async () => {
    const doomed = await makeBatch(desk, files, 1, 'Doomed');
    // A contract of its own: a second REF-1 would be held back as already sent.
    const kept = await batchOfPdfs(desk, [await writePdf(files, 'Kept 1.pdf')], 'Kept', 'KEPT');
    await sent(doomed.id);
    await sent(kept.id);
    let keptTracked = false;
    sim.faults.set({ latencyMs: 600 });
    const events = startPoller({ tracks: (batch) => batch.id === doomed.id || keptTracked });
    const readsBefore = readsOf();
    await clock.runUntil(() => sim.state.callsUnderWay() > 0, { what: 'the read of Doomed on its way' });
    await desk.store.delete(doomed.id);
    // Its answer comes back: nowhere to store it.
    await clock.runUntil(() => readsOf() > readsBefore, { what: 'the answer to the read of Doomed' });
    sim.faults.set({ latencyMs: 0 });
    keptTracked = true;
    poller!.notifyChanged();
    const keptRequest = desk.store.get(kept.id)?.documents[0]?.send.requestId;
    sim.complete(keptRequest!);
    await until(events, (event) => event.type === 'completed' && event.batchId === kept.id);
    expect(poller!.running).toBe(true);
  });

  it('reads every open request until it is final, notifies completion once evidence is ready, then stops reading it', async () => {
    const batch = await makeBatch(desk, files, 3);
    await sent(batch.id);
    const events = startPoller({ burst: 10 });
    const [first] = desk.store.get(batch.id)?.documents ?? [];
    sim.complete(first!.send.requestId!);
    await until(events, (event) => event.type === 'completed');
    const statuses = events.flatMap((event) =>
      event.type === 'status-changed' && event.documentId === first!.draft.id ? [event.status] : [],
    );
    // First seen completed without evidence, then final once evidence is ready.
    expect(statuses.at(-1)).toMatchObject({
      status: 'completed',
      documentStatus: 'finalized',
      evidenceReady: true,
      final: true,
    });
    expect(statuses.some((status) => status.status === 'completed' && !status.evidenceReady)).toBe(true);
    expect(events.filter((event) => event.type === 'completed')).toEqual([
      { type: 'completed', batchId: batch.id, documentId: first!.draft.id, externalReference: 'REF-1' },
    ]);
    const stored = desk.store.get(batch.id)?.documents[0]?.tracking;
    expect(stored).toMatchObject({
      final: true,
      finalizedAt: expect.any(String),
      openedAt: expect.any(String),
    });

    const readsOfFinal = () =>
      sim.state
        .calls()
        .filter(
          (call) => call.operation === 'readSigningRequest' && call.path.endsWith(first!.send.requestId!),
        ).length;
    const before = readsOfFinal();
    const allBefore = readsOf();
    // The two others are read on (every 150 ms here) while the final one is not read again.
    await clock.runUntil(() => readsOf() >= allBefore + 6, { what: 'six more reads of the others' });
    expect(readsOfFinal()).toBe(before);
  });

  it('marks a request the service no longer knows as gone, and does not read it again', async () => {
    const batch = await makeBatch(desk, files, 1);
    await sent(batch.id);
    const [document] = desk.store.get(batch.id)?.documents ?? [];
    // Another connection's desk would see the request as not found (spec §5).
    await desk.store.record(batch.id, [
      {
        type: 'request_created',
        documentId: document!.draft.id,
        requestId: 'sr_unknown_here',
        replayed: false,
      },
    ]);
    const events = startPoller();
    await until(events, (event) => event.type === 'gone');
    expect(desk.store.get(batch.id)?.documents[0]?.gone).toBe(true);
    const reads = readsOf();
    // An hour later, it was never read again.
    await clock.advance(3_600_000);
    expect(readsOf()).toBe(reads);
  });

  it('marks a request gone only when its service says so, never on a gateway 404 or another 404 code', async () => {
    const batch = await makeBatch(desk, files, 1);
    await sent(batch.id);
    sim.faults.enqueue(
      { kind: 'gateway404', pathPattern: '^/api/v1/signing-requests/' },
      { kind: 'reject', status: 404, code: 'not_found', pathPattern: '^/api/v1/signing-requests/' },
    );
    const events = startPoller();
    // The gateway's HTML 404 and a 404 of another code are passing: the request is read again,
    // found, and never marked gone.
    await until(events, (event) => event.type === 'status-changed');
    expect(events.some((event) => event.type === 'gone')).toBe(false);
    expect(desk.store.get(batch.id)?.documents[0]?.gone).toBe(false);
    expect(readsOf()).toBeGreaterThanOrEqual(3);
  });

  it('keeps a status value the spec never showed, shows it as it is, files it apart, and keeps reading it', async () => {
    const batch = await makeBatch(desk, files, 1);
    await sent(batch.id);
    const server = await startScriptedServer((request) =>
      request.url === '/oauth/token'
        ? tokenWithoutLifetime
        : {
            status: 200,
            body: JSON.stringify({
              id: 'sr_x',
              status: 'awaiting_countersignature',
              document: { status: 'prepared' },
              evidence: { ready: false },
              prepared_at: '2026-11-02T10:00:00Z',
              opened_at: '2026-11-02T10:05:00Z',
              finalized_at: null,
            }),
          },
    );
    const { client } = makeTestClient(
      server.baseUrl,
      { clientId: 'desk', clientSecret: 'scripted-secret' },
      { clock },
    );
    try {
      const events = startPoller({ client });
      await until(events, (event) => event.type === 'status-changed');
      expect(desk.store.get(batch.id)?.documents[0]?.tracking).toMatchObject({
        status: 'awaiting_countersignature',
        openedAt: '2026-11-02T10:05:00Z',
        final: false,
      });
      expect(classOf(desk.store.get(batch.id)!.documents[0]!)).toBe('unknown_status');
      const reads = () => server.requests.filter((request) => request.url !== '/oauth/token').length;
      const seen = reads();
      // Read again at the slow pace of an unknown status (600 ms here: request-statuses.test.ts
      // has the real one), and reads of one request are at least 5 s apart, whatever it asks:
      // in an hour, one read each read spacing (5.05 s), no more.
      await clock.advance(3_600_000);
      const inAnHour = Math.floor(3_600_000 / READ_SPACING_MS);
      expect(reads() - seen).toBeGreaterThanOrEqual(inAnHour);
      expect(reads() - seen).toBeLessThanOrEqual(inAnHour + 1);
      expect(events.some((event) => event.type === 'completed' || event.type === 'gone')).toBe(false);
    } finally {
      poller?.stop();
      await client.close();
      await server.close();
    }
  });

  it('waits after a 503, for everyone, then reads again', async () => {
    const batch = await makeBatch(desk, files, 2);
    await sent(batch.id);
    sim.faults.enqueue({ kind: '503', retryAfterSeconds: 1, pathPattern: '^/api/v1/signing-requests/' });
    const started = clock.monotonic();
    // No jitter: the wait after a 503 is its floor, 5 s.
    const logged: string[] = [];
    const events = startPoller({ random: () => 0, logger: createJsonLogger((line) => logged.push(line)) });
    await until(events, (event) => event.type === 'poller-state' && event.state === 'waiting');
    const waiting = events.find((event) => event.type === 'poller-state' && event.state === 'waiting');
    expect(waiting).toMatchObject({ reason: expect.stringContaining('temporarily unavailable') });
    // One attempt per read: the 503 was not retried at once, and nothing is read during the wait.
    expect(readsOf()).toBe(1);
    const waitingAt = events.indexOf(waiting!);
    await until(
      events,
      (event) =>
        event.type === 'poller-state' && event.state === 'tracking' && events.indexOf(event) > waitingAt,
    );
    // The poller's own floor after a 503 (5 s) is longer than the Retry-After (1 s). The next
    // read, of the same request, also waits its read spacing (5.05 s), which would hide a shorter
    // floor: the wait the poller chose is read from its log.
    expect(logged.map((line) => JSON.parse(line) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ event: 'poll.waiting', delayMs: 5_000 }),
    );
    expect(clock.monotonic() - started).toBeGreaterThanOrEqual(5_000);
    const reads = sim.state.calls().filter((call) => call.operation === 'readSigningRequest');
    expect(Date.parse(reads[1]!.at) - Date.parse(reads[0]!.at)).toBeGreaterThanOrEqual(5_000);
  });

  it('paces reads evenly by default: never two within one budget interval', async () => {
    const batch = await makeBatch(desk, files, 12);
    await sent(batch.id);
    poller = new StatusPoller({
      store: desk.store,
      client: desk.client,
      clock,
      schedule: FAST,
      readsPerMinute: 600,
    });
    const before = sim.state.calls().length;
    poller.start();
    poller.refreshNow();
    await clock.advance(1_500);
    poller.stop();
    const times = sim.state
      .calls()
      .slice(before)
      .filter((call) => call.operation === 'readSigningRequest')
      .map((call) => Date.parse(call.at));
    // 600 per minute: one every 100 ms, with no burst at the start (on one clock: exactly), each
    // of the 12 requests once (a request is read again only after the read spacing).
    expect(times.length).toBe(12);
    for (let index = 1; index < times.length; index += 1)
      expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(100);
  });

  it('never exceeds its read budget, however many requests are due', async () => {
    const batch = await makeBatch(desk, files, 20);
    await sent(batch.id);
    poller = new StatusPoller({
      store: desk.store,
      client: desk.client,
      clock,
      schedule: FAST,
      readsPerMinute: 600,
      burst: 3,
    });
    const before = readsOf();
    poller.start();
    poller.refreshNow();
    await clock.advance(1_000);
    poller.stop();
    // 600 per minute = 10 per second: the burst, then one every 100 ms; 20 were due.
    expect(readsOf() - before).toBe(3 + 10);
  });

  it('backs off for as long as Retry-After says when the service answers 429', async () => {
    const batch = await makeBatch(desk, files, 2);
    await sent(batch.id);
    sim.faults.set({ rate429: 1, retryAfterSeconds: 2, pathPattern: 'signing-requests/' });
    const events = startPoller();
    await until(events, (event) => event.type === 'poller-state' && event.state === 'waiting');
    const at429 = sim.state.calls().length;
    await clock.advance(1_999);
    expect(sim.state.calls().length).toBe(at429);
    await clock.runUntil(() => sim.state.calls().length > at429, { what: 'a read after the wait' });
    expect(sim.state.violations()).toEqual([]);
  });

  it('reads a watched request as often as politeness allows while its ceremony is open, and slows down after', async () => {
    const batch = await makeBatch(desk, files, 1);
    await sent(batch.id);
    // Unwatched, this request would be read every 30 s; watched, as quickly as allowed.
    const slow: PollSchedule = { ...FAST, byAge: [[60_000, 30_000]], oldestMs: 30_000 };
    poller = new StatusPoller({
      store: desk.store,
      client: desk.client,
      clock,
      schedule: slow,
      readsPerMinute: 6_000,
    });
    poller.start();
    await clock.advance(300);
    const [document] = desk.store.get(batch.id)?.documents ?? [];
    const idleReads = readsOf();
    poller.watch(batch.id, document!.draft.id);
    await clock.advance(10_800);
    // At 0 s, 5 s and 10 s: every 5 s, never closer.
    expect(readsOf() - idleReads).toBe(3);
    // Closed: one read to see what the ceremony changed, then back to every 30 s (watched, the
    // next 11 s would hold two reads).
    const beforeClose = readsOf();
    poller.unwatch(batch.id, document!.draft.id, 0);
    await clock.advance(11_000);
    expect(readsOf() - beforeClose).toBe(1);
    expect(sim.state.violations()).toEqual([]);
  });

  it('slows down as a request ages, and spreads reads with jitter', () => {
    const at = (ageMs: number, attention = false) =>
      nextInterval(DEFAULT_POLL_SCHEDULE, ageMs, attention, () => 0.5);
    // Never closer than the client's read spacing, however the jitter falls.
    expect(at(0, true)).toBe(READ_SPACING_MS);
    expect(nextInterval(DEFAULT_POLL_SCHEDULE, 0, true, () => 0)).toBe(READ_SPACING_MS);
    expect(nextInterval(DEFAULT_POLL_SCHEDULE, 0, true, () => 1)).toBe(6_000);
    expect(at(60_000)).toBe(30_000);
    expect(at(30 * 60_000)).toBe(120_000);
    expect(at(5 * 3_600_000)).toBe(300_000);
    expect(at(3 * 86_400_000)).toBe(900_000);
    expect(nextInterval(DEFAULT_POLL_SCHEDULE, 3 * 86_400_000, false, () => 0)).toBe(720_000);
    expect(nextInterval(DEFAULT_POLL_SCHEDULE, 3 * 86_400_000, false, () => 1)).toBe(1_080_000);
  });

  it('allows a burst, then one read per interval of the budget', () => {
    let now = 0;
    const budget = new ReadBudget(60, 3, () => now);
    expect([budget.tryTake(), budget.tryTake(), budget.tryTake(), budget.tryTake()]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(budget.msUntilAvailable()).toBe(1_000);
    now += 1_000;
    expect(budget.tryTake()).toBe(true);
    expect(budget.tryTake()).toBe(false);
  });
});
