/**
 * The service client's rules on top of the network, checked without a server: a scripted
 * transport answers each attempt as written here, and every wait runs on a virtual clock, so the
 * instants the attempts leave are exact. (The same rules against real HTTP: service-client.test.ts
 * and the other files of this folder.)
 */
import { describe, expect, it } from 'vitest';
import { Secret } from '../../../main/base/secret';
import { ServiceClient } from '../../../main/client/service-client';
import type { HttpOutcome, HttpRequest, Transport } from '../../../main/client/transport';
import { VirtualClock } from '../../../main/time/virtual-clock';
import type { CreateSigningRequestBody } from '../../../shared/service/wire';
import { expectFailure, expectOk } from '../../support/client-harness';

/** One attempt of an API call as the service received it. */
interface Attempt {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** When it left, in virtual ms since the clock started. */
  readonly at: number;
}

/**
 * A service on paper: the token endpoint grants `token-1`, `token-2`… in turn; every other call
 * gets the next answer of the script, and a call beyond it fails the test.
 */
class ScriptedTransport implements Transport {
  readonly attempts: Attempt[] = [];
  tokensGranted = 0;
  readonly #clock: VirtualClock;
  readonly #script: HttpOutcome[];

  constructor(clock: VirtualClock, script: readonly HttpOutcome[]) {
    this.#clock = clock;
    this.#script = [...script];
  }

  send(request: HttpRequest): Promise<HttpOutcome> {
    const path = new URL(request.url).pathname;
    if (path === '/oauth/token') {
      this.tokensGranted += 1;
      return Promise.resolve(
        answered(200, {
          access_token: `token-${this.tokensGranted}`,
          token_type: 'Bearer',
          expires_in: 3600,
        }),
      );
    }
    this.attempts.push({
      method: request.method,
      path,
      headers: request.headers,
      at: this.#clock.monotonic(),
    });
    const next = this.#script.shift();
    if (next === undefined) throw new Error(`no answer written for attempt ${this.attempts.length}: ${path}`);
    return Promise.resolve(next);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function answered(status: number, body?: unknown, headers: Record<string, string> = {}): HttpOutcome {
  return {
    kind: 'answered',
    status,
    headers: { 'content-type': 'application/json', ...headers },
    text: body === undefined ? '' : JSON.stringify(body),
  };
}

/** The service's error body (spec §7). */
function refusal(status: number, code: string, headers: Record<string, string> = {}): HttpOutcome {
  return answered(status, { error: { code, message: `refused: ${code}` } }, headers);
}

/** The request left, and its answer never came back: the connection dropped mid-way. */
const LOST: HttpOutcome = {
  kind: 'network',
  mayHaveReachedService: true,
  timedOut: false,
  errorCode: 'ECONNRESET',
};

const REQUEST_READ = { id: 'sr_1', status: 'draft', external_reference: 'REF-1' };

const BODY: CreateSigningRequestBody = {
  external_reference: 'REF-1',
  document: { upload_id: 'upl_1' },
  recipients: [{ participant_type: 'signer', role: 'Signer', name: 'Ada', email: 'ada@example.com' }],
};
const KEY = 'key-stored-before-the-first-attempt';

function setUp(script: readonly HttpOutcome[]) {
  const clock = new VirtualClock();
  const transport = new ScriptedTransport(clock, script);
  const client = new ServiceClient({
    baseUrl: 'https://sign.example.test',
    clientId: 'desk',
    clientSecret: new Secret('scripted-secret'),
    clock,
    transport,
    random: () => 0.5,
  });
  return { clock, transport, client };
}

describe('the service client over a scripted transport', () => {
  it('a 503 with Retry-After is sent again once that wait is over on the clock, not before nor later', async () => {
    const { clock, transport, client } = setUp([
      refusal(503, 'upstream_unavailable', { 'retry-after': '7' }),
      answered(201, { id: 'sr_1' }),
    ]);
    const created = expectOk(await clock.complete(client.createSigningRequest(BODY, KEY)));
    expect(created.id).toBe('sr_1');
    const [first, second] = transport.attempts;
    expect(transport.attempts).toHaveLength(2);
    expect(second!.at - first!.at).toBe(7_000);
  });

  it('a creation whose answer was lost is sent again with the same Idempotency-Key, and is the one request', async () => {
    const { clock, transport, client } = setUp([
      LOST,
      answered(200, { id: 'sr_1', idempotent_replay: true }),
    ]);
    const created = expectOk(await clock.complete(client.createSigningRequest(BODY, KEY)));
    expect(created).toMatchObject({ id: 'sr_1', replayed: true, earlierAttemptUnknown: true });
    expect(transport.attempts.map((attempt) => attempt.headers['idempotency-key'])).toEqual([KEY, KEY]);
  });

  it.each([
    [400, 'invalid_signing_request'],
    [403, 'insufficient_scope'],
    [404, 'signing_request_not_found'],
    [409, 'idempotency_key_reused'],
    [422, 'invalid_participant_request'],
  ])('a %i (%s) is not sent again: the call fails at once, not retryable', async (status, code) => {
    const { clock, transport, client } = setUp([refusal(status, code)]);
    const refused = expectFailure(await clock.complete(client.createSigningRequest(BODY, KEY)));
    expect(refused).toMatchObject({ code, httpStatus: status, retryable: false, attempts: 1 });
    // Nothing follows later either.
    await clock.advance(3_600_000);
    expect(transport.attempts).toHaveLength(1);
  });

  it('a 401 to a token kept from earlier gets one new token, and the call goes again with it', async () => {
    const { clock, transport, client } = setUp([
      answered(200, REQUEST_READ),
      refusal(401, 'unauthorized'),
      answered(200, REQUEST_READ),
    ]);
    expectOk(await clock.complete(client.getSigningRequest('sr_1')));
    // Ten minutes on, the token (valid an hour) was revoked at the service.
    await clock.advance(600_000);
    const read = expectOk(await clock.complete(client.getSigningRequest('sr_1')));
    expect(read.id).toBe('sr_1');
    expect(transport.tokensGranted).toBe(2);
    expect(transport.attempts.map((attempt) => attempt.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-1',
      'Bearer token-2',
    ]);
  });

  it('a 401 to the new token too: the credentials are rejected, after that one renewal only', async () => {
    const { clock, transport, client } = setUp([refusal(401, 'unauthorized'), refusal(401, 'unauthorized')]);
    const refused = expectFailure(await clock.complete(client.getSigningRequest('sr_1')));
    expect(refused).toMatchObject({ code: 'credentials_rejected', httpStatus: 401, retryable: false });
    await clock.advance(3_600_000);
    expect(transport.tokensGranted).toBe(2);
    expect(transport.attempts).toHaveLength(2);
  });
});
