import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Desk } from '../../../main/app/desk-core';
import { StatusPoller, type PollerEvent } from '../../../main/tracking/status-poller';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import type { Simulator } from '../../../simulator/simulator';
import { makeBatch } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

let sim: Simulator;
let files: TempFolder;
let desk: Desk;
let poller: StatusPoller | undefined;
/** The service's, the desk's and the poller's one clock. */
let clock: VirtualClock;

beforeEach(async () => {
  ({ sim, clock } = await startVirtualSimulator({ seed: 9 }));
  files = makeTempFolder();
  desk = await openVirtualDesk(sim, clock, files.file('data'));
});
afterEach(async () => {
  poller?.stop();
  await desk.close();
  await sim.close();
  files.remove();
});

it('the poller keeps tracking through a refused token request (a key rotation): it waits and says the service code, it does not call the credentials refused', async () => {
  const batch = await makeBatch(desk, files, 1);
  await clock.complete(desk.engine.send(batch.id));
  const requestId = desk.store.get(batch.id)?.documents[0]?.send.requestId;
  if (!requestId) throw new Error('the document was not sent');
  sim.complete(requestId);
  // Two hours later the token has expired, and the service refuses the next token request.
  await clock.advance(2 * 3_600_000);
  sim.faults.enqueue({ kind: 'tokenRefusal' });

  poller = new StatusPoller({
    store: desk.store,
    client: desk.client,
    clock,
  });
  const events: PollerEvent[] = [];
  poller.subscribe((event) => events.push(event));
  poller.start();
  await clock.runUntil(() => events.some((event) => event.type === 'completed'), {
    what: 'the request read completed',
  });

  const states = events.flatMap((event) => (event.type === 'poller-state' ? [event] : []));
  expect(states.filter((event) => event.state === 'refused')).toEqual([]);
  expect(states.find((event) => event.state === 'waiting')).toEqual({
    type: 'poller-state',
    state: 'waiting',
    reason: 'The service refused a token (invalid_grant) — often a moment during key rotation; trying again…',
  });
  expect(states.at(-1)?.state).toBe('tracking');
  const tokens = sim.state.calls().filter((call) => call.operation === 'token');
  expect(tokens.map((call) => call.status)).toEqual([200, 400, 200]);
  expect(sim.state.violations()).toEqual([]);
});
