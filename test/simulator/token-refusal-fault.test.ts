import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../simulator/simulator';
import { JSON_HEADERS, fetchJson, getToken, readRequest, type JsonAnswer } from './test-support';

/**
 * The `tokenRefusal` fault: a service that, for a moment during a key rotation, refuses to issue
 * tokens to a client whose credentials are right (README "Answers the spec does not pin down").
 */
let simulator: Simulator;

beforeEach(async () => {
  simulator = await startSimulator({ seed: 42 });
});

afterEach(async () => {
  await simulator.close();
});

/** A token request of the demo client, answered as it is (not thrown on a refusal). */
function askToken(baseUrl = simulator.baseUrl): Promise<JsonAnswer> {
  return fetchJson(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: DEMO_CLIENT.clientId,
      client_secret: DEMO_CLIENT.clientSecret,
    }).toString(),
  });
}

function control(path: string, body: unknown): Promise<JsonAnswer> {
  return fetchJson(`${simulator.baseUrl}/__simulator${path}`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('queued token refusals', () => {
  it('refuse the next token request with 400 invalid_grant in OAuth shape, then tokens are issued again', async () => {
    simulator.faults.enqueue({ kind: 'tokenRefusal' });
    const refused = await askToken();
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    expect((await askToken()).status).toBe(200);
    const tokenCalls = simulator.state.calls().filter((call) => call.operation === 'token');
    expect(tokenCalls.map((call) => [call.status, call.fault])).toEqual([
      [400, 'tokenRefusal'],
      [200, null],
    ]);
  });

  it('answer 401 invalid_client when asked, and wait for a token request whatever their path pattern', async () => {
    const token = await getToken(simulator);
    simulator.faults.enqueue({ kind: 'tokenRefusal', code: 'invalid_client', pathPattern: '^/api/v1/' });
    // An API call does not take it: it means nothing there.
    expect((await readRequest(simulator, token, 'sr_none')).status).toBe(404);
    const refused = await askToken();
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    // The token issued before is still good: the refusal changed nothing.
    expect((await readRequest(simulator, token, 'sr_none')).status).toBe(404);
  });

  it('refuse a code that is not a token refusal', () => {
    expect(() => simulator.faults.enqueue({ kind: 'tokenRefusal', code: 'invalid_scope' })).toThrow(
      /invalid_grant or invalid_client/,
    );
  });
});

describe('random token refusals', () => {
  it('refuse that share of token requests, never another call, and replay with the seed', async () => {
    const token = await getToken(simulator);
    simulator.faults.set({ tokenRefusalRate: 0.2 });
    const statuses: number[] = [];
    for (let index = 0; index < 100; index += 1) statuses.push((await askToken()).status);
    for (let index = 0; index < 20; index += 1)
      expect((await readRequest(simulator, token, `sr_${index}`)).status).toBe(404);
    const refused = statuses.filter((status) => status === 400).length;
    expect(statuses.every((status) => status === 200 || status === 400)).toBe(true);
    // 20 % of 100 draws: a binomial far outside 8..35 would mean the rate is not applied.
    expect(refused).toBeGreaterThanOrEqual(8);
    expect(refused).toBeLessThanOrEqual(35);

    // The same seed refuses the same requests.
    const again = await startSimulator({ seed: 42 });
    try {
      await askToken(again.baseUrl);
      again.faults.set({ tokenRefusalRate: 0.2 });
      const replayed: number[] = [];
      for (let index = 0; index < 100; index += 1) replayed.push((await askToken(again.baseUrl)).status);
      expect(replayed).toEqual(statuses);
    } finally {
      await again.close();
    }
  });

  it('answer 401 invalid_client with tokenRefusalCode, set through the control API', async () => {
    const set = await control('/faults', { tokenRefusalRate: 1, tokenRefusalCode: 'invalid_client' });
    expect(set.body).toMatchObject({ tokenRefusalRate: 1, tokenRefusalCode: 'invalid_client' });
    const refused = await askToken();
    expect([refused.status, refused.body.error]).toEqual([401, 'invalid_client']);
    expect((await control('/faults', { tokenRefusalCode: 'invalid_scope' })).status).toBe(400);
    expect((await control('/faults?reset=1', {})).body).toMatchObject({
      tokenRefusalRate: 0,
      tokenRefusalCode: 'invalid_grant',
    });
    expect((await askToken()).status).toBe(200);
  });

  it('can be queued through the control API', async () => {
    expect(
      (await control('/faults/enqueue', { faults: [{ kind: 'tokenRefusal', code: 'invalid_client' }] })).body,
    ).toEqual({ queued: 1 });
    expect((await askToken()).status).toBe(401);
    expect((await askToken()).status).toBe(200);
  });
});
