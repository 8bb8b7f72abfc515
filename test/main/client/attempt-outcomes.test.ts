import { clockReading } from '../../support/clocks';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptOutcome, CallOptions } from '../../../main/client/service-client';
import type { Participant } from '../../../shared/service/wire';
import { DEMO_CLIENT, startSimulator } from '../../../simulator/simulator';
import { expectFailure, expectOk, makeTestClient, uploadSourceOf } from '../../support/client-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import {
  startScriptedServer,
  tokenWithoutLifetime,
  type ScriptedAnswer,
} from '../../support/scripted-server';

const credentials = { clientId: 'desk', clientSecret: 'scripted-secret' };
const participant: Participant = {
  participant_type: 'observer',
  role: 'HR',
  name: 'Bo',
  email: 'bo@example.com',
};
const CREATE = '/api/v1/signing-requests';
const creation = {
  external_reference: 'OUT-1',
  document: { upload_id: 'upl_1' },
  recipients: [
    { participant_type: 'signer' as const, role: 'Signer', name: 'Ada', email: 'ada@example.com' },
  ],
};
const serviceError = (code: string) =>
  JSON.stringify({ error: { code, message: `the service says ${code}` } });

let files: TempFolder;
let pdfPath: string;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  files = makeTempFolder();
  pdfPath = await writePdf(files, 'outcomes.pdf', 'Attempt outcomes');
});
afterAll(() => files.remove());
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** What a caller sees of one call's attempts, in order: `left 1`, then its outcome, `left 2`… */
function recorder(): {
  events: string[];
  options: Required<Pick<CallOptions, 'onAttempt' | 'onAttemptSettled'>>;
} {
  const events: string[] = [];
  return {
    events,
    options: {
      onAttempt: (attempt) => events.push(`left ${attempt}`),
      onAttemptSettled: (outcome: AttemptOutcome) => events.push(outcome),
    },
  };
}

/** A scripted service: the token endpoint grants, every other call gets `answers(n)` for its n-th arrival. */
async function serve(answers: (n: number) => ScriptedAnswer) {
  let n = 0;
  const server = await startScriptedServer((request) => {
    if (request.url === '/oauth/token') return tokenWithoutLifetime;
    n += 1;
    return answers(n);
  });
  close = server.close;
  return { server, client: makeTestClient(server.baseUrl, credentials).client };
}

