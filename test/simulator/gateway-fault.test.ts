import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import {
  createSigningRequest,
  fetchJson,
  getToken,
  newIdempotencyKey,
  readRequest,
  signingRequestBody,
  uploadPdf,
} from './test-support';

let simulator: Simulator;
let token: string;

beforeEach(async () => {
  simulator = await startSimulator({ seed: 5 });
  token = await getToken(simulator);
});

afterEach(async () => {
  await simulator.close();
});

describe("a gateway's 404 (gateway404)", () => {
  it('answers 404 with an HTML page and no JSON error, without processing the request', async () => {
    const upload = (await uploadPdf(simulator, token)).body.upload_id as string;
    const key = newIdempotencyKey();
    simulator.faults.enqueue({ kind: 'gateway404', pathPattern: '^/api/v1/signing-requests$' });
    const response = await fetch(`${simulator.baseUrl}/api/v1/signing-requests`, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: JSON.stringify(signingRequestBody(upload)),
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const text = await response.text();
    expect(text).toContain('<h1>404 Not Found</h1>');
    expect(() => JSON.parse(text) as unknown).toThrow();
    expect(simulator.state.requests()).toEqual([]);

    const retry = await createSigningRequest(simulator, token, signingRequestBody(upload), key);
    expect([retry.status, retry.body.idempotent_replay]).toEqual([201, false]);
    const creations = simulator.state.calls().filter((call) => call.operation === 'createSigningRequest');
    expect(creations.map((call) => [call.status, call.fault])).toEqual([
      [404, 'gateway404'],
      [201, null],
    ]);
    expect(simulator.state.violations()).toEqual([]);
  });

  it('strikes at random at gateway404Rate, within the cumulative draw', async () => {
    simulator.faults.set({ gateway404Rate: 1 });
    const read = await readRequest(simulator, token, 'sr_a');
    expect([read.status, read.body, read.headers.get('content-type')]).toEqual([
      404,
      undefined,
      'text/html; charset=utf-8',
    ]);
    simulator.faults.set({ gateway404Rate: 0.5, rate503: 0.5 });
    const statuses = new Set<number>();
    for (let index = 0; index < 30; index += 1) {
      simulator.clock.advance(5_000);
      statuses.add((await readRequest(simulator, token, 'sr_a')).status);
    }
    expect(statuses).toEqual(new Set([404, 503]));
    expect(() => simulator.faults.set({ gateway404Rate: 2 })).toThrow(RangeError);
  });

  it('is accepted by the control API, queued and random', async () => {
    const control = (path: string, body: unknown) =>
      fetchJson(`${simulator.baseUrl}/__simulator${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await control('/faults/enqueue', { faults: [{ kind: 'gateway404' }] })).status).toBe(200);
    expect((await uploadPdf(simulator, token)).status).toBe(404);
    expect((await uploadPdf(simulator, token)).status).toBe(201);
    const set = await control('/faults', { gateway404Rate: 1 });
    expect(set.body).toMatchObject({ gateway404Rate: 1 });
    expect((await uploadPdf(simulator, token)).status).toBe(404);
  });
});
