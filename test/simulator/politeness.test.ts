import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  IN_FLIGHT_GRACE_MS,
  MIN_READ_SPACING_MS,
  PolitenessWatch,
  type WatchedCall,
} from '../../simulator/politeness';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import {
  JSON_HEADERS,
  createDraftRequest,
  fetchJson,
  getToken,
  keepAliveClient,
  rawRequest,
  readRequest,
  samplePdf,
  uploadPdf,
} from './test-support';
import { variantNamed } from '../../simulator/variants';
import { violationsOfKind } from '../../simulator/violations';

describe('PolitenessWatch, at the exact boundaries', () => {
  // The Retry-After answers below are written on connection 1.
  let lines: string[];
  let watch: PolitenessWatch;
  let sequence: number;
  const call = (operation: WatchedCall['operation'], arrivedAt: number, extra: Partial<WatchedCall> = {}) => {
    sequence += 1;
    watch.checkCall({
      method: 'GET',
      path: '/api/v1/signing-requests/sr_1',
      operation,
      client: 'demo-desk',
      arrivedAt,
      sequence,
      connection: 1,
      requestId: 'sr_1',
      ...extra,
    });
  };
  const retryAfter = (writtenAt: number, until: number, client = 'demo-desk') => {
    sequence += 1;
    watch.noteRetryAfter(
      { method: 'POST', path: '/api/v1/uploads', operation: 'upload', client, connection: 1 },
      { status: 429, retryAfter: '2', writtenAt, sequence, until },
    );
  };

  beforeEach(() => {
    lines = [];
    sequence = 0;
    watch = new PolitenessWatch((kind, description) => lines.push(`${kind}: ${description}`));
  });

  it('flags a call 1 ms before the Retry-After ends, not one at its end', () => {
    retryAfter(10_000, 12_000);
    call('upload', 11_999);
    expect(lines).toEqual([
      'retry-after: GET /api/v1/signing-requests/sr_1 by demo-desk 1 ms before the Retry-After given at ' +
        '1970-01-01T00:00:10.000Z ended (429 to POST /api/v1/uploads, Retry-After: 2)',
    ]);
    call('upload', 12_000);
    expect(lines).toHaveLength(1);
  });

  it('holds only the same operation of the same client, and only calls that arrived after the answer', () => {
    // Arrived in the same millisecond, but before the 429 was written: it could not know.
    sequence += 1;
    const earlier = {
      method: 'POST',
      path: '/api/v1/uploads',
      client: 'demo-desk',
      arrivedAt: 10_000,
      connection: 1,
    };
    const earlierSequence = sequence;
    retryAfter(10_000, 12_000);
    watch.checkCall({ ...earlier, operation: 'upload', sequence: earlierSequence });
    call('createSigningRequest', 10_500);
    call('upload', 10_500, { client: 'other-desk' });
    call('widgetPage', 10_500);
    expect(lines).toEqual([]);
  });

  it('excuses a call on another connection up to 499 ms after the answer was written, not one 500 ms after', () => {
    expect(IN_FLIGHT_GRACE_MS).toBe(500);
    retryAfter(10_000, 12_000);
    call('upload', 10_000, { connection: 2 });
    call('upload', 10_499, { connection: 3 });
    expect(lines).toEqual([]);
    call('upload', 10_500, { connection: 2 });
    expect(lines).toEqual([
      expect.stringMatching(/^retry-after: .* by demo-desk 1500 ms before the Retry-After/),
    ]);
  });

  it('never excuses a later call on the connection that carried the answer', () => {
    retryAfter(10_000, 12_000);
    call('upload', 10_001, { connection: 1 });
    expect(lines).toEqual([
      expect.stringMatching(/^retry-after: .* by demo-desk 1999 ms before the Retry-After/),
    ]);
    call('upload', 10_000, { connection: 1 }); // same millisecond, but after the answer was written
    expect(lines).toHaveLength(2);
  });

  it('counts the grace from each answer: a later answer does not excuse a breach of an earlier one', () => {
    retryAfter(10_000, 12_000);
    retryAfter(10_600, 12_600);
    call('upload', 10_620, { connection: 2 }); // 20 ms after the second answer, 620 ms after the first
    expect(lines).toEqual([
      expect.stringMatching(/^retry-after: .* 1380 ms before the Retry-After given at \S+:10\.000Z/),
    ]);
  });

  it(`flags two reads of one request ${MIN_READ_SPACING_MS - 1} ms apart, not ${MIN_READ_SPACING_MS} ms apart`, () => {
    call('readSigningRequest', 0);
    call('readSigningRequest', MIN_READ_SPACING_MS);
    expect(lines).toEqual([]);
    call('readSigningRequest', 2 * MIN_READ_SPACING_MS - 1);
    expect(lines).toEqual([
      'read-spacing: GET /api/v1/signing-requests/sr_1 by demo-desk 4999 ms after the previous read of it (at least 5000 ms apart)',
    ]);
    call('readSigningRequest', 2 * MIN_READ_SPACING_MS - 1, { requestId: 'sr_2' });
    call('readSigningRequest', 2 * MIN_READ_SPACING_MS - 1, { client: 'other-desk' });
    expect(lines).toHaveLength(1);
  });
});

