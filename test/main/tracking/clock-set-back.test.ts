/**
 * Found by an attack: the status poller scheduled its reads, its read budget and its waits after
 * a 429/503 on the wall clock, so a computer's clock set back by an hour (NTP, a laptop's wrong
 * time corrected) stopped every status read for that hour. It now schedules on monotonic time
 * (request ages stay on the wall clock); this test failed before.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Desk } from '../../../main/app/desk-core';
import { StatusPoller } from '../../../main/tracking/status-poller';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import type { Simulator } from '../../../simulator/simulator';
import { makeBatch } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { clockAheadOf, openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let sim: Simulator;
let files: TempFolder;
let desk: Desk;
let poller: StatusPoller | undefined;
let clock: VirtualClock;
/** How far the desk's wall clock is from the service's (and the true) time. */
let deskAhead = 0;

beforeEach(async () => {
  ({ sim, clock } = await startVirtualSimulator({ seed: 5 }));
  files = makeTempFolder();
  desk = await openVirtualDesk(sim, clock, files.file('data'), {
    clock: clockAheadOf(clock, () => deskAhead),
  });
});
afterEach(async () => {
  poller?.stop();
  await clock.complete(desk.close());
  await sim.close();
  files.remove();
});

function reads(): number {
  return sim.state.calls().filter((call) => call.operation === 'readSigningRequest').length;
}

it('keeps reading statuses after the computer’s clock is set back an hour', async () => {
  const batch = await makeBatch(desk, files, 3);
  await clock.complete(desk.engine.send(batch.id));
  poller = new StatusPoller({
    store: desk.store,
    client: desk.client,
    clock: clockAheadOf(clock, () => deskAhead),
  });
  poller.start();
  await clock.advance(5 * MINUTE);
  expect(reads()).toBeGreaterThan(0);

  // NTP corrects a clock that ran an hour fast: the wall clock goes back, true time goes on.
  deskAhead = -HOUR;
  const before = reads();
  await clock.advance(30 * MINUTE);
  // Young requests are read every 30 s to 2 min: three of them, dozens of reads in 30 minutes.
  expect(reads() - before).toBeGreaterThan(20);
});
