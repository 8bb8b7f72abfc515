import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classOf, needsTracking } from '../../../main/domain/document-class';
import type { BatchState } from '../../../main/domain/batch-state';
import type { Desk } from '../../../main/app/desk-core';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { StatusPoller, type PollerEvent } from '../../../main/tracking/status-poller';
import type { Simulator, StatusChange } from '../../../simulator/simulator';
import { makeBatch } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

/**
 * Statuses the spec does not list (README "Tracking politely"), tracked by the real poller with its
 * default schedule against the simulator, both on one virtual clock: time stands still while a read
 * is on its way and jumps from one wait to the next, so every read time is exact to the millisecond
 * and days of tracking take a second or two. Jitter is neutral (random 0.5).
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let sim: Simulator;
let files: TempFolder;
let desk: Desk;
let poller: StatusPoller | undefined;
let clock: VirtualClock;

beforeEach(async () => {
  ({ sim, clock } = await startVirtualSimulator({ seed: 21 }));
  files = makeTempFolder('desk-statuses-');
  desk = await openVirtualDesk(sim, clock, files.file('data'));
});
afterEach(async () => {
  poller?.stop();
  poller = undefined;
  await desk.close();
  await sim.close();
  files.remove();
});

/** Sends one document, then lets 6 s pass (so that no read waits for the read spacing). */
async function sendOne(): Promise<{ batch: BatchState; requestId: string }> {
  const batch = await makeBatch(desk, files, 1);
  expect((await clock.complete(desk.engine.send(batch.id))).state).toBe('finished');
  await clock.advance(6_000);
  const requestId = desk.store.get(batch.id)?.documents[0]?.send.requestId;
  if (!requestId) throw new Error('not sent');
  return { batch, requestId };
}

/** Starts the poller on the clock; returns its events and the times it read `requestId`'s document. */
function startPoller(onEvent: (event: PollerEvent) => void = () => undefined): {
  events: PollerEvent[];
  readTimes: number[];
} {
  poller = new StatusPoller({
    store: desk.store,
    client: desk.client,
    clock,
    random: () => 0.5,
  });
  const events: PollerEvent[] = [];
  const readTimes: number[] = [];
  poller.subscribe((event) => {
    events.push(event);
    if (event.type === 'checked') readTimes.push(Date.parse(event.at));
    onEvent(event);
  });
  poller.start();
  return { events, readTimes };
}

/**
 * Lets the poller run until the clock reaches `at` (epoch ms): every read due by then is done,
 * none after it has started.
 */
async function runUntil(at: number): Promise<void> {
  await clock.advance(at - clock.now());
}

function readsAtService(requestId: string): number {
  return sim.state
    .calls()
    .filter((call) => call.operation === 'readSigningRequest' && call.path.endsWith(`/${requestId}`)).length;
}

describe('a request that ends at the service without completion', () => {
  it.each<[string, StatusChange]>([
    ['declined', { status: 'declined' }],
    ['expired', { status: 'expired', documentStatus: 'expired' }],
    ['cancelled', { status: 'cancelled' }],
    ['voided, with finalized_at', { status: 'voided', finalized: true }],
    ['in a status nobody knows, carrying finalized_at', { status: 'archived', finalized: true }],
  ])('%s: read until its final status, then never again; filed as ended', async (_name, change) => {
    const { batch, requestId } = await sendOne();
    const document = () => desk.store.get(batch.id)!.documents[0]!;
    let firstRead: number | undefined;
    // Right after the first read (it found the request prepared), the service ends it.
    const { events, readTimes } = startPoller((event) => {
      if (event.type === 'checked' && firstRead === undefined) {
        firstRead = Date.parse(event.at);
        sim.setStatus(requestId, change);
      }
    });
    await runUntil(clock.now() + 3 * DAY);
    poller!.stop();
    // Two reads in three days: the one that found it prepared, the one that found it ended.
    expect(readTimes).toHaveLength(2);
    expect(readsAtService(requestId)).toBe(2);
    // The second read came at the pace of a young request (30 s), not after any growing wait.
    expect(readTimes[1]! - readTimes[0]!).toBe(30_000);
    expect(classOf(document())).toBe('ended');
    expect(needsTracking(document())).toBe(false);
    expect(document().tracking).toMatchObject({ status: change.status, final: true });
    expect(events.filter((event) => event.type === 'ended')).toEqual([
      {
        type: 'ended',
        batchId: batch.id,
        documentId: document().draft.id,
        externalReference: 'REF-1',
        status: change.status,
      },
    ]);
    expect(events.some((event) => event.type === 'completed')).toBe(false);
    expect(sim.state.violations()).toEqual([]);
  });
});

describe('a request in a status this app does not know, and not final', () => {
  it('is read at a slow, growing interval (15 min, 30 min, 1 h, … up to a day), and back at the usual pace once its status is known again', async () => {
    const { batch, requestId } = await sendOne();
    const document = () => desk.store.get(batch.id)!.documents[0]!;
    sim.setStatus(requestId, { status: 'on_hold' });
    const { events, readTimes } = startPoller();
    await runUntil(clock.now() + 110 * HOUR);
    // The first read found on_hold; each wait since is as long as the status has stood, from
    // 15 min, doubling with each unchanged read, up to one a day.
    const first = readTimes[0]!;
    expect(readTimes.map((at) => (at - first) / MINUTE)).toEqual([
      0, 15, 30, 60, 120, 240, 480, 960, 1_920, 3_360, 4_800, 6_240,
    ]);
    expect(readsAtService(requestId)).toBe(12);
    expect(classOf(document())).toBe('unknown_status');
    expect(needsTracking(document())).toBe(true);
    // Shown as the service says it; written to the journal once (when it was first read).
    expect(document().tracking).toMatchObject({ status: 'on_hold', final: false });
    expect(events.filter((event) => event.type === 'status-changed')).toHaveLength(1);

    // The service moves it on: the next read (a day after the last) finds it in progress, and the
    // request, now 5 days old, is read every 15 min again (the age schedule), not after a growing wait.
    sim.setStatus(requestId, { status: 'in_progress' });
    await runUntil(first + 6_240 * MINUTE + DAY + HOUR + MINUTE);
    poller!.stop();
    const after = readTimes.slice(12).map((at) => (at - first) / MINUTE - 6_240);
    expect(after).toEqual([1_440, 1_455, 1_470, 1_485, 1_500]);
    expect(classOf(document())).toBe('waiting');
    expect(events.some((event) => event.type === 'ended' || event.type === 'completed')).toBe(false);
    expect(sim.state.violations()).toEqual([]);
  });
});
