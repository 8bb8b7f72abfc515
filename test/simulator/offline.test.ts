import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import { startVirtualSimulator } from '../support/virtual-world';
import {
  createDraftRequest,
  fetchFailureCode,
  fetchJson,
  getToken,
  rawRequest,
  readRequest,
} from './test-support';

let simulator: Simulator;

beforeEach(async () => {
  simulator = await startSimulator();
});

afterEach(async () => {
  await simulator.close();
});

/**
 * Tries `condition` every 10 ms until it holds: for what real work brings (the listener closed
 * or listening again). The 5 s limit only keeps a broken run from hanging; it measures nothing.
 */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + 5_000;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** True when a token call finds the port closed (the service is offline). */
async function refused(sim: Simulator): Promise<boolean> {
  return (await fetchFailureCode(getToken(sim)).catch(() => 'answered')) === 'ECONNREFUSED';
}

/** True when a token call is answered (the service is online). */
function answers(sim: Simulator): Promise<boolean> {
  return getToken(sim).then(
    () => true,
    () => false,
  );
}

describe('going offline and online', () => {
  it('refuses connections while offline, then serves the same state on the same port', async () => {
    const token = await getToken(simulator);
    const id = await createDraftRequest(simulator, token);
    await simulator.goOffline();
    // A fresh connection: pooled ones were cut (next test), this one must be refused.
    const offline = await rawRequest(simulator.baseUrl, {
      method: 'GET',
      path: `/api/v1/signing-requests/${id}`,
    });
    expect(offline).toEqual({ kind: 'network', code: 'ECONNREFUSED' });
    await simulator.goOnline();
    const answer = await readRequest(simulator, token, id);
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(id);
  });

  it('cuts open keep-alive connections when going offline', async () => {
    const token = await getToken(simulator);
    expect((await readRequest(simulator, token, 'sr_a')).status).toBe(404);
    await simulator.goOffline();
    const code = await fetchFailureCode(readRequest(simulator, token, 'sr_a'));
    expect(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET']).toContain(code);
    await simulator.goOnline();
  });

  it('tolerates repeated calls in either direction', async () => {
    await simulator.goOffline();
    await simulator.goOffline();
    await simulator.goOnline();
    await simulator.goOnline();
    await expect(getToken(simulator)).resolves.toMatch(/^sim_at_/);
  });

  it('goes offline for a number of seconds through the control API', async () => {
    // On a virtual clock: the outage lasts exactly its length of the service's time.
    const { sim, clock } = await startVirtualSimulator();
    try {
      const answer = await fetchJson(`${sim.baseUrl}/__simulator/offline`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ seconds: 0.5 }),
      });
      expect(answer.status).toBe(202);
      await waitFor(() => refused(sim));
      await clock.advance(499);
      expect(await refused(sim)).toBe(true);
      await clock.advance(1);
      await waitFor(() => answers(sim));
    } finally {
      await sim.close();
    }
  });
});
