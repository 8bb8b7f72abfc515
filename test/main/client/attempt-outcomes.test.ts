import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { READ_SPACING_MS } from '../../../main/client/read-spacing';
import { VirtualClock } from '../../../main/time/virtual-clock';
import type { AttemptOutcome, CallOptions } from '../../../main/client/service-client';
import type { Participant } from '../../../shared/service/wire';
import { DEMO_CLIENT } from '../../../simulator/simulator';
import { expectFailure, expectOk, makeTestClient, uploadSourceOf } from '../../support/client-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import {
  startScriptedServer,
  tokenWithoutLifetime,
  type ScriptedAnswer,
} from '../../support/scripted-server';
import { startVirtualSimulator } from '../../support/virtual-world';

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
/** The service (scripted or simulated) and the client on one virtual clock. */
let clock: VirtualClock;

beforeAll(async () => {
  files = makeTempFolder();
  pdfPath = await writePdf(files, 'outcomes.pdf', 'Attempt outcomes');
});
afterAll(() => files.remove());
beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Lets virtual time run until `work` has ended. */
function run<T>(work: Promise<T>): Promise<T> {
  return clock.complete(work);
}

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
  const server = await startScriptedServer(
    (request) => {
      if (request.url === '/oauth/token') return tokenWithoutLifetime;
      n += 1;
      return answers(n);
    },
    { clock },
  );
  close = server.close;
  return { server, client: makeTestClient(server.baseUrl, credentials, { clock }).client };
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
    await run(client.createSigningRequest(creation, randomUUID(), { ...options, maxAttempts: 1 }));
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
    await clock.runUntil(() => events.includes('not_applied'), { what: 'the 503 in' });
    await clock.advance(200);
    expect(events).toEqual(['left 1', 'not_applied']);
    expect(clock.pendingTimers).toBeGreaterThan(0);
    pause.abort(new Error('paused'));
    await run(expect(call).rejects.toThrow('paused'));
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
    expectOk(await run(client.createSigningRequest(creation, randomUUID(), options)));
    expect(events).toEqual(['left 1', 'not_applied', 'left 2', 'maybe_applied']);
  });

  it('a 401 is not_applied before the token is renewed and the call sent again', async () => {
    let tokens = 0;
    const server = await startScriptedServer(
      (request) => {
        if (request.url === '/oauth/token') {
          tokens += 1;
          return { status: 200, body: JSON.stringify({ access_token: `token-${tokens}` }) };
        }
        return request.headers.authorization === 'Bearer token-1'
          ? { status: 401, body: serviceError('invalid_token') }
          : { status: 201, body: JSON.stringify({ id: 'sr_1' }) };
      },
      { clock },
    );
    close = server.close;
    const { client } = makeTestClient(server.baseUrl, credentials, { clock });
    const { events, options } = recorder();
    expectOk(await run(client.createSigningRequest(creation, randomUUID(), options)));
    expect(events).toEqual(['left 1', 'not_applied', 'left 2', 'maybe_applied']);
    expect(tokens).toBe(2);
  });

  it('an abort while the attempt is on its way is maybe_applied; an abort before anything left tells nothing', async () => {
    const { client } = await serve(() => ({ status: 201, body: JSON.stringify({ id: 'sr_1' }) }));
    expectOk(await run(client.testConnection()));
    const before = recorder();
    const aborted = new AbortController();
    aborted.abort(new Error('stopped'));
    await run(
      expect(
        client.createSigningRequest(creation, randomUUID(), { ...before.options, signal: aborted.signal }),
      ).rejects.toThrow('stopped'),
    );
    expect(before.events).toEqual([]);

    const { sim } = await startVirtualSimulator({ seed: 11 }, clock);
    try {
      const { client: slow } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock });
      expectOk(await run(slow.testConnection()));
      sim.faults.set({ latencyMs: 2_000, pathPattern: 'signing-requests$' });
      const during = recorder();
      const inFlight = new AbortController();
      const call = slow.createSigningRequest(creation, randomUUID(), {
        ...during.options,
        signal: inFlight.signal,
      });
      await clock.runUntil(() => sim.state.callsUnderWay() === 1, { what: 'the creation at the service' });
      expect(during.events).toEqual(['left 1']);
      inFlight.abort(new Error('stopped'));
      // It rejects at once, with no time passing (the service still holds it).
      await expect(call).rejects.toThrow('stopped');
      expect(during.events).toEqual(['left 1', 'maybe_applied']);
    } finally {
      await sim.close();
    }
  });

  it('network: refused before sending is not_applied; a lost answer and a timeout are maybe_applied', async () => {
    const { sim } = await startVirtualSimulator({ seed: 12 }, clock);
    try {
      const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { callTimeoutMs: 300, clock });
      expectOk(await run(client.testConnection()));

      sim.faults.enqueue({ kind: 'dropAfter', pathPattern: 'signing-requests$' });
      const lost = recorder();
      await run(client.createSigningRequest(creation, randomUUID(), { ...lost.options, maxAttempts: 1 }));
      expect(lost.events).toEqual(['left 1', 'maybe_applied']);

      sim.faults.set({ latencyMs: 1_000, pathPattern: 'signing-requests$' });
      const slow = recorder();
      const creating = client.createSigningRequest(creation, randomUUID(), {
        ...slow.options,
        maxAttempts: 1,
      });
      // The service holds its answer 1 s: the client's 300-ms deadline gives the attempt up.
      await clock.advanceWhileCallsHang(1_000);
      expectFailure(await creating);
      expect(slow.events).toEqual(['left 1', 'maybe_applied']);
      sim.faults.reset();

      await sim.goOffline();
      const refused = recorder();
      expectFailure(await run(client.createSigningRequest(creation, randomUUID(), refused.options)));
      expect(refused.events).toEqual(['left 1', 'not_applied', 'left 2', 'not_applied']);
    } finally {
      await sim.close();
    }
  });

  it('is wired through every call: upload, create, add participant, prepare, widget session, read', async () => {
    const { sim } = await startVirtualSimulator({ seed: 13 }, clock);
    try {
      const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock });
      // Past the read spacing's start-up wait once the client exists (read-spacing tests cover it).
      await clock.advance(READ_SPACING_MS);
      const seen: Record<string, string[]> = {};
      const hooks = (name: string) => {
        const { events, options } = recorder();
        seen[name] = events;
        return options;
      };
      const upload = expectOk(await run(client.uploadDocument(uploadSourceOf(pdfPath), hooks('upload'))));
      const created = expectOk(
        await run(
          client.createSigningRequest(
            { ...creation, document: { upload_id: upload.upload_id } },
            randomUUID(),
            hooks('create'),
          ),
        ),
      );
      const requestId = created.id ?? '';
      expectOk(await run(client.addParticipant(requestId, participant, hooks('addParticipant'))));
      expectOk(await run(client.prepareSigningRequest(requestId, hooks('prepare'))));
      expectOk(await run(client.createWidgetSession(requestId, hooks('widget'))));
      sim.faults.enqueue({ kind: '503', pathPattern: `${requestId}$`, retryAfterSeconds: 0 });
      // The retry after the 503 waits the read spacing (5 s).
      expectOk(await run(client.getSigningRequest(requestId, hooks('read'))));
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
  });
});
