import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { isCatalogCode, userMessage } from '../../../shared/service/error-catalog';
import type { Participant } from '../../../shared/service/wire';
import { DEMO_CLIENT } from '../../../simulator/simulator';
import { expectFailure, expectOk, makeTestClient } from '../../support/client-harness';
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
const PARTICIPANTS = '/api/v1/signing-requests/sr_1/participants';
let close: (() => Promise<void>) | undefined;
/** The service and the client on one virtual clock: retries' backoffs take no real time. */
let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
});

/** Lets virtual time run until `work` has ended. */
function run<T>(work: Promise<T>): Promise<T> {
  return clock.complete(work);
}

afterEach(async () => {
  await close?.();
  close = undefined;
});

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
  return {
    client: makeTestClient(server.baseUrl, credentials, { clock }).client,
    sent: () => server.requests.filter((request) => request.url === PARTICIPANTS).length,
  };
}

const serviceError = (code: string) =>
  JSON.stringify({ error: { code, message: `the service says ${code}` } });
const conflict: ScriptedAnswer = { status: 409, body: serviceError('participant_conflict') };

describe('outcome classification of every answer (ServiceFailure.retryable / outcomeUnknown)', () => {
  it.each([
    // status, body, code, retryable, outcomeUnknown (the body is left out of the title)
    [400, serviceError('invalid_participant_request'), 'invalid_participant_request', false, false],
    [403, serviceError('participant_forbidden'), 'participant_forbidden', false, false],
    [404, serviceError('signing_request_not_found'), 'signing_request_not_found', false, false],
    [409, serviceError('participant_conflict'), 'participant_conflict', false, false],
    [422, serviceError('invalid_participant_request'), 'invalid_participant_request', false, false],
    [429, '', 'rate_limited', true, false],
    [503, serviceError('upstream_unavailable'), 'upstream_unavailable', true, false],
    [404, '<html>Not Found</html>', 'gateway_not_found', true, false],
    [500, serviceError('internal_error'), 'internal_error', true, true],
    [500, 'Internal Server Error', 'service_error', true, true],
    [502, '<html>Bad Gateway</html>', 'gateway_error', true, true],
    [504, '', 'gateway_error', true, true],
    [507, '', 'service_error', true, true],
    [501, '', 'service_error', false, true],
    [505, '', 'service_error', false, true],
  ] as const)(
    '%i (%#) → %s, retryable %s, outcome unknown %s',
    async (status, body, code, retryable, outcomeUnknown) => {
      const { client, sent } = await serve(() => ({ status, body, headers: { 'retry-after': '0' } }));
      const error = expectFailure(await run(client.addParticipant('sr_1', participant, { maxAttempts: 2 })));
      expect(error).toMatchObject({ httpStatus: status, code, retryable, outcomeUnknown });
      // Answers proving nothing was added are retried inside the call, up to its bound; the
      // others are not, and nothing is sent again once an attempt may have added the participant
      // (no idempotency key: the caller records that before anything else leaves).
      const retriedInCall = retryable && !outcomeUnknown;
      expect(sent()).toBe(retriedInCall ? 2 : 1);
      expect(error.attempts).toBe(retriedInCall ? 2 : 1);
    },
  );

  it.each([
    [502, ''],
    [500, serviceError('internal_error')],
    [504, ''],
  ] as const)(
    'a participant whose %i may have added it is not sent again inside the call',
    async (status, body) => {
      const { client, sent } = await serve((n) =>
        n === 1 ? { status, body, headers: { 'retry-after': '0' } } : conflict,
      );
      const error = expectFailure(await run(client.addParticipant('sr_1', participant)));
      expect(error).toMatchObject({ httpStatus: status, outcomeUnknown: true, attempts: 1 });
      expect(sent()).toBe(1);
    },
  );

  it.each([
    [503, serviceError('upstream_unavailable')],
    [429, serviceError('rate_limited')],
    [404, '<html>Not Found</html>'],
  ] as const)(
    'a participant_conflict after a %i, which added nothing, is a plain conflict',
    async (status, body) => {
      const { client } = await serve((n) =>
        n === 1 ? { status, body, headers: { 'retry-after': '0' } } : conflict,
      );
      const error = expectFailure(await run(client.addParticipant('sr_1', participant)));
      expect(error).toMatchObject({ httpStatus: 409, code: 'participant_conflict', outcomeUnknown: false });
    },
  );

  it('network: a refused connection was not applied; a lost answer and a timeout may have been', async () => {
    const { sim } = await startVirtualSimulator({ seed: 3 }, clock);
    try {
      const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { callTimeoutMs: 300, clock });
      expectOk(await run(client.testConnection()));

      sim.faults.enqueue({ kind: 'dropAfter', pathPattern: 'participants$' });
      const lost = expectFailure(
        await run(client.addParticipant('sr_none', participant, { maxAttempts: 1 })),
      );
      expect(lost).toMatchObject({ code: 'network_unreachable', retryable: true, outcomeUnknown: true });

      sim.faults.set({ latencyMs: 1000, pathPattern: 'participants$' });
      const adding = client.addParticipant('sr_none', participant, { maxAttempts: 1 });
      // The service holds its answer 1 s: the client's 300-ms deadline gives the attempt up.
      await clock.advanceWhileCallsHang(1_000);
      const slow = expectFailure(await adding);
      expect(slow).toMatchObject({ code: 'timeout', retryable: true, outcomeUnknown: true });
      sim.faults.reset();

      await sim.goOffline();
      const refused = expectFailure(await run(client.addParticipant('sr_none', participant)));
      expect(refused).toMatchObject({ code: 'network_unreachable', retryable: true, outcomeUnknown: false });
    } finally {
      await sim.close();
    }
  });

  it('every code the client reports itself has a catalog message', () => {
    const clientCodes = [
      'gateway_not_found',
      'gateway_error',
      'service_error',
      'rate_limited',
      'upstream_unavailable',
      'timeout',
      'network_unreachable',
      'invalid_response',
      'local_file_changed',
      'credentials_rejected',
    ];
    for (const code of clientCodes) expect(isCatalogCode(code), code).toBe(true);
    expect(userMessage('gateway_not_found')).toBe(
      "The service's address answered 'not found' without saying why. A gateway in front of the service may be failing, or the address may be wrong. Sending resumes by itself.",
    );
  });
});