describe('politeness over HTTP', () => {
  let simulator: Simulator;
  let token: string;

  beforeEach(async () => {
    simulator = await startSimulator({ seed: 3 });
    token = await getToken(simulator);
  });

  afterEach(async () => {
    await simulator.close();
  });

  const retryAfterLines = () => violationsOfKind(simulator.state.violations(), 'retry-after');
  /**
   * Moves the service's time 50 ms past the grace (politeness is judged by the simulator clock):
   * a call sent after it on any connection is held to the Retry-After.
   */
  const pastTheGrace = () => simulator.clock.advance(IN_FLIGHT_GRACE_MS + 50);

  it('flags an upload sent again before a 429 Retry-After ended', async () => {
    simulator.faults.enqueue({ kind: '429', retryAfterSeconds: 2 });
    expect((await uploadPdf(simulator, token)).status).toBe(429);
    pastTheGrace();
    expect((await uploadPdf(simulator, token)).status).toBe(201);
    expect(retryAfterLines()).toEqual([
      expect.stringMatching(
        /^retry-after: POST \/api\/v1\/uploads by demo-desk \d+ ms before the Retry-After given at \S+Z ended \(429 to POST \/api\/v1\/uploads, Retry-After: 2\)$/,
      ),
    ]);
  });

  it('lets a client that waits exactly the Retry-After go on, and other operations meanwhile', async () => {
    simulator.faults.enqueue({ kind: '503', retryAfterSeconds: 2 });
    expect((await uploadPdf(simulator, token)).status).toBe(503);
    expect((await readRequest(simulator, token, 'sr_other')).status).toBe(404);
    simulator.clock.advance(2_000);
    expect((await uploadPdf(simulator, token)).status).toBe(201);
    expect(simulator.state.violations()).toEqual([]);
  });

  it('flags the next call on the connection that carried the 429 at once', async () => {
    const client = keepAliveClient(simulator.baseUrl);
    try {
      const upload = {
        method: 'POST',
        path: '/api/v1/uploads',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'content-type': 'application/pdf' },
        body: samplePdf(),
      };
      simulator.faults.enqueue({ kind: '429', retryAfterSeconds: 5 });
      expect(await client.send(upload)).toEqual({ status: 429, reusedSocket: false });
      expect(await client.send(upload)).toEqual({ status: 201, reusedSocket: true });
    } finally {
      client.close();
    }
    expect(retryAfterLines()).toEqual([
      expect.stringMatching(/^retry-after: POST \/api\/v1\/uploads by demo-desk 4\d{3} ms before/),
    ]);
  });

  it('excuses calls already on their way on other connections, not a call on a new connection sent past the grace after the answer', async () => {
    simulator.faults.enqueue({ kind: '429', retryAfterSeconds: 5 });
    const together = await Promise.all([1, 2, 3].map(() => uploadPdf(simulator, token)));
    expect(together.map((answer) => answer.status).sort()).toEqual([201, 201, 429]);
    expect(simulator.state.violations()).toEqual([]);
    pastTheGrace();
    const fresh = await rawRequest(simulator.baseUrl, {
      method: 'POST',
      path: '/api/v1/uploads',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'content-type': 'application/pdf' },
      body: samplePdf(),
    });
    expect(fresh.kind === 'answered' && fresh.status).toBe(201);
    expect(retryAfterLines()).toHaveLength(1);
  });

  it('holds only the client that was told to wait', async () => {
    const other = {
      clientId: 'other-desk',
      clientSecret: 'other-secret',
      scopes: ['signing.create' as const],
    };
    simulator.addClient(other);
    const otherToken = await getToken(simulator, other);
    simulator.faults.enqueue({ kind: '429', retryAfterSeconds: 5 });
    expect((await uploadPdf(simulator, token)).status).toBe(429);
    expect((await uploadPdf(simulator, otherToken)).status).toBe(201);
    expect(simulator.state.violations()).toEqual([]);
  });

  it('counts random faults too', async () => {
    simulator.faults.set({ rate503: 1, retryAfterSeconds: 1, pathPattern: '^/api/v1/uploads$' });
    await uploadPdf(simulator, token);
    pastTheGrace();
    await uploadPdf(simulator, token);
    expect(retryAfterLines()).toHaveLength(1);
  });

  it('holds token calls by the client_id of the form, whatever the form carried', async () => {
    simulator.faults.enqueue({ kind: '429', retryAfterSeconds: 1 });
    await expect(getToken(simulator)).rejects.toThrow(/429/);
    pastTheGrace();
    await getToken(simulator);
    expect(retryAfterLines()).toEqual([
      expect.stringMatching(/^retry-after: POST \/oauth\/token by demo-desk /),
    ]);
  });

  it('reads the client_id of a faulted token form even when it arrived with the headers', async () => {
    const form = 'grant_type=client_credentials&client_id=demo-desk&client_secret=demo-desk-secret';
    simulator.faults.enqueue({ kind: '429', retryAfterSeconds: 1 });
    const refused = await rawRequest(simulator.baseUrl, {
      method: 'POST',
      path: '/oauth/token',
      headers: {
        ...JSON_HEADERS,
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(form.length),
      },
      body: form,
    });
    expect(refused.kind === 'answered' && refused.status).toBe(429);
    pastTheGrace();
    await getToken(simulator);
    expect(retryAfterLines()).toEqual([
      expect.stringMatching(/^retry-after: POST \/oauth\/token by demo-desk /),
    ]);
  });

  it('holds token calls without a client_id by the caller’s IP', async () => {
    const bare = () =>
      fetchJson(`${simulator.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
    simulator.faults.enqueue({ kind: '503', retryAfterSeconds: 1 });
    expect((await bare()).status).toBe(503);
    pastTheGrace();
    expect((await bare()).status).toBe(401);
    expect(retryAfterLines()).toEqual([
      expect.stringMatching(/^retry-after: POST \/oauth\/token by 127\.0\.0\.1 /),
    ]);
  });

  it('uses the instant an HTTP-date Retry-After names', async () => {
    await simulator.close();
    simulator = await startSimulator({ variant: variantNamed('http-date-extras') });
    token = await getToken(simulator);
    simulator.faults.enqueue({ kind: '429', retryAfterSeconds: 1 });
    const refused = await uploadPdf(simulator, token);
    const named = Date.parse(refused.headers.get('retry-after') ?? '');
    // The named instant is at least 1 s after the answer; 500 ms before it is past the grace.
    simulator.clock.advance(Math.max(0, named - simulator.clock.now() - 500));
    await uploadPdf(simulator, token); // still before the named instant
    expect(retryAfterLines()).toHaveLength(1);
    simulator.clock.advance(Math.max(0, named - simulator.clock.now()));
    await uploadPdf(simulator, token);
    expect(retryAfterLines()).toHaveLength(1);
  });

  it('flags two reads of one request less than 5 s apart, whatever their answers', async () => {
    const id = await createDraftRequest(simulator, token);
    await readRequest(simulator, token, id);
    simulator.faults.enqueue({ kind: '503', retryAfterSeconds: 0 });
    expect((await readRequest(simulator, token, id)).status).toBe(503);
    await readRequest(simulator, token, 'sr_unknown');
    await readRequest(simulator, token, 'sr_unknown');
    expect(violationsOfKind(simulator.state.violations(), 'read-spacing')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^read-spacing: GET /api/v1/signing-requests/${id} by demo-desk \\d+ ms after the previous read of it \\(at least 5000 ms apart\\)$`,
        ),
      ),
      expect.stringMatching(/^read-spacing: GET \/api\/v1\/signing-requests\/sr_unknown by demo-desk /),
    ]);
  });

  it('lets reads 5,001 ms apart, and reads of different requests, pass', async () => {
    const first = await createDraftRequest(simulator, token);
    const second = await createDraftRequest(simulator, token);
    await readRequest(simulator, token, first);
    await readRequest(simulator, token, second);
    simulator.clock.advance(5_001);
    await readRequest(simulator, token, first);
    expect(simulator.state.violations()).toEqual([]);
  });
});
