/**
 * What a service call says happened, what is never sent twice, and the one token renewal after a
 * 401, checked without a server over a scripted transport on a virtual clock. When calls are
 * sent again and what they send: transport-rules.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../../../main/client/call-runner';
import { expectFailure, expectOk } from '../../support/client-harness';
import {
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
  TIMED_OUT,
  answered,
  late,
  refusal,
  requestOf,
  scriptedClient,
} from '../../support/scripted-transport';

const REQUEST_READ = answered(200, { id: 'sr_1', status: 'draft', external_reference: 'REF-1' });
const UNAUTHORIZED = refusal(401, 'unauthorized');

/** Call options that collect what each attempt that left did, as the call tells it. */
function settledLog() {
  const settled: AttemptOutcome[] = [];
  return { settled, options: { onAttemptSettled: (outcome: AttemptOutcome) => settled.push(outcome) } };
}

describe('what a call says happened', () => {
  it('a creation whose answer was lost is sent again with the same Idempotency-Key, and is the one request', async () => {
    const { clock, transport, client } = scriptedClient([
      LOST,
      answered(200, { id: 'sr_1', idempotent_replay: true }),
    ]);
    const { settled, options } = settledLog();
    const created = expectOk(await clock.complete(client.createSigningRequest(CREATION_BODY, KEY, options)));
    expect(created).toMatchObject({ id: 'sr_1', replayed: true, earlierAttemptUnknown: true });
    expect(transport.attempts.map((attempt) => attempt.headers['idempotency-key'])).toEqual([KEY, KEY]);
    expect(settled).toEqual(['maybe_applied', 'maybe_applied']);
  });

  it.each([
    [400, 'invalid_signing_request'],
    [403, 'insufficient_scope'],
    [404, 'signing_request_not_found'],
    [409, 'idempotency_key_reused'],
    [422, 'invalid_participant_request'],
  ])(
    'a %i (%s) is not sent again: the call fails at once, not retryable, and nothing was created',
    async (status, code) => {
      const { clock, transport, client } = scriptedClient([refusal(status, code)]);
      const { settled, options } = settledLog();
      const refused = expectFailure(
        await clock.complete(client.createSigningRequest(CREATION_BODY, KEY, options)),
      );
      expect(refused).toMatchObject({
        code,
        httpStatus: status,
        retryable: false,
        outcomeUnknown: false,
        attempts: 1,
      });
      expect(settled).toEqual(['not_applied']);
      // Nothing follows later either.
      await clock.advance(3_600_000);
      expect(transport.attempts).toHaveLength(1);
    },
  );

  it.each([
    { earlier: 'a 503', first: refusal(503, 'upstream_unavailable'), outcomeUnknown: false },
    { earlier: 'a lost answer', first: LOST, outcomeUnknown: true },
    { earlier: 'a 500', first: refusal(500, 'internal_error'), outcomeUnknown: true },
  ])(
    'two attempts, $earlier then a 503: the failure says whether the creation may exist ($outcomeUnknown)',
    async ({ first, outcomeUnknown }) => {
      const { clock, client } = scriptedClient([first, refusal(503, 'upstream_unavailable')]);
      const failed = expectFailure(
        await clock.complete(client.createSigningRequest(CREATION_BODY, KEY, { maxAttempts: 2 })),
      );
      expect(failed).toMatchObject({ code: 'upstream_unavailable', attempts: 2, outcomeUnknown });
    },
  );
});

