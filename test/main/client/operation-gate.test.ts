import { clockReading } from '../../support/clocks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { READ_SPACING_MS } from '../../../main/client/read-spacing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_OPERATION_HOLD_MS } from '../../../main/domain/service-failure';
import { OperationGate, PROBE_ALONE_MS } from '../../../main/client/operation-gate';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type CallRecord, type Simulator } from '../../../simulator/simulator';
import {
  expectFailure,
  expectOk,
  makeTestClient,
  uploadSourceOf,
  type CapturedLog,
} from '../../support/client-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import { startScriptedServer, tokenWithoutLifetime } from '../../support/scripted-server';
import { startVirtualSimulator } from '../../support/virtual-world';

const UPLOADS = '^/api/v1/uploads$';

/** The service, its scripted stand-ins and every client of a test on one virtual clock. */
let sim: Simulator;
let clock: VirtualClock;
let files: TempFolder;
let pdfPath: string;

beforeAll(async () => {
  files = makeTempFolder();
  pdfPath = await writePdf(files, 'gate.pdf', 'Retry-After for everyone');
});
afterAll(() => files.remove());
beforeEach(async () => {
  ({ sim, clock } = await startVirtualSimulator({ seed: 11 }));
});
afterEach(async () => {
  await sim.close();
});

function uploadCalls(): CallRecord[] {
  return sim.state.calls().filter((call) => call.path === '/api/v1/uploads');
}

/** True once the client has read a pause and holds the operation (it logs its own retry). */
function knowsOfPause(log: CapturedLog): () => boolean {
  return () => log.lines.some((line) => line.includes('"event":"service.retry"'));
}

/** Lets virtual time run until `condition` holds. */
function until(condition: () => boolean): Promise<void> {
  return clock.runUntil(condition, { what: 'the awaited outcome' });
}

/** Lets virtual time run until `work` has ended. */
function run<T>(work: Promise<T>): Promise<T> {
  return clock.complete(work);
}

