import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  TOKEN_REFUSAL_BACKOFF_MS,
  TOKEN_REFUSAL_WINDOW_MS,
  TOKEN_REFUSALS_TO_REJECT,
} from '../../../main/client/token-manager';
import { testConnection } from '../../../main/credentials/connection-test';
import { Secret } from '../../../main/base/secret';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { expectFailure, makeTestClient } from '../../support/client-harness';
import { startVirtualSimulator } from '../../support/virtual-world';

/**
 * A refused token request (README "Answers the spec does not pin down"): a service refuses tokens for
 * a moment while it rotates its keys, so for credentials that got a token in this process a
 * refusal is waited out like an outage, naming the service's code; only refusals that go on for
 * about 30 s, or a refusal to credentials that never got a token here, mean they are rejected.
 * The client and the simulator run on one virtual clock, which the test moves: nobody waits 30 s.
 */
let sim: Simulator;
let clock: VirtualClock;

beforeEach(async () => {
  ({ sim, clock } = await startVirtualSimulator({ seed: 21 }));
});
afterEach(async () => {
  await sim.close();
});

/** Lets virtual time run until `work` has ended. */
function run<T>(work: Promise<T>): Promise<T> {
  return clock.complete(work);
}

/**
 * A client on the simulator's clock, which has got a token, and whose token the service then
 * forgot. `random` draws the jitter of the waits (0: none; just under 1: the longest).
 */
async function clientWithTokenThenRevoked(random: () => number = () => 0) {
  const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, {
    clock,
    random,
  });
  // Any authenticated call gets the first token; this one is answered 404 (no such request).
  expect(expectFailure(await run(client.createWidgetSession('sr_none'))).code).toBe(
    'signing_request_not_found',
  );
  sim.revokeTokens();
  return client;
}

function tokenCalls() {
  return sim.state.calls().filter((call) => call.operation === 'token');
}

