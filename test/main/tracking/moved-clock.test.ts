import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Desk } from '../../../main/app/desk-core';
import { StatusPoller, type PollerEvent } from '../../../main/tracking/status-poller';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import type { Simulator } from '../../../simulator/simulator';
import { makeBatch } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let sim: Simulator;
let files: TempFolder;
let desk: Desk;
let poller: StatusPoller | undefined;
/** The service's, the desk's and the poller's one clock: hours pass as fast as the reads. */
let clock: VirtualClock;

beforeEach(async () => {
  ({ sim, clock } = await startVirtualSimulator({ seed: 5 }));
  files = makeTempFolder();
  desk = await openVirtualDesk(sim, clock, files.file('data'));
});
afterEach(async () => {
  poller?.stop();
  await desk.close();
  await sim.close();
  files.remove();
});

function readsOf(requestId: string): number {
  return sim.state
    .calls()
    .filter((call) => call.operation === 'readSigningRequest' && call.path.endsWith(requestId)).length;
}

describe('status poller on a clock it is given', () => {
  it('tracks hours of simulated time at the pace of its schedule, and an unchanged status read writes nothing to the journal', async () => {
    const batch = await makeBatch(desk, files, 3);
    await clock.complete(desk.engine.send(batch.id));
    const journal = join(files.file('data'), 'batches', batch.id, 'journal.log');
    poller = new StatusPoller({
      store: desk.store,
      client: desk.client,
      clock,
    });
    const events: PollerEvent[] = [];
    poller.subscribe((event) => events.push(event));
    poller.start();
    // The first read of each request stores its status (none was stored when it was sent).
    await clock.advance(MINUTE);
    const firstReads = events.filter((event) => event.type === 'status-changed').length;
    expect(firstReads).toBe(3);
    const journalBefore = statSync(journal).size;
    await clock.advance(6 * HOUR - MINUTE);
    poller.stop();

    // The default schedule: every 30 s for 10 min, every 2 min to 1 h, every 5 min after (±20 %):
    // about 20 + 25 + 60 = 105 reads of each request in 6 h, when waits follow the clock given.
    const requestIds = (desk.store.get(batch.id)?.documents ?? []).map(
      (document) => document.send.requestId!,
    );
    for (const requestId of requestIds) {
      expect(readsOf(requestId)).toBeGreaterThan(85);
      expect(readsOf(requestId)).toBeLessThan(130);
    }
    // Nobody signed: every read found what the journal holds already, and wrote nothing.
    expect(events.filter((event) => event.type === 'status-changed')).toHaveLength(firstReads);
    expect(statSync(journal).size).toBe(journalBefore);
    // The service saw the reads on its own (moved) clock, never two of one request within 5 s.
    expect(sim.state.violations()).toEqual([]);

    // A status that changes is written, once.
    sim.complete(requestIds[0]!);
    // The simulator's evidence is ready 1.5 s after the last signature (its clock): the poller
    // starts again after that, so the one change it can see is the final one. (A read inside
    // those 1.5 s finds "completed, evidence pending", a change of its own: the test met it once.)
    await clock.advance(2_000);
    poller.start();
    await clock.advance(HOUR);
    poller.stop();
    const changed = events.filter((event) => event.type === 'status-changed').slice(firstReads);
    expect(changed.map((event) => event.type === 'status-changed' && event.status.final)).toEqual([true]);
    expect(statSync(journal).size).toBeGreaterThan(journalBefore);
    expect(desk.store.get(batch.id)?.documents[0]?.tracking?.final).toBe(true);
    expect(readsOf(requestIds[1]!)).toBeGreaterThan(100);
  });
});