describe('a Retry-After holds back every caller of the operation', () => {
  it('8 callers uploading: after one 429 (Retry-After 1 s) no upload leaves inside that second', async () => {
    /** When the client took the hold in, and until when it holds uploads (its clock). */
    const holds: { at: number; until: number }[] = [];
    const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, {
      onHold: (operation, until) => {
        if (operation === 'uploadDocument') holds.push({ at: clock.now(), until });
      },
      clock,
    });
    expectOk(await run(client.testConnection()));
    // Every upload the client puts on the wire, when it leaves (undici's diagnostics channel).
    const departures: number[] = [];
    const depart = (message: unknown) => {
      const request = (message as { request: { path: string } }).request;
      if (request.path === '/api/v1/uploads') departures.push(clock.now());
    };
    subscribe('undici:request:create', depart);
    sim.faults.enqueue({ kind: '429', retryAfterSeconds: 1, pathPattern: UPLOADS });
    try {
      // Each caller uploads again as soon as its last upload ends, as the engine's slots do.
      await run(
        Promise.all(
          Array.from({ length: 8 }, async () => {
            for (let round = 0; round < 4; round += 1)
              expectOk(await client.uploadDocument(uploadSourceOf(pdfPath)));
          }),
        ),
      );
    } finally {
      unsubscribe('undici:request:create', depart);
    }
    const uploads = uploadCalls();
    expect(uploads.filter((call) => call.status === 429)).toHaveLength(1);
    const [hold] = holds;
    expect(holds).toHaveLength(1);
    if (!hold) return;
    expect(hold.until - hold.at).toBeGreaterThanOrEqual(999);
    expect(hold.until - hold.at).toBe(1000);
    // Uploads already on their way when the 429 came may still arrive; none leaves once the
    // client knows, until the second is over.
    const held = departures.filter((at) => at > hold.at && at < hold.until);
    expect(held).toEqual([]);
    expect(uploads.filter((call) => call.status === 201)).toHaveLength(32);
  });

  it('when the pause ends, one upload goes first alone; a second 429 to it holds the others again', async () => {
    const { client, log } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock });
    expectOk(await run(client.testConnection()));
    sim.faults.enqueue(
      { kind: '429', retryAfterSeconds: 1, pathPattern: UPLOADS },
      { kind: '429', retryAfterSeconds: 1, pathPattern: UPLOADS },
    );
    const first = client.uploadDocument(uploadSourceOf(pdfPath));
    await until(knowsOfPause(log));
    // Seven callers arrive during the pause and wait for it to end.
    const others = Array.from({ length: 7 }, () => client.uploadDocument(uploadSourceOf(pdfPath)));
    for (const result of await run(Promise.all([first, ...others]))) expectOk(result);
    const uploads = uploadCalls();
    const [firstLimited, secondLimited] = uploads.filter((call) => call.status === 429);
    const firstAt = Date.parse(firstLimited?.at ?? '');
    const secondAt = Date.parse(secondLimited?.at ?? '');
    expect(secondAt - firstAt).toBeGreaterThanOrEqual(1000);
    // Between the two 429s, and until the second pause ends, nothing else arrived.
    const between = uploads.filter(
      (call) => call !== firstLimited && call !== secondLimited && Date.parse(call.at) < secondAt + 1000,
    );
    expect(between).toEqual([]);
    expect(uploads.filter((call) => call.status === 201)).toHaveLength(8);
  });

  it('reads and creations are not held back by an upload’s 429', async () => {
    const { client, log } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock });
    expectOk(await run(client.testConnection()));
    // Past the hold on a new client's first reads, so only the upload's 429 could hold this read.
    await clock.advance(READ_SPACING_MS);
    sim.faults.enqueue({ kind: '429', retryAfterSeconds: 2, pathPattern: UPLOADS });
    const held = client.uploadDocument(uploadSourceOf(pdfPath));
    await until(knowsOfPause(log));
    const limitedAt = Date.parse(uploadCalls()[0]?.at ?? '');

    const started = clock.monotonic();
    const read = expectFailure(await run(client.getSigningRequest('sr_unknown')));
    expect(read.code).toBe('signing_request_not_found');
    // Read at once, inside the uploads' pause.
    expect(clock.monotonic() - started).toBe(0);

    const second = client.uploadDocument(uploadSourceOf(pdfPath));
    for (const upload of await run(Promise.all([held, second]))) expectOk(upload);
    for (const call of uploadCalls().slice(1))
      expect(Date.parse(call.at)).toBeGreaterThanOrEqual(limitedAt + 1990);
  });

  it('a hold longer than maxRetryAfterMs is not waited for: callers get it back at once, nothing is sent', async () => {
    const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock }); // maxRetryAfterMs: 5 s
    expectOk(await run(client.testConnection()));
    sim.faults.enqueue({ kind: '429', retryAfterSeconds: 30, pathPattern: UPLOADS });
    const first = expectFailure(await run(client.uploadDocument(uploadSourceOf(pdfPath))));
    expect(first).toMatchObject({
      httpStatus: 429,
      code: 'rate_limited',
      retryable: true,
      retryAfterMs: 30_000,
    });

    const attempts: number[] = [];
    const started = clock.monotonic();
    const second = expectFailure(
      await run(
        client.uploadDocument(uploadSourceOf(pdfPath), {
          onAttempt: (attempt) => attempts.push(attempt),
        }),
      ),
    );
    // Given back at once: no wait at all.
    expect(clock.monotonic() - started).toBe(0);
    expect(second).toMatchObject({
      code: 'rate_limited',
      retryable: true,
      outcomeUnknown: false,
      attempts: 0,
    });
    expect(second.httpStatus).toBeUndefined();
    expect(second.retryAfterMs).toBeGreaterThan(28_000);
    expect(second.retryAfterMs).toBeLessThanOrEqual(30_000);
    expect(second.message).toContain('slow down');
    expect(attempts).toEqual([]);
    expect(uploadCalls()).toHaveLength(1);
  });

  it('a caller waiting at the gate can abort: it rejects at once and nothing leaves', async () => {
    const { client, log } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock });
    expectOk(await run(client.testConnection()));
    sim.faults.enqueue({ kind: '429', retryAfterSeconds: 3, pathPattern: UPLOADS });
    const first = new AbortController();
    const held = client.uploadDocument(uploadSourceOf(pdfPath), { signal: first.signal });
    await until(knowsOfPause(log));

    const second = new AbortController();
    const attempts: number[] = [];
    clock.timer(100, () => second.abort(new Error('paused by user')));
    const started = clock.monotonic();
    await run(
      expect(
        client.uploadDocument(uploadSourceOf(pdfPath), {
          signal: second.signal,
          onAttempt: (attempt) => attempts.push(attempt),
        }),
      ).rejects.toThrow('paused by user'),
    );
    // At the abort, not at the end of the 3 s pause.
    expect(clock.monotonic() - started).toBe(100);
    expect(attempts).toEqual([]);
    first.abort(new Error('test over'));
    await run(expect(held).rejects.toThrow('test over'));
    expect(uploadCalls()).toHaveLength(1);
  });
});

