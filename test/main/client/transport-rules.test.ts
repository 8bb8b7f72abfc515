/**
 * When the service client sends a call again, and what it sends, checked without a server: a
 * scripted transport answers each attempt as written here, and every wait runs on a virtual
 * clock, so the instants the attempts leave are exact. What a call reports and what is never
 * sent twice: transport-outcomes.test.ts. (The same rules against real HTTP:
 * service-client.test.ts and the other files of this folder.)
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY } from '../../../main/client/backoff';
import type { HttpOutcome } from '../../../main/client/transport';
import { expectFailure, expectOk } from '../../support/client-harness';
import {
  CLOCK_START,
  CREATE_PATH,
  CREATED,
  CREATION_BODY,
  GATEWAY_NOT_FOUND,
  KEY,
  LOST,
  PARTICIPANT,
  PARTICIPANT_ADDED,
  PARTICIPANTS_PATH,
  REFUSED,
  refusal,
  requestOf,
  scriptedClient,
  type Attempt,
} from '../../support/scripted-transport';

/** A Retry-After five times what the client waits inside one call (`maxRetryAfterMs`: 2 min). */
const FAR_WAIT_MS = 5 * DEFAULT_RETRY_POLICY.maxRetryAfterMs;
const FAR_WAIT = { 'retry-after': String(FAR_WAIT_MS / 1000) };

function gaps(attempts: readonly Attempt[]): number[] {
  return attempts.slice(1).map((attempt, index) => attempt.at - attempts[index]!.at);
}

/** An HTTP-date (RFC 9110 §5.6.7) of an epoch instant. */
function httpDate(epochMs: number): string {
  return new Date(epochMs).toUTCString();
}