describe('onAttemptSettled: each attempt that left is told whether it may have been applied', () => {
  it.each([
    [429, '', 'not_applied'],
    [503, serviceError('upstream_unavailable'), 'not_applied'],
    [400, serviceError('invalid_request'), 'not_applied'],
    [409, serviceError('idempotency_conflict'), 'not_applied'],
    [422, serviceError('invalid_upload'), 'not_applied'],
    [404, '<html>Not Found</html>', 'not_applied'],
    [500, serviceError('internal_error'), 'maybe_applied'],
    [502, '<html>Bad Gateway</html>', 'maybe_applied'],
    [504, '', 'maybe_applied'],
    [507, '', 'maybe_applied'],
    [501, '', 'maybe_applied'],
    [201, JSON.stringify({ id: 'sr_1', status: 'draft' }), 'maybe_applied'],
    [204, '', 'maybe_applied'],
  ] as const)('a %i (%#) → %s', async (status, body, outcome) => {
    const { client } = await serve(() => ({ status, body, headers: { 'retry-after': '0' } }));
    const { events, options } = recorder();
    await client.createSigningRequest(creation, randomUUID(), { ...options, maxAttempts: 1 });
    expect(events).toEqual(['left 1', outcome]);
  });

  it('a definite 503 is settled before the backoff sleep: a pause there finds nothing on the wire', async () => {
    const { server, client } = await serve((n) =>
      n === 1
        ? { status: 503, body: serviceError('upstream_unavailable'), headers: { 'retry-after': '2' } }
        : { status: 201, body: JSON.stringify({ id: 'sr_1' }) },
    );
    const { events, options } = recorder();
    const pause = new AbortController();
    const call = client.createSigningRequest(creation, randomUUID(), { ...options, signal: pause.signal });
    // Wait until the 503 is in, then pause while the runner sleeps for its Retry-After.
    while (!events.includes('not_applied')) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events).toEqual(['left 1', 'not_applied']);
    pause.abort(new Error('paused'));
    await expect(call).rejects.toThrow('paused');
    expect(events).toEqual(['left 1', 'not_applied']);
    expect(server.requests.filter((request) => request.url === CREATE)).toHaveLength(1);
  });

  it('a 503 then a 201: not_applied, then maybe_applied, each right after its own attempt', async () => {
    const { client } = await serve((n) =>
      n === 1
        ? { status: 503, body: serviceError('upstream_unavailable'), headers: { 'retry-after': '0' } }
        : { status: 201, body: JSON.stringify({ id: 'sr_1' }) },
    );
    const { events, options } = recorder();
    expectOk(await client.createSigningRequest(creation, randomUUID(), options));
    expect(events).toEqual(['left 1', 'not_applied', 'left 2', 'maybe_applied']);
  });

  it('a 401 is not_applied before the token is renewed and the call sent again', async () => {
    let tokens = 0;
    const server = await startScriptedServer((request) => {
      if (request.url === '/oauth/token') {
        tokens += 1;
        return { status: 200, body: JSON.stringify({ access_token: `token-${tokens}` }) };
      }
      return request.headers.authorization === 'Bearer token-1'
        ? { status: 401, body: serviceError('invalid_token') }
        : { status: 201, body: JSON.stringify({ id: 'sr_1' }) };
    });
    close = server.close;
    const { client } = makeTestClient(server.baseUrl, credentials);
    const { events, options } = recorder();
    expectOk(await client.createSigningRequest(creation, randomUUID(), options));
    expect(events).toEqual(['left 1', 'not_applied', 'left 2', 'maybe_applied']);
    expect(tokens).toBe(2);
  });

  it('an abort while the attempt is on its way is maybe_applied; an abort before anything left tells nothing', async () => {
    const { client } = await serve(() => ({ status: 201, body: JSON.stringify({ id: 'sr_1' }) }));
    expectOk(await client.testConnection());
    const before = recorder();
    const aborted = new AbortController();
    aborted.abort(new Error('stopped'));
    await expect(
      client.createSigningRequest(creation, randomUUID(), { ...before.options, signal: aborted.signal }),
    ).rejects.toThrow('stopped');
    expect(before.events).toEqual([]);

    const sim = await startSimulator({ seed: 11 });
    try {
      const { client: slow } = makeTestClient(sim.baseUrl, DEMO_CLIENT);
      expectOk(await slow.testConnection());
      sim.faults.set({ latencyMs: 2_000, pathPattern: 'signing-requests$' });
      const during = recorder();
      const inFlight = new AbortController();
      const call = slow.createSigningRequest(creation, randomUUID(), {
        ...during.options,
        signal: inFlight.signal,
      });
      while (!during.events.includes('left 1')) await new Promise((resolve) => setTimeout(resolve, 10));
      inFlight.abort(new Error('stopped'));
      await expect(call).rejects.toThrow('stopped');
      expect(during.events).toEqual(['left 1', 'maybe_applied']);
    } finally {
      await sim.close();
    }
  });

  it('network: refused before sending is not_applied; a lost answer and a timeout are maybe_applied', async () => {
    const sim = await startSimulator({ seed: 12 });
    try {
      const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { callTimeoutMs: 300 });
      expectOk(await client.testConnection());

      sim.faults.enqueue({ kind: 'dropAfter', pathPattern: 'signing-requests$' });
      const lost = recorder();
      await client.createSigningRequest(creation, randomUUID(), { ...lost.options, maxAttempts: 1 });
      expect(lost.events).toEqual(['left 1', 'maybe_applied']);

      sim.faults.set({ latencyMs: 1_000, pathPattern: 'signing-requests$' });
      const slow = recorder();
      await client.createSigningRequest(creation, randomUUID(), { ...slow.options, maxAttempts: 1 });
      expect(slow.events).toEqual(['left 1', 'maybe_applied']);
      sim.faults.reset();

      await sim.goOffline();
      const refused = recorder();
      expectFailure(await client.createSigningRequest(creation, randomUUID(), refused.options));
      expect(refused.events).toEqual(['left 1', 'not_applied', 'left 2', 'not_applied']);
    } finally {
      await sim.close();
    }
  });

  it('is wired through every call: upload, create, add participant, prepare, widget session, read', async () => {
    const sim = await startSimulator({ seed: 13 });
    try {
      // Moved past the read spacing's start-up wait once the client exists (read-spacing tests cover it).
      let aheadMs = 0;
      const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, {
        clock: clockReading(() => Date.now() + aheadMs),
      });
      aheadMs = 6_000;
      const seen: Record<string, string[]> = {};
      const hooks = (name: string) => {
        const { events, options } = recorder();
        seen[name] = events;
        return options;
      };
      const upload = expectOk(await client.uploadDocument(uploadSourceOf(pdfPath), hooks('upload')));
      const created = expectOk(
        await client.createSigningRequest(
          { ...creation, document: { upload_id: upload.upload_id } },
          randomUUID(),
          hooks('create'),
        ),
      );
      const requestId = created.id ?? '';
      expectOk(await client.addParticipant(requestId, participant, hooks('addParticipant')));
      expectOk(await client.prepareSigningRequest(requestId, hooks('prepare')));
      expectOk(await client.createWidgetSession(requestId, hooks('widget')));
      sim.faults.enqueue({ kind: '503', pathPattern: `${requestId}$`, retryAfterSeconds: 0 });
      // The retry after the 503 waits the read spacing (5 s).
      expectOk(await client.getSigningRequest(requestId, hooks('read')));
      expect(seen).toEqual({
        upload: ['left 1', 'maybe_applied'],
        create: ['left 1', 'maybe_applied'],
        addParticipant: ['left 1', 'maybe_applied'],
        prepare: ['left 1', 'maybe_applied'],
        widget: ['left 1', 'maybe_applied'],
        read: ['left 1', 'not_applied', 'left 2', 'maybe_applied'],
      });
    } finally {
      await sim.close();
    }
  }, 20_000);
});