describe('a refused token request', () => {
  it('is waited out, naming the service code, and the next token request waits its backoff', async () => {
    const client = await clientWithTokenThenRevoked();
    sim.faults.enqueue({ kind: 'tokenRefusal' });
    const refused = expectFailure(await run(client.createWidgetSession('sr_none')));
    expect(refused).toMatchObject({
      code: 'token_refused',
      serviceCode: 'invalid_grant',
      httpStatus: 400,
      stage: 'token',
      retryable: true,
      retryAfterMs: TOKEN_REFUSAL_BACKOFF_MS.first,
    });
    expect(refused.message).toBe(
      'The service refused a token (invalid_grant) — often a moment during key rotation; trying again…',
    );
    // Within the backoff, a call gets the same answer without a token request.
    const before = tokenCalls().length;
    const held = expectFailure(await run(client.createWidgetSession('sr_none')));
    expect(held).toMatchObject({ code: 'token_refused', serviceCode: 'invalid_grant' });
    expect(held.retryAfterMs).toBeGreaterThan(0);
    expect(held.retryAfterMs).toBeLessThanOrEqual(TOKEN_REFUSAL_BACKOFF_MS.first);
    expect(tokenCalls()).toHaveLength(before);
    // It is the same answer of the service, said once however many calls meet it.
    expect(held.answerId).toBe(refused.answerId);
    // After it, a token is asked for again and granted: the call goes through.
    await clock.advance(TOKEN_REFUSAL_BACKOFF_MS.first);
    expect(expectFailure(await run(client.createWidgetSession('sr_none'))).code).toBe(
      'signing_request_not_found',
    );
    expect(tokenCalls().map((call) => call.status)).toEqual([200, 400, 200]);
    // A later refusal is another answer.
    sim.revokeTokens();
    sim.faults.enqueue({ kind: 'tokenRefusal' });
    await clock.advance(60_000);
    const again = expectFailure(await run(client.createWidgetSession('sr_none')));
    expect(again.code).toBe('token_refused');
    expect(again.answerId).not.toBe(refused.answerId);
  });

  it.each([
    ['without jitter', 0],
    ['with the longest jitter', 0.999],
  ])(
    'that goes on past the window rejects the credentials: exactly 5 token requests, spaced 2, 4, 8 and 16 s (%s)',
    async (_name, draw) => {
      const client = await clientWithTokenThenRevoked(() => draw);
      sim.faults.set({ tokenRefusalRate: 1, tokenRefusalCode: 'invalid_client' });
      const firstRefusal = tokenCalls().length;
      const answers = [];
      for (;;) {
        const failure = expectFailure(await run(client.createWidgetSession('sr_none')));
        answers.push(failure);
        if (!failure.retryable) break;
        expect(answers.length, 'the credentials were never rejected').toBeLessThan(20);
        await clock.advance(failure.retryAfterMs ?? 0);
      }
      const jittered = (ms: number) => Math.round(ms * (1 + draw / 2));
      expect(answers.map((answer) => [answer.code, answer.serviceCode, answer.retryAfterMs])).toEqual([
        ['token_refused', 'invalid_client', jittered(2_000)],
        ['token_refused', 'invalid_client', jittered(4_000)],
        ['token_refused', 'invalid_client', jittered(8_000)],
        ['token_refused', 'invalid_client', jittered(16_000)],
        ['credentials_rejected', 'invalid_client', undefined],
      ]);
      expect(answers.at(-1)).toMatchObject({ httpStatus: 401, stage: 'token', retryable: false });
      expect(answers.at(-1)?.message).toContain('rejected the connection credentials');

      const refusals = tokenCalls().slice(firstRefusal);
      expect(refusals).toHaveLength(TOKEN_REFUSALS_TO_REJECT);
      expect(refusals.every((call) => call.status === 401 && call.fault === 'tokenRefusal')).toBe(true);
      const at = refusals.map((call) => Date.parse(call.at));
      const gaps = at.slice(1).map((time, index) => time - (at[index] ?? 0));
      for (const [index, gap] of gaps.entries()) {
        const backoff = jittered(TOKEN_REFUSAL_BACKOFF_MS.first * 2 ** index);
        expect(gap, `gap ${index + 1}`).toBeGreaterThanOrEqual(backoff);
        expect(gap, `gap ${index + 1}`).toBeLessThan(backoff + 1_000);
        // On one clock, exactly: each request as soon as its backoff is over.
        expect(gap, `gap ${index + 1}`).toBe(backoff);
      }
      expect((at.at(-1) ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(TOKEN_REFUSAL_WINDOW_MS);

      // Rejected now, also for the next caller, without another request inside the backoff.
      expect(expectFailure(await run(client.createWidgetSession('sr_none'))).code).toBe(
        'credentials_rejected',
      );
      expect(tokenCalls().slice(firstRefusal)).toHaveLength(TOKEN_REFUSALS_TO_REJECT);
    },
  );

  it('starts a new streak once a token is granted', async () => {
    const client = await clientWithTokenThenRevoked();
    for (let refusal = 1; refusal <= 4; refusal += 1) {
      sim.faults.enqueue({ kind: 'tokenRefusal' });
      const failure = expectFailure(await run(client.createWidgetSession('sr_none')));
      expect(failure.code).toBe('token_refused');
      await clock.advance(failure.retryAfterMs ?? 0);
    }
    // Granted: the streak of 4 (30 s) is over.
    expect(expectFailure(await run(client.createWidgetSession('sr_none'))).code).toBe(
      'signing_request_not_found',
    );
    sim.revokeTokens();
    sim.faults.enqueue({ kind: 'tokenRefusal' });
    expect(expectFailure(await run(client.createWidgetSession('sr_none')))).toMatchObject({
      code: 'token_refused',
      retryAfterMs: TOKEN_REFUSAL_BACKOFF_MS.first,
    });
  });
});

describe('credentials that never got a token in this process', () => {
  it('are rejected at the first refusal', async () => {
    const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock });
    sim.faults.enqueue({ kind: 'tokenRefusal' });
    expect(expectFailure(await run(client.createWidgetSession('sr_none')))).toMatchObject({
      code: 'credentials_rejected',
      serviceCode: 'invalid_grant',
      stage: 'token',
      retryable: false,
    });
    expect(tokenCalls()).toHaveLength(1);
  });

  it('include a secret changed since: the first refusal is a verdict', async () => {
    const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock });
    expect(expectFailure(await run(client.createWidgetSession('sr_none'))).code).toBe(
      'signing_request_not_found',
    );
    const other = makeTestClient(
      sim.baseUrl,
      { ...DEMO_CLIENT, clientSecret: 'another-secret' },
      { clock },
    ).client;
    expect(expectFailure(await run(other.createWidgetSession('sr_none'))).code).toBe('credentials_rejected');
  });
});

describe('"Test connection"', () => {
  it('gives a verdict at the first refusal, also for credentials that got a token in this process', async () => {
    const connection = {
      baseUrl: sim.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      clientSecret: new Secret(DEMO_CLIENT.clientSecret),
    };
    expect(await testConnection(connection)).toMatchObject({ ok: true });
    sim.faults.enqueue({ kind: 'tokenRefusal' });
    expect(await testConnection(connection)).toMatchObject({
      ok: false,
      error: {
        code: 'credentials_rejected',
        message: expect.stringContaining('rejected the connection credentials'),
      },
    });
    expect(tokenCalls().map((call) => call.status)).toEqual([200, 400]);
  });
});
