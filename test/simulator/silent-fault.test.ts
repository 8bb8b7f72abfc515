import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../simulator/simulator';
import {
  JSON_HEADERS,
  newIdempotencyKey,
  rawRequest,
  samplePdf,
  signingRequestBody,
  startUpload,
  waitFor,
  type RawOutcome,
} from './test-support';

let simulator: Simulator | undefined;

afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

/**
 * A call on a connection closed after its answer (fetch would keep it open, and a test that
 * waits for every connection to close would wait for it): its status and JSON body.
 */
async function callOnce(
  sim: Simulator,
  options: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const outcome = await rawRequest(sim.baseUrl, {
    ...options,
    headers: { ...JSON_HEADERS, ...options.headers },
  });
  if (outcome.kind !== 'answered')
    throw new Error(`${options.method} ${options.path} failed: ${outcome.code}`);
  return { status: outcome.status, body: JSON.parse(outcome.text) as Record<string, unknown> };
}

async function tokenOnce(sim: Simulator): Promise<string> {
  const answer = await callOnce(sim, {
    method: 'POST',
    path: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: DEMO_CLIENT.clientId,
      client_secret: DEMO_CLIENT.clientSecret,
    }).toString(),
  });
  return answer.body.access_token as string;
}

/** One call over node:http on a connection of its own, with a way to give up on it. */
function openCall(
  sim: Simulator,
  options: { method: string; path: string; headers: Record<string, string>; body?: string },
): { outcome: Promise<RawOutcome>; closed(): boolean; giveUp(): void } {
  const url = new URL(options.path, sim.baseUrl);
  const request = httpRequest({
    method: options.method,
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    headers: options.headers,
    agent: false,
  });
  const outcome = new Promise<RawOutcome>((resolve) => {
    request.on('response', (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ kind: 'answered', status: response.statusCode ?? 0, headers: response.headers, text: '' }),
      );
    });
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ kind: 'network', code: error.code ?? 'ERROR' }),
    );
  });
  request.end(options.body);
  return { outcome, closed: () => request.socket?.destroyed ?? false, giveUp: () => request.destroy() };
}

/** Resolves with 'pending' when `promise` has not settled by the time the event loop turns twice. */
async function stillPending(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  const first = await Promise.race([promise, new Promise((resolve) => setImmediate(() => resolve(marker)))]);
  return first === marker;
}

describe('a connection that goes silent without closing (fault `silent`)', () => {
  it('a read goes silent: logged at once with status null, never answered, the connection left open until its client gives up', async () => {
    simulator = await startSimulator();
    const sim = simulator;
    const token = await tokenOnce(sim);
    sim.faults.enqueue({ kind: 'silent', pathPattern: '^/api/v1/signing-requests/' });
    const call = openCall(sim, {
      method: 'GET',
      path: '/api/v1/signing-requests/sr_frozen',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    });
    const [logged] = await waitFor(
      () => sim.state.calls().filter((record) => record.operation === 'readSigningRequest'),
      (records) => records.length === 1,
    );
    expect(logged).toMatchObject({
      path: '/api/v1/signing-requests/sr_frozen',
      status: null,
      fault: 'silent',
    });
    expect(await stillPending(call.outcome)).toBe(true);
    expect(call.closed()).toBe(false);
    // Nothing more will arrive on it: it does not keep a test that waits for the connections.
    await sim.connectionsClosed(1_000);
    call.giveUp();
    expect(await call.outcome).toMatchObject({ kind: 'network' });
    // The next read (6 s later by the clock) is answered, and nobody broke a rule.
    sim.clock.advance(6_000);
    const again = await callOnce(sim, {
      method: 'GET',
      path: '/api/v1/signing-requests/sr_frozen',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(again.status).toBe(404);
    expect(sim.state.violations()).toEqual([]);
  });

  it('an upload goes silent after afterBytes: the service holds exactly that many, the client bytes stop on an open connection, close() ends it', async () => {
    simulator = await startSimulator();
    const sim = simulator;
    const token = await tokenOnce(sim);
    const bodyBytes = 32 * 1024 * 1024;
    sim.faults.enqueue({ kind: 'silent', pathPattern: '^/api/v1/uploads$', afterBytes: 1_000_000 });
    const upload = startUpload(sim, token, { bytes: bodyBytes });
    await waitFor(sim.uplink.receivedBytes, (received) => received >= 1_000_000);
    // The client writes until the system's buffers between it and the service are full, then stops.
    let previous = -1;
    await waitFor(
      () => {
        const written = upload.bytesWritten();
        const settled = written === previous;
        previous = written;
        return settled;
      },
      (settled) => settled,
      200,
    );
    expect(upload.bytesWritten()).toBeLessThan(bodyBytes);
    expect(sim.uplink.receivedBytes()).toBe(1_000_000);
    expect(sim.uplink.receivedByConnection()).toEqual([
      { connection: expect.any(Number), clientPort: upload.localPort(), receivedBytes: 1_000_000 },
    ]);
    expect(upload.closed()).toBe(false);
    expect(await stillPending(upload.outcome)).toBe(true);
    expect(sim.state.calls().filter((call) => call.operation === 'upload')).toEqual([
      expect.objectContaining({ status: null, fault: 'silent', receivedBytes: 1_000_000 }),
    ]);
    expect(sim.state.uploads()).toEqual([]);
    await sim.close();
    simulator = undefined;
    expect(await upload.outcome).toMatchObject({ kind: 'network' });
  });

  it('silentAfter: the call is processed, its answer never comes, the connection stays open', async () => {
    simulator = await startSimulator();
    const sim = simulator;
    const token = await tokenOnce(sim);
    const uploaded = await callOnce(sim, {
      method: 'POST',
      path: '/api/v1/uploads',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/pdf' },
      body: samplePdf(),
    });
    const uploadId = uploaded.body.upload_id as string;
    sim.faults.enqueue({ kind: 'silentAfter', pathPattern: '^/api/v1/signing-requests$' });
    const call = openCall(sim, {
      method: 'POST',
      path: '/api/v1/signing-requests',
      headers: {
        ...JSON_HEADERS,
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': newIdempotencyKey(),
      },
      body: JSON.stringify(signingRequestBody(uploadId)),
    });
    await waitFor(
      () => sim.state.calls().filter((record) => record.operation === 'createSigningRequest'),
      (records) => records.length === 1,
    );
    expect(sim.state.calls().at(-1)).toMatchObject({ status: null, fault: 'silentAfter' });
    expect(sim.state.countByExternalReference()).toEqual({ 'HR-2026-001': 1 });
    expect(await stillPending(call.outcome)).toBe(true);
    expect(call.closed()).toBe(false);
    call.giveUp();
    await sim.connectionsClosed(1_000);
  });

  it('silentRate makes calls go silent at random (seeded); close() ends them at once', async () => {
    simulator = await startSimulator({ seed: 1 });
    const sim = simulator;
    const token = await tokenOnce(sim);
    sim.faults.set({ silentRate: 1, pathPattern: '^/api/v1/uploads$' });
    const upload = startUpload(sim, token, { bytes: 200_000 });
    await waitFor(
      () => sim.state.calls().filter((record) => record.operation === 'upload'),
      (records) => records.length === 1,
    );
    expect(sim.state.calls().at(-1)).toMatchObject({ status: null, fault: 'silent', receivedBytes: 0 });
    expect(upload.closed()).toBe(false);
    await sim.close();
    simulator = undefined;
    expect(await upload.outcome).toMatchObject({ kind: 'network' });
  });
});