describe('when the service client sends a call again', () => {
  it('a 503 with Retry-After is sent again once that wait is over on the clock, not before nor later', async () => {
    const { clock, transport, client } = scriptedClient([
      refusal(503, 'upstream_unavailable', { 'retry-after': '7' }),
      CREATED,
    ]);
    const created = expectOk(await clock.complete(client.createSigningRequest(CREATION_BODY, KEY)));
    // A 503 says the creation was not made: the one that succeeded is the only one there is.
    expect(created).toMatchObject({ id: 'sr_1', earlierAttemptUnknown: false });
    expect(gaps(transport.attempts)).toEqual([7_000]);
  });

  it.each<{ form: string; headers: Record<string, string> }>([
    {
      form: "measured from the answer's own Date (the service's clock, an hour behind this computer's)",
      headers: {
        date: httpDate(CLOCK_START - 3_600_000),
        'retry-after': httpDate(CLOCK_START - 3_600_000 + 9_000),
      },
    },
    {
      form: "measured from this computer's clock when the answer has no Date",
      headers: { 'retry-after': httpDate(CLOCK_START + 9_000) },
    },
  ])('a Retry-After given as a date is waited for until that date, $form', async ({ headers }) => {
    const { clock, transport, client } = scriptedClient([
      refusal(503, 'upstream_unavailable', headers),
      CREATED,
    ]);
    expectOk(await clock.complete(client.createSigningRequest(CREATION_BODY, KEY)));
    expect(gaps(transport.attempts)).toEqual([9_000]);
  });

  it('a 503 without Retry-After is sent again after a backoff that doubles each time, six attempts in all, then the failure', async () => {
    const unavailable = refusal(503, 'upstream_unavailable');
    const { clock, transport, client } = scriptedClient(Array<HttpOutcome>(6).fill(unavailable));
    const failed = expectFailure(await clock.complete(client.createSigningRequest(CREATION_BODY, KEY)));
    expect(failed).toMatchObject({
      code: 'upstream_unavailable',
      httpStatus: 503,
      retryable: true,
      outcomeUnknown: false,
      attempts: 6,
    });
    expect(failed.retryAfterMs).toBeUndefined();
    // Full jitter below a ceiling of 500 ms × 2^(n−1); the scripted jitter draws half of it.
    expect(gaps(transport.attempts)).toEqual([250, 500, 1_000, 2_000, 4_000]);
    await clock.advance(3_600_000);
    expect(transport.attempts).toHaveLength(6);
  });

  it.each([
    { status: 503, code: 'upstream_unavailable', outcomeUnknown: false },
    { status: 429, code: 'rate_limited', outcomeUnknown: false },
    { status: 502, code: 'gateway_error', outcomeUnknown: true },
  ])(
    'a $status whose Retry-After is beyond what one call waits fails at once, saying how long the service asked for',
    async ({ status, code, outcomeUnknown }) => {
      const { clock, transport, client } = scriptedClient([refusal(status, code, FAR_WAIT), CREATED]);
      const failed = expectFailure(await clock.complete(client.createSigningRequest(CREATION_BODY, KEY)));
      expect(failed).toMatchObject({
        code,
        httpStatus: status,
        retryable: true,
        outcomeUnknown,
        attempts: 1,
        retryAfterMs: FAR_WAIT_MS,
      });
      await clock.advance(3_600_000);
      expect(transport.attempts).toHaveLength(1);
    },
  );

  it('a Retry-After beyond that ceiling holds the operation: another caller is told the wait left without sending, and calls go once it is over', async () => {
    const { clock, transport, client } = scriptedClient([
      refusal(503, 'upstream_unavailable', FAR_WAIT),
      CREATED,
    ]);
    expectFailure(await clock.complete(client.createSigningRequest(CREATION_BODY, KEY)));
    await clock.advance(60_000);
    const held = expectFailure(await clock.complete(client.createSigningRequest(CREATION_BODY, 'key-2')));
    expect(held).toMatchObject({
      code: 'upstream_unavailable',
      retryable: true,
      outcomeUnknown: false,
      attempts: 0,
      retryAfterMs: FAR_WAIT_MS - 60_000,
    });
    expect(transport.attempts).toHaveLength(1);
    await clock.advance(FAR_WAIT_MS - 60_000);
    expectOk(await clock.complete(client.createSigningRequest(CREATION_BODY, 'key-3')));
    expect(transport.attempts.map((attempt) => attempt.at)).toEqual([0, FAR_WAIT_MS]);
  });

  it.each([
    { status: 429, code: 'rate_limited' },
    { status: 503, code: 'upstream_unavailable' },
  ])(
    "a $status's Retry-After holds that operation for every caller: a creation started during the wait leaves when it ends; other operations go on",
    async ({ status, code }) => {
      const { clock, transport, client } = scriptedClient({
        [CREATE_PATH]: [refusal(status, code, { 'retry-after': '7' }), CREATED, CREATED],
        [PARTICIPANTS_PATH]: [PARTICIPANT_ADDED],
      });
      const first = client.createSigningRequest(CREATION_BODY, KEY);
      await clock.advance(1_000);
      const second = client.createSigningRequest(CREATION_BODY, 'key-of-another-document');
      const other = client.addParticipant('sr_1', PARTICIPANT);
      const results = await clock.complete(Promise.all([first, second, other]));
      expectOk(results[0]);
      expectOk(results[1]);
      expectOk(results[2]);
      const creations = transport.attemptsAt(CREATE_PATH);
      expect(creations.map((attempt) => attempt.at)).toEqual([0, 7_000, 7_000]);
      expect(creations.map((attempt) => attempt.headers['idempotency-key']).sort()).toEqual(
        [KEY, KEY, 'key-of-another-document'].sort(),
      );
      expect(transport.attemptsAt(PARTICIPANTS_PATH).map((attempt) => attempt.at)).toEqual([1_000]);
    },
  );

  it.each([
    { after: 'a 503 with Retry-After', first: refusal(503, 'upstream_unavailable', { 'retry-after': '1' }) },
    { after: 'a 429 without Retry-After', first: refusal(429, 'rate_limited') },
    { after: "a gateway's 404", first: GATEWAY_NOT_FOUND },
    { after: 'a 500', first: refusal(500, 'internal_error') },
    { after: 'a connection lost after sending', first: LOST },
    { after: 'a connection refused', first: REFUSED },
  ])('the attempt after $after is the same request: method, path, headers and body', async ({ first }) => {
    const { clock, transport, client } = scriptedClient([first, CREATED]);
    expectOk(await clock.complete(client.createSigningRequest(CREATION_BODY, KEY)));
    const [firstAttempt, retry] = transport.attempts;
    expect(requestOf(firstAttempt)).toMatchObject({
      method: 'POST',
      path: CREATE_PATH,
      headers: { 'idempotency-key': KEY, 'content-type': 'application/json' },
    });
    expect(JSON.parse(firstAttempt!.body ?? 'null')).toEqual(CREATION_BODY);
    expect(requestOf(retry)).toEqual(requestOf(firstAttempt));
    expect(transport.attempts).toHaveLength(2);
  });
});