describe('onAttempt', () => {
  it('is told right before each attempt leaves, after the wait the gate imposed', async () => {
    const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock });
    expectOk(await run(client.testConnection()));
    sim.faults.enqueue({ kind: '429', retryAfterSeconds: 1, pathPattern: '^/api/v1/signing-requests$' });
    const toldAt: number[] = [];
    const created = expectOk(
      await run(
        client.createSigningRequest(
          {
            external_reference: 'GATE-1',
            document: { upload_id: expectOk(await client.uploadDocument(uploadSourceOf(pdfPath))).upload_id },
            recipients: [
              { participant_type: 'signer', role: 'Signer', name: 'Ada', email: 'ada@example.com' },
            ],
          },
          'gate-key-1',
          { onAttempt: (attempt) => toldAt.push(attempt === toldAt.length + 1 ? clock.now() : Number.NaN) },
        ),
      ),
    );
    expect(created.id).toMatch(/^sr_/);
    const arrivals = sim.state
      .calls()
      .filter((call) => call.path === '/api/v1/signing-requests')
      .map((call) => Date.parse(call.at));
    expect(toldAt).toHaveLength(2);
    expect(arrivals).toHaveLength(2);
    for (const [index, at] of toldAt.entries()) {
      const arrival = arrivals[index] ?? Number.NaN;
      // Told at the very instant it left (time does not move while a call is on the wire).
      expect(arrival - at).toBe(0);
    }
    expect((toldAt[1] ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(1000);
  });
});