describe('a call the service cannot recognise when repeated (adding a participant: no idempotency key)', () => {
  it.each([
    { what: 'its answer lost', first: LOST, code: 'network_unreachable', httpStatus: undefined },
    { what: 'no answer in time', first: TIMED_OUT, code: 'timeout', httpStatus: undefined },
    { what: 'a 500', first: refusal(500, 'internal_error'), code: 'internal_error', httpStatus: 500 },
    { what: 'a 502', first: answered(502), code: 'gateway_error', httpStatus: 502 },
    { what: 'a 504', first: answered(504), code: 'gateway_error', httpStatus: 504 },
  ])(
    'is not sent again after $what: it fails at once, saying the participant may have been added',
    async ({ first, code, httpStatus }) => {
      const { clock, transport, client } = scriptedClient([first, PARTICIPANT_ADDED]);
      const { settled, options } = settledLog();
      const failed = expectFailure(await clock.complete(client.addParticipant('sr_1', PARTICIPANT, options)));
      expect(failed).toMatchObject({ code, retryable: true, outcomeUnknown: true, attempts: 1 });
      expect(failed.httpStatus).toBe(httpStatus);
      expect(settled).toEqual(['maybe_applied']);
      await clock.advance(3_600_000);
      expect(transport.attempts).toHaveLength(1);
    },
  );

  it.each([
    { what: 'a connection refused', first: REFUSED },
    { what: 'a 503', first: refusal(503, 'upstream_unavailable', { 'retry-after': '1' }) },
    { what: 'a 429', first: refusal(429, 'rate_limited', { 'retry-after': '1' }) },
    { what: "a gateway's 404", first: GATEWAY_NOT_FOUND },
  ])('is sent again after $what, which proves nothing was added, and is added once', async ({ first }) => {
    const { clock, transport, client } = scriptedClient([first, PARTICIPANT_ADDED]);
    const { settled, options } = settledLog();
    const added = expectOk(await clock.complete(client.addParticipant('sr_1', PARTICIPANT, options)));
    expect(added.participantId).toBe('p_1');
    expect(settled).toEqual(['not_applied', 'maybe_applied']);
    expect(requestOf(transport.attempts[1])).toEqual(requestOf(transport.attempts[0]));
  });
});

describe('a 401: one token renewal, which is not one of the call’s attempts', () => {
  it('a 401 to a token kept from earlier gets one new token, and the same call goes again with it', async () => {
    const { clock, transport, client } = scriptedClient([REQUEST_READ, UNAUTHORIZED, REQUEST_READ]);
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
    const [, refused, again] = transport.attempts.map(requestOf);
    expect({ ...again, headers: { ...again!.headers, authorization: '' } }).toEqual({
      ...refused,
      headers: { ...refused!.headers, authorization: '' },
    });
  });

  it('with two attempts allowed, a 401, then a 503, then the answer: the renewal used none of them', async () => {
    const { clock, transport, client } = scriptedClient([
      UNAUTHORIZED,
      refusal(503, 'upstream_unavailable', { 'retry-after': '1' }),
      CREATED,
    ]);
    const created = expectOk(
      await clock.complete(client.createSigningRequest(CREATION_BODY, KEY, { maxAttempts: 2 })),
    );
    expect(created.id).toBe('sr_1');
    expect(transport.attempts.map((attempt) => attempt.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-2',
      'Bearer token-2',
    ]);
  });

  it('a 401 to the new token too: the credentials are rejected, after that one renewal only', async () => {
    const { clock, transport, client } = scriptedClient([UNAUTHORIZED, UNAUTHORIZED]);
    const refused = expectFailure(await clock.complete(client.getSigningRequest('sr_1')));
    expect(refused).toMatchObject({
      code: 'credentials_rejected',
      httpStatus: 401,
      retryable: false,
      outcomeUnknown: false,
      attempts: 1,
    });
    await clock.advance(3_600_000);
    expect(transport.tokensGranted).toBe(2);
    expect(transport.attempts).toHaveLength(2);
  });

  it('a 401 that comes late, after another call renewed the token: this call goes again with a token asked for after its 401', async () => {
    const { clock, transport, client } = scriptedClient({
      // Token-1 was revoked: both calls carry it; the participant's refusal takes 5 s to come back.
      [PARTICIPANTS_PATH]: [late(5_000, UNAUTHORIZED), PARTICIPANT_ADDED],
      [CREATE_PATH]: [UNAUTHORIZED, CREATED],
    });
    const adding = client.addParticipant('sr_1', PARTICIPANT);
    const creating = client.createSigningRequest(CREATION_BODY, KEY);
    const [added, created] = await clock.complete(Promise.all([adding, creating]));
    expectOk(added);
    expectOk(created);
    const authorizations = (path: string) =>
      transport.attemptsAt(path).map((attempt) => attempt.headers.authorization);
    // The creation renewed at once (token-2). Token-2 was 5 s old when the participant's 401 came
    // back, and may be refused as well: only a token asked for then says whether the
    // credentials are, so the participant goes again with one of its own.
    expect(authorizations(CREATE_PATH)).toEqual(['Bearer token-1', 'Bearer token-2']);
    expect(authorizations(PARTICIPANTS_PATH)).toEqual(['Bearer token-1', 'Bearer token-3']);
    expect(transport.attemptsAt(PARTICIPANTS_PATH).map((attempt) => attempt.at)).toEqual([0, 5_000]);
  });
});
