import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../main/time/virtual-clock';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import { startVirtualSimulator } from '../support/virtual-world';
import {
  JSON_HEADERS,
  createSigningRequest,
  fetchFailureCode,
  getToken,
  keepAliveClient,
  newIdempotencyKey,
  rawRequest,
  readRequest,
  samplePdf,
  signingRequestBody,
  uploadPdf,
} from './test-support';

let simulator: Simulator;
let token: string;

beforeEach(async () => {
  simulator = await startSimulator({ seed: 42 });
  token = await getToken(simulator);
});

afterEach(async () => {
  await simulator.close();
});

describe('queued faults', () => {
  it('answers 503 upstream_unavailable with Retry-After, before processing', async () => {
    const upload = (await uploadPdf(simulator, token)).body.upload_id as string;
    simulator.faults.enqueue({ kind: '503' });
    const answer = await createSigningRequest(simulator, token, signingRequestBody(upload));
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.body).toEqual({ error: { code: 'upstream_unavailable', message: expect.any(String) } });
    expect(simulator.state.requests()).toHaveLength(0);
  });

  it('answers 429 rate_limited with the Retry-After asked for', async () => {
    simulator.faults.enqueue({ kind: '429', retryAfterSeconds: 7 });
    const answer = await readRequest(simulator, token, 'sr_any');
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('7');
    expect(answer.body.error.code).toBe('rate_limited');
    expect((await readRequest(simulator, token, 'sr_any')).status).toBe(404);
  });

  it('applies to the token endpoint too', async () => {
    simulator.faults.enqueue({ kind: '503' });
    await expect(getToken(simulator)).rejects.toThrow(/503/);
    await expect(getToken(simulator)).resolves.toMatch(/^sim_at_/);
  });

  it('dropBefore: the connection fails and nothing happened', async () => {
    const upload = (await uploadPdf(simulator, token)).body.upload_id as string;
    simulator.faults.enqueue({ kind: 'dropBefore' });
    const code = await fetchFailureCode(createSigningRequest(simulator, token, signingRequestBody(upload)));
    expect(code).toMatch(/UND_ERR_SOCKET|ECONNRESET|EPIPE/);
    expect(simulator.state.requests()).toHaveLength(0);
  });

  it('dropAfter: the request is processed but the answer is lost; a retry with the same key replays it', async () => {
    const upload = (await uploadPdf(simulator, token)).body.upload_id as string;
    const key = newIdempotencyKey();
    simulator.faults.enqueue({ kind: 'dropAfter', pathPattern: '^/api/v1/signing-requests$' });
    const code = await fetchFailureCode(
      createSigningRequest(simulator, token, signingRequestBody(upload), key),
    );
    expect(code).toMatch(/UND_ERR_SOCKET|ECONNRESET|EPIPE/);
    expect(simulator.state.countByExternalReference()).toEqual({ 'HR-2026-001': 1 });

    const retry = await createSigningRequest(simulator, token, signingRequestBody(upload), key);
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ id: simulator.state.requests()[0]?.id, idempotent_replay: true });
    expect(simulator.state.countByExternalReference()).toEqual({ 'HR-2026-001': 1 });
  });

  it('dropAfter on an upload stores the upload although the client never learns its id', async () => {
    simulator.faults.enqueue({ kind: 'dropAfter' });
    await fetchFailureCode(uploadPdf(simulator, token));
    expect(simulator.state.uploads()).toHaveLength(1);
  });

  it('hits only requests matching the fault’s path pattern, in order', async () => {
    simulator.faults.enqueue({ kind: '503', pathPattern: '/prepare$' }, { kind: '429' });
    expect((await readRequest(simulator, token, 'sr_a')).status).toBe(429);
    expect((await readRequest(simulator, token, 'sr_a')).status).toBe(404);
    const prepare = await fetch(`${simulator.baseUrl}/api/v1/signing-requests/sr_a/prepare`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    });
    expect(prepare.status).toBe(503);
  });

  it('takes precedence over random faults', async () => {
    simulator.faults.set({ rate503: 1 });
    simulator.faults.enqueue({ kind: '429' });
    expect((await readRequest(simulator, token, 'sr_a')).status).toBe(429);
    expect((await readRequest(simulator, token, 'sr_a')).status).toBe(503);
  });

  it('answers early faults on a large upload without breaking the keep-alive connection', async () => {
    const client = keepAliveClient(simulator.baseUrl);
    const upload = () =>
      client.send({
        method: 'POST',
        path: '/api/v1/uploads',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'content-type': 'application/pdf' },
        body: samplePdf('x'.repeat(5_000_000)),
      });
    try {
      simulator.faults.enqueue({ kind: '503' }, { kind: '429' });
      expect(await upload()).toEqual({ status: 503, reusedSocket: false });
      expect(await upload()).toEqual({ status: 429, reusedSocket: true });
      expect(await upload()).toEqual({ status: 201, reusedSocket: true });
    } finally {
      client.close();
    }
  });

  it('records the fault of each call', async () => {
    simulator.faults.enqueue({ kind: '503' });
    await readRequest(simulator, token, 'sr_a');
    simulator.faults.enqueue({ kind: 'dropBefore' });
    await fetchFailureCode(readRequest(simulator, token, 'sr_a'));
    const reads = simulator.state.calls().filter((call) => call.operation === 'readSigningRequest');
    expect(reads.map((call) => [call.status, call.fault])).toEqual([
      [503, '503'],
      [null, 'dropBefore'],
    ]);
  });
});

