import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import {
  createDraftRequest,
  createPreparedRequest,
  fetchJson,
  getToken,
  readRequest,
  uploadPdf,
} from './test-support';

let simulator: Simulator;

beforeEach(async () => {
  simulator = await startSimulator();
});

afterEach(async () => {
  await simulator.close();
});

function control(method: 'GET' | 'POST', path: string, body?: unknown) {
  return fetchJson(`${simulator.baseUrl}/__simulator${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

/** A raw control call with the headers a browser or a rebinding attacker would send. */
function rawControl(method: string, path: string, headers: Record<string, string>): Promise<number> {
  const { port } = new URL(simulator.baseUrl);
  return new Promise((resolve, reject) => {
    const call = request(
      { host: '127.0.0.1', port, method, path: `/__simulator${path}`, headers },
      (answer) => {
        answer.resume();
        resolve(answer.statusCode ?? 0);
      },
    );
    call.on('error', reject);
    call.end(method === 'POST' ? '{"clientId":"page","clientSecret":"page-secret-123"}' : undefined);
  });
}

describe('the control API answers this computer only', () => {
  it('refuses another host name (DNS rebinding) and web pages of other origins; answers 127.0.0.1 and localhost', async () => {
    const { port } = new URL(simulator.baseUrl);
    expect(await rawControl('GET', '/state', { host: 'rebind.attacker.example' })).toBe(403);
    expect(
      await rawControl('GET', '/state', { host: `127.0.0.1:${port}`, origin: 'https://attacker.example' }),
    ).toBe(403);
    expect(
      await rawControl('POST', '/clients', {
        host: `127.0.0.1:${port}`,
        origin: 'https://attacker.example',
        'content-type': 'text/plain',
      }),
    ).toBe(403);
    expect(await rawControl('GET', '/state', { host: `127.0.0.1:${port}` })).toBe(200);
    expect(await rawControl('GET', '/state', { host: `localhost:${port}` })).toBe(200);
  });
});

describe('the HTTP control API', () => {
  it('GET /state shows requests, counts by reference, uploads, call counts and violations', async () => {
    const token = await getToken(simulator);
    const id = await createDraftRequest(simulator, token);
    const state = await control('GET', '/state');
    expect(state.status).toBe(200);
    expect(state.body).toMatchObject({
      requests: [expect.objectContaining({ id, externalReference: 'HR-2026-001', status: 'draft' })],
      countByExternalReference: { 'HR-2026-001': 1 },
      uploads: [expect.objectContaining({ uploadId: expect.stringMatching(/^upl_/) })],
      callCounts: { token: 1, upload: 1, createSigningRequest: 1 },
      totalCalls: 3,
      violations: [],
    });
    expect(state.body).not.toHaveProperty('calls');
    const withCalls = await control('GET', '/state?calls=1');
    expect(withCalls.body.calls).toHaveLength(3);
  });

  it('POST /faults merges a partial configuration; ?reset=1 resets it', async () => {
    const token = await getToken(simulator);
    const set = await control('POST', '/faults', { rate503: 1, retryAfterSeconds: 3 });
    expect(set.body).toMatchObject({ rate503: 1, retryAfterSeconds: 3, rate429: 0 });
    const failed = await readRequest(simulator, token, 'sr_a');
    expect([failed.status, failed.headers.get('retry-after')]).toEqual([503, '3']);
    const reset = await control('POST', '/faults?reset=1', {});
    expect(reset.body).toMatchObject({ rate503: 0, retryAfterSeconds: 1 });
    expect((await readRequest(simulator, token, 'sr_a')).status).toBe(404);
  });

  it('POST /faults refuses unknown fields and out-of-range rates', async () => {
    expect((await control('POST', '/faults', { rate5O3: 1 })).status).toBe(400);
    expect((await control('POST', '/faults', { rate429: 2 })).status).toBe(400);
    expect((await control('POST', '/faults', { pathPattern: '(' })).status).toBe(400);
  });

  it('POST /faults/enqueue queues deterministic faults', async () => {
    const token = await getToken(simulator);
    const queued = await control('POST', '/faults/enqueue', {
      faults: [{ kind: '429', retryAfterSeconds: 2 }],
    });
    expect(queued.body).toEqual({ queued: 1 });
    const answer = await readRequest(simulator, token, 'sr_a');
    expect([answer.status, answer.headers.get('retry-after')]).toEqual([429, '2']);
  });

  it('POST /clock/advance moves simulated time (tokens expire)', async () => {
    const token = await getToken(simulator);
    const before = simulator.clock.now();
    const answer = await control('POST', '/clock/advance', { ms: 3_600_000 });
    expect(answer.status).toBe(200);
    expect(Date.parse(answer.body.now as string)).toBeGreaterThanOrEqual(before + 3_600_000);
    expect((await readRequest(simulator, token, 'sr_a')).status).toBe(401);
    expect((await control('POST', '/clock/advance', { ms: -1 })).status).toBe(400);
  });

  it('POST /clients registers a client', async () => {
    const client = { clientId: 'ci', clientSecret: 'ci-secret', scopes: ['signing.read'] };
    expect((await control('POST', '/clients', client)).status).toBe(201);
    await expect(getToken(simulator, { ...client, scopes: ['signing.read'] })).resolves.toMatch(/^sim_at_/);
    expect((await control('POST', '/clients', { ...client, scopes: ['everything'] })).status).toBe(400);
  });

  it('POST /requests/{id}/complete completes a prepared request', async () => {
    const token = await getToken(simulator);
    const id = await createPreparedRequest(simulator, token);
    expect((await control('POST', `/requests/${id}/complete`)).status).toBe(200);
    expect((await readRequest(simulator, token, id)).body.status).toBe('completed');
    expect((await control('POST', '/requests/sr_nope/complete')).status).toBe(404);
    const draft = await createDraftRequest(simulator, token);
    expect((await control('POST', `/requests/${draft}/complete`)).status).toBe(409);
  });

  it('POST /tokens/revoke invalidates every token', async () => {
    const token = await getToken(simulator);
    expect((await control('POST', '/tokens/revoke')).status).toBe(200);
    expect((await uploadPdf(simulator, token)).status).toBe(401);
  });

  it('answers 404 and 405 for unknown control routes and methods, and is not in the call log', async () => {
    expect((await control('GET', '/nothing')).status).toBe(404);
    expect((await control('POST', '/state')).status).toBe(405);
    expect((await control('GET', '/faults')).status).toBe(405);
    expect(simulator.state.calls()).toEqual([]);
  });

  it('is absent when control is false', async () => {
    const quiet = await startSimulator({ control: false });
    try {
      const answer = await fetchJson(`${quiet.baseUrl}/__simulator/state`);
      expect([answer.status, answer.body.error.code]).toEqual([404, 'not_found']);
    } finally {
      await quiet.close();
    }
  });
});
