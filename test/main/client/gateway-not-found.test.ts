import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { isNotFoundAtService } from '../../../main/domain/service-failure';
import { userMessage } from '../../../shared/service/error-catalog';
import { DEMO_CLIENT } from '../../../simulator/simulator';
import { expectFailure, expectOk, makeTestClient } from '../../support/client-harness';
import {
  startScriptedServer,
  tokenWithoutLifetime,
  type ScriptedAnswer,
} from '../../support/scripted-server';
import { startVirtualSimulator } from '../../support/virtual-world';

const credentials = { clientId: 'desk', clientSecret: 'scripted-secret' };
const PREPARE = '/api/v1/signing-requests/sr_1/prepare';
const PREPARED: ScriptedAnswer = {
  status: 200,
  body: JSON.stringify({ id: 'sr_1', status: 'prepared', document: { revision: 1, sha256: 'ab' } }),
};
let close: (() => Promise<void>) | undefined;

/** The service's clock and the client's: waits (read spacing, backoff, Retry-After) take no real time. */
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
    sent: (path: string) => server.requests.filter((request) => request.url === path).length,
  };
}

const GATEWAY_404S: [string, ScriptedAnswer][] = [
  [
    'an HTML page',
    {
      status: 404,
      body: '<html><body>404 Not Found</body></html>',
      headers: { 'content-type': 'text/html' },
    },
  ],
  ['no body', { status: 404, body: '' }],
  ['JSON of another shape', { status: 404, body: '{"message":"Not Found"}' }],
];

describe('a 404 that is not the service speaking (a gateway’s)', () => {
  it.each(GATEWAY_404S)(
    'with %s: retried inside the call, then a retryable gateway_not_found',
    async (_, answer) => {
      const { client, sent } = await serve(() => answer);
      const error = expectFailure(await run(client.prepareSigningRequest('sr_1')));
      expect(error).toMatchObject({
        httpStatus: 404,
        code: 'gateway_not_found',
        retryable: true,
        outcomeUnknown: false,
        attempts: 8,
      });
      expect(error.message).toBe(userMessage('gateway_not_found'));
      expect(isNotFoundAtService(error)).toBe(false);
      expect(sent(PREPARE)).toBe(8);
    },
  );

  it('is passed over when the gateway recovers within the call', async () => {
    const { client, sent } = await serve((n) =>
      n <= 2 ? (GATEWAY_404S[0]?.[1] as ScriptedAnswer) : PREPARED,
    );
    expect(expectOk(await run(client.prepareSigningRequest('sr_1')))).toMatchObject({ revision: 1 });
    expect(sent(PREPARE)).toBe(3);
  });

  it('never marks a polled request as gone', async () => {
    const { client } = await serve(() => GATEWAY_404S[0]?.[1] as ScriptedAnswer);
    const error = expectFailure(await run(client.getSigningRequest('sr_1', { maxAttempts: 1 })));
    expect(error).toMatchObject({ code: 'gateway_not_found', retryable: true });
    expect(isNotFoundAtService(error)).toBe(false);
  });
});

describe('a gateway’s 404 from the simulator (gateway404)', () => {
  it('a creation behind a failing gateway is retried within the call and made once', async () => {
    const { sim } = await startVirtualSimulator({ seed: 2 }, clock);
    try {
      const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock });
      const pdf = Buffer.from('%PDF-1.7\n%%EOF\n');
      const upload = expectOk(
        await run(
          client.uploadDocument({
            open: () => Readable.from([pdf]),
            sizeBytes: pdf.length,
            filename: 'g.pdf',
          }),
        ),
      );
      sim.faults.enqueue(
        { kind: 'gateway404', pathPattern: '^/api/v1/signing-requests$' },
        { kind: 'gateway404', pathPattern: '^/api/v1/signing-requests$' },
      );
      const created = expectOk(
        await run(
          client.createSigningRequest(
            {
              external_reference: 'GW-1',
              document: { upload_id: upload.upload_id },
              recipients: [
                { participant_type: 'signer', role: 'Signer', name: 'Ada', email: 'ada@example.com' },
              ],
            },
            'gateway-key-1',
          ),
        ),
      );
      // A gateway's 404 says the request did not reach the service: not an unknown outcome.
      expect(created).toMatchObject({ replayed: false, earlierAttemptUnknown: false });
      expect(sim.state.countByExternalReference()).toEqual({ 'GW-1': 1 });

      sim.faults.set({ gateway404Rate: 1 });
      const read = expectFailure(await run(client.getSigningRequest(created.id ?? '', { maxAttempts: 1 })));
      expect(read).toMatchObject({ httpStatus: 404, code: 'gateway_not_found', retryable: true });
      expect(isNotFoundAtService(read)).toBe(false);
    } finally {
      await sim.close();
    }
  });
});

describe('a 404 with the service’s error body', () => {
  it('keeps its code and is not retried; only signing_request_not_found is "not found at the service"', async () => {
    const { client, sent } = await serve((n) => ({
      status: 404,
      body: JSON.stringify({
        error: { code: n === 1 ? 'signing_request_not_found' : 'not_found', message: 'no' },
      }),
    }));
    const gone = expectFailure(await run(client.prepareSigningRequest('sr_1')));
    expect(gone).toMatchObject({
      httpStatus: 404,
      code: 'signing_request_not_found',
      retryable: false,
      attempts: 1,
    });
    expect(isNotFoundAtService(gone)).toBe(true);
    const other = expectFailure(await run(client.prepareSigningRequest('sr_1')));
    expect(other).toMatchObject({ httpStatus: 404, code: 'not_found', retryable: false, attempts: 1 });
    expect(isNotFoundAtService(other)).toBe(false);
    expect(sent(PREPARE)).toBe(2);
  });

  it('the simulator’s own 404 for an unknown request is "not found at the service"', async () => {
    const { sim } = await startVirtualSimulator({ seed: 1 }, clock);
    try {
      const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock });
      const error = expectFailure(await run(client.getSigningRequest('sr_unknown', { maxAttempts: 1 })));
      expect(isNotFoundAtService(error)).toBe(true);
    } finally {
      await sim.close();
    }
  });
});