describe('random faults', () => {
  it('follow their rates and are reproducible with the same seed', async () => {
    async function statuses(seed: number): Promise<number[]> {
      const seeded = await startSimulator({ seed });
      try {
        const seededToken = await getToken(seeded);
        seeded.faults.set({ rate503: 0.3, rate429: 0.2 });
        const results: number[] = [];
        for (let index = 0; index < 60; index += 1) {
          results.push((await readRequest(seeded, seededToken, 'sr_a')).status);
        }
        return results;
      } finally {
        await seeded.close();
      }
    }
    const first = await statuses(7);
    expect(await statuses(7)).toEqual(first);
    expect(new Set(first)).toEqual(new Set([404, 429, 503]));
  });

  it('apply only to paths matching pathPattern, and stop on reset', async () => {
    simulator.faults.set({ rate503: 1, pathPattern: '^/api/v1/uploads$' });
    expect((await readRequest(simulator, token, 'sr_a')).status).toBe(404);
    expect((await uploadPdf(simulator, token)).status).toBe(503);
    simulator.faults.reset();
    expect((await uploadPdf(simulator, token)).status).toBe(201);
  });

  it('refuse invalid settings', () => {
    expect(() => simulator.faults.set({ rate503: 1.5 })).toThrow(RangeError);
    expect(() => simulator.faults.set({ pathPattern: '(' })).toThrow(SyntaxError);
    expect(() => simulator.faults.enqueue({ kind: '503', pathPattern: '[' })).toThrow(SyntaxError);
  });
});

describe('latency', () => {
  // The latency runs on the simulator's time source: on a virtual clock the answer is held back
  // exactly the latency asked for, in virtual time, and the test waits for the answer itself.
  let held: Simulator;
  let clock: VirtualClock;
  let heldToken: string;

  beforeEach(async () => {
    ({ sim: held, clock } = await startVirtualSimulator({ seed: 42 }));
    heldToken = await getToken(held);
  });

  afterEach(async () => {
    await held.close();
  });

  /** The answer to `call`, and the virtual time it took to come. */
  async function timed<T>(call: Promise<T>): Promise<{ answer: T; tookMs: number }> {
    const started = clock.monotonic();
    const answer = await clock.complete(call);
    return { answer, tookMs: clock.monotonic() - started };
  }

  it('delays every API answer', async () => {
    held.faults.set({ latencyMs: 300 });
    const { answer, tookMs } = await timed(readRequest(held, heldToken, 'sr_a'));
    expect(answer.status).toBe(404);
    expect(tookMs).toBe(300);
    // The token endpoint is held back too.
    expect((await timed(getToken(held))).tookMs).toBe(300);
  });

  it('holds the answer back until the latency has passed', async () => {
    held.faults.set({ latencyMs: 300 });
    let answered = false;
    const reading = readRequest(held, heldToken, 'sr_a').then((answer) => {
      answered = true;
      return answer;
    });
    await clock.runUntil(() => held.state.callsUnderWay() === 1 && clock.pendingTimers === 1, {
      what: 'the read waiting at the service',
    });
    await clock.advance(299);
    expect(answered).toBe(false);
    await clock.advance(1);
    await clock.runUntil(() => answered, { what: 'the answer once the latency passed' });
    expect((await reading).status).toBe(404);
  });

  it('adds spikes at their rate', async () => {
    held.faults.set({ latencySpikeRate: 1, latencySpikeMs: 250 });
    expect((await timed(readRequest(held, heldToken, 'sr_a'))).tookMs).toBe(250);
    held.faults.set({ latencyMs: 100, latencySpikeRate: 1, latencySpikeMs: 250 });
    expect((await timed(readRequest(held, heldToken, 'sr_a'))).tookMs).toBe(350);
    held.faults.set({ latencyMs: 100, latencySpikeRate: 0, latencySpikeMs: 250 });
    expect((await timed(readRequest(held, heldToken, 'sr_a'))).tookMs).toBe(100);
  });

  it('does not delay the control API', async () => {
    held.faults.set({ latencyMs: 2_000 });
    const { answer, tookMs } = await timed(
      rawRequest(held.baseUrl, { method: 'GET', path: '/__simulator/state' }),
    );
    expect(answer.kind === 'answered' && answer.status).toBe(200);
    expect(tookMs).toBe(0);
  });
});
