import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/simulator';
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

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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
    const answer = await fetchJson(`${simulator.baseUrl}/__simulator/offline`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ seconds: 0.5 }),
    });
    expect(answer.status).toBe(202);
    await waitFor(
      async () => (await fetchFailureCode(getToken(simulator)).catch(() => 'ok')) === 'ECONNREFUSED',
      2_000,
    );
    await waitFor(
      async () =>
        getToken(simulator).then(
          () => true,
          () => false,
        ),
      3_000,
    );
  });
});
