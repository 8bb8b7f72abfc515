import { clockReading, clockSteppedBy } from '../../support/clocks';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Desk } from '../../../main/desk-core';
import { StatusPoller, type PollerEvent } from '../../../main/tracking/status-poller';
import { startSimulator, type Simulator } from '../../../simulator/simulator';
import { makeBatch, openTestDesk } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

let sim: Simulator;
let files: TempFolder;
let desk: Desk;
let poller: StatusPoller | undefined;
/** Simulated time: this computer's, moved forward whenever the poller waits (the simulator's moves with it). */
let offsetMs = 0;
const now = () => Date.now() + offsetMs;
const moveClock = (ms: number) => {
  offsetMs += ms;
  sim.clock.advance(ms);
  return new Promise<void>((resolve) => setImmediate(resolve));
};

beforeEach(async () => {
  offsetMs = 0;
  sim = await startSimulator({ seed: 9 });
  files = makeTempFolder();
  desk = await openTestDesk(sim, files.file('data'), { clock: clockReading(now) });
});
afterEach(async () => {
  poller?.stop();
  await desk.close();
  await sim.close();
  files.remove();
});

it('the poller keeps tracking through a refused token request (a key rotation): it waits and says the service code, it does not call the credentials refused', async () => {
  const batch = await makeBatch(desk, files, 1);
  await desk.engine.send(batch.id);
  const requestId = desk.store.get(batch.id)?.documents[0]?.send.requestId;
  if (!requestId) throw new Error('the document was not sent');
  sim.complete(requestId);
  // Two hours later the token has expired, and the service refuses the next token request.
  await moveClock(2 * 3_600_000);
  sim.faults.enqueue({ kind: 'tokenRefusal' });

  poller = new StatusPoller({
    store: desk.store,
    client: desk.client,
    clock: clockSteppedBy(now, moveClock),
  });
  const events: PollerEvent[] = [];
  const completed = new Promise<void>((resolve) =>
    poller?.subscribe((event) => {
      events.push(event);
      if (event.type === 'completed') resolve();
    }),
  );
  poller.start();
  await completed;

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