describe('a 503 with Retry-After, as seconds or as an HTTP date', () => {
  it.each([
    ['seconds', () => '2'],
    ['an HTTP date', () => new Date(clock.now() + 2000).toUTCString()],
  ])(
    'holds back other callers of the operation (Retry-After as %s), not other operations',
    async (_, retryAfter) => {
      const arrivals: { url: string; at: number }[] = [];
      let prepares = 0;
      const server = await startScriptedServer(
        (request) => {
          if (request.url === '/oauth/token') return tokenWithoutLifetime;
          arrivals.push({ url: request.url ?? '', at: clock.now() });
          if (request.url?.endsWith('/prepare')) {
            prepares += 1;
            if (prepares === 1)
              return {
                status: 503,
                body: '{"error":{"code":"upstream_unavailable","message":"busy"}}',
                headers: { 'retry-after': retryAfter() },
              };
            return { status: 200, body: '{"status":"prepared","document":{"revision":1,"sha256":"ab"}}' };
          }
          return {
            status: 200,
            body: '{"id":"sr_x","widget_url":"https://w.example/x","expires_in_seconds":60}',
          };
        },
        { clock },
      );
      try {
        const { client, log } = makeTestClient(
          server.baseUrl,
          { clientId: 'desk', clientSecret: 's' },
          { clock },
        );
        const first = client.prepareSigningRequest('sr_a');
        await until(knowsOfPause(log));
        const heldFrom = arrivals[0]?.at ?? 0;
        const other = client.prepareSigningRequest('sr_b');
        expectOk(await run(client.createWidgetSession('sr_c')));
        // Not held: answered at the instant the pause began.
        expect(clock.now() - heldFrom).toBe(0);
        for (const prepared of await run(Promise.all([first, other]))) expectOk(prepared);
        const laterPrepares = arrivals.filter((arrival) => arrival.url.endsWith('/prepare')).slice(1);
        expect(laterPrepares).toHaveLength(2);
        // An HTTP date has whole seconds: the instant it names is at least 1 s away.
        for (const arrival of laterPrepares) expect(arrival.at - heldFrom).toBeGreaterThanOrEqual(1000);
      } finally {
        await server.close();
      }
    },
  );

  it('a 503 without Retry-After holds back only the call that got it', async () => {
    let prepares = 0;
    const server = await startScriptedServer(
      (request) => {
        if (request.url === '/oauth/token') return tokenWithoutLifetime;
        prepares += 1;
        return prepares === 1
          ? { status: 503, body: '{"error":{"code":"upstream_unavailable","message":"busy"}}' }
          : { status: 200, body: '{"status":"prepared","document":{"revision":1,"sha256":"ab"}}' };
      },
      { clock },
    );
    try {
      const { client } = makeTestClient(
        server.baseUrl,
        { clientId: 'desk', clientSecret: 's' },
        {
          retry: { baseDelayMs: 2000, maxDelayMs: 2000, maxAttempts: 3, maxRetryAfterMs: 5000 },
          random: () => 0.99,
          clock,
        },
      );
      const limited = client.prepareSigningRequest('sr_a');
      await until(() => prepares >= 1);
      const started = clock.monotonic();
      expectOk(await run(client.prepareSigningRequest('sr_b')));
      // Another caller of the operation goes at once.
      expect(clock.monotonic() - started).toBe(0);
      expectOk(await run(limited));
      expect(clock.monotonic() - started).toBeGreaterThanOrEqual(1500);
    } finally {
      await server.close();
    }
  });
});

describe('OperationGate', () => {
  it('never shortens a hold, caps one at a day, and forgets it once passed', () => {
    let now = 1000;
    const gate = new OperationGate(clockReading(() => now));
    gate.hold('uploadDocument', 5000, 'rate_limited');
    gate.hold('uploadDocument', 1000, 'upstream_unavailable');
    expect(gate.remaining('uploadDocument')).toEqual({ remainingMs: 5000, code: 'rate_limited' });
    expect(gate.check('uploadDocument')).toEqual({ kind: 'held', remainingMs: 5000, code: 'rate_limited' });
    expect(gate.remaining('readSigningRequest')).toBeUndefined();
    now += 5000;
    expect(gate.remaining('uploadDocument')).toBeUndefined();
    gate.hold('createSigningRequest', Number.POSITIVE_INFINITY, 'rate_limited');
    expect(gate.remaining('createSigningRequest')?.remainingMs).toBe(MAX_OPERATION_HOLD_MS);
    gate.hold('addParticipant', 0, 'upstream_unavailable');
    expect(gate.check('addParticipant')).toEqual({ kind: 'go' });
  });

  it('after a pause lets one attempt through alone until it is answered, or PROBE_ALONE_MS has passed', () => {
    let now = 0;
    const gate = new OperationGate(clockReading(() => now));
    gate.hold('uploadDocument', 1000, 'rate_limited');
    now = 1000;
    expect(gate.check('uploadDocument')).toEqual({ kind: 'go' });
    const probe = gate.pass('uploadDocument');
    expect(gate.check('uploadDocument')).toMatchObject({ kind: 'probing', maxWaitMs: PROBE_ALONE_MS });
    // Learned nothing (the connection dropped): the next attempt goes alone in its place.
    probe.finish(false);
    expect(gate.check('uploadDocument')).toEqual({ kind: 'go' });
    const second = gate.pass('uploadDocument');
    now += PROBE_ALONE_MS;
    expect(gate.check('uploadDocument')).toEqual({ kind: 'go' });
    second.finish(true);
    gate.pass('uploadDocument').finish(true);
    expect(gate.check('uploadDocument')).toEqual({ kind: 'go' });
    expect(gate.check('readSigningRequest')).toEqual({ kind: 'go' });
  });
});
