import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { expectFailure, expectOk, makeTestClient } from '../../support/client-harness';
import {
  startScriptedServer,
  tokenWithoutLifetime,
  type ScriptedAnswer,
} from '../../support/scripted-server';

const credentials = { clientId: 'desk', clientSecret: 'scripted-secret' };
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

async function serve(answerForRead: () => ScriptedAnswer) {
  const server = await startScriptedServer(
    (request) => (request.url === '/oauth/token' ? tokenWithoutLifetime : answerForRead()),
    { clock },
  );
  close = server.close;
  return { server, client: makeTestClient(server.baseUrl, credentials, { clock }).client };
}

describe('answers the spec does not show', () => {
  it('shows an unknown error code with its code and message', async () => {
    const { client } = await serve(() => ({
      status: 418,
      body: JSON.stringify({ error: { code: 'quota_exceeded', message: 'Monthly quota reached' } }),
    }));
    const error = expectFailure(await run(client.getSigningRequest('sr_1')));
    expect(error).toMatchObject({ httpStatus: 418, code: 'quota_exceeded', retryable: false });
    expect(error.message).toBe(
      'The signing service answered with error "quota_exceeded": Monthly quota reached',
    );
  });

  it('treats any 2xx as success and keeps unknown fields', async () => {
    const { client } = await serve(() => ({
      status: 203,
      body: JSON.stringify({ id: 'sr_1', status: 'archived', region: 'eu', evidence: { ready: false } }),
    }));
    const read = expectOk(await run(client.getSigningRequest('sr_1')));
    expect(read).toMatchObject({ status: 'archived', region: 'eu' });
  });

  it('reports an unreadable success answer as invalid_response', async () => {
    const { client } = await serve(() => ({ status: 200, body: '<html>proxy login</html>' }));
    const error = expectFailure(await run(client.getSigningRequest('sr_1')));
    expect(error).toMatchObject({ code: 'invalid_response', retryable: false });
    expect(error.message).toContain('does not understand');
  });

  it('reports a 500 without a JSON body by its HTTP status: retried, then retryable with the outcome unknown', async () => {
    const { server, client } = await serve(() => ({ status: 500, body: 'Internal Server Error' }));
    const error = expectFailure(await run(client.prepareSigningRequest('sr_1')));
    expect(error).toMatchObject({
      httpStatus: 500,
      code: 'service_error',
      retryable: true,
      outcomeUnknown: true,
    });
    expect(server.requests.filter((request) => request.url?.endsWith('/prepare'))).toHaveLength(8);
  });

  it('honours a Retry-After given as an HTTP date', async () => {
    let prepares = 0;
    const { client } = await serve(() => {
      prepares += 1;
      return prepares === 1
        ? {
            status: 503,
            body: '{"error":{"code":"upstream_unavailable","message":"busy"}}',
            headers: { 'retry-after': new Date(clock.now() + 1500).toUTCString() },
          }
        : {
            status: 200,
            body: JSON.stringify({ id: 'sr_1', status: 'prepared', document: { revision: 1, sha256: 'ab' } }),
          };
    });
    const started = clock.monotonic();
    expectOk(await run(client.prepareSigningRequest('sr_1')));
    // HTTP dates have one-second precision, so the wait is between 0.5 and 1.5 s.
    const waited = clock.monotonic() - started;
    expect(waited).toBeGreaterThanOrEqual(500);
    expect(waited).toBeLessThanOrEqual(1500);
    expect(prepares).toBe(2);
  });

  it("measures an HTTP-date Retry-After from the answer's Date header: a service clock a day ahead does not hold calls for a day", async () => {
    const serviceClock = clock.now() + 25 * 3_600_000;
    let prepares = 0;
    const { client } = await serve(() => {
      prepares += 1;
      return prepares === 1
        ? {
            status: 503,
            body: '{"error":{"code":"upstream_unavailable","message":"busy"}}',
            headers: {
              date: new Date(serviceClock).toUTCString(),
              'retry-after': new Date(serviceClock + 2_000).toUTCString(),
            },
          }
        : {
            status: 200,
            body: JSON.stringify({ id: 'sr_1', status: 'prepared', document: { revision: 1, sha256: 'ab' } }),
          };
    });
    const started = clock.monotonic();
    expectOk(await run(client.prepareSigningRequest('sr_1')));
    // Two seconds by the service's own clock, whatever this computer's clock says.
    expect(clock.monotonic() - started).toBe(2_000);
    expect(prepares).toBe(2);
  });

  it('without expires_in keeps the token until a 401, then renews once; a second 401 is "credentials rejected"', async () => {
    const { server, client } = await serve(() => ({
      status: 401,
      body: '{"error":{"code":"invalid_token","message":"expired"}}',
    }));
    const error = expectFailure(await run(client.createWidgetSession('sr_1')));
    expect(error).toMatchObject({ code: 'credentials_rejected', httpStatus: 401 });
    const tokenCalls = server.requests.filter((request) => request.url === '/oauth/token');
    expect(tokenCalls).toHaveLength(2);
  });

  it.each([
    [400, 'invalid_client', 'credentials_rejected'],
    [400, 'invalid_grant', 'credentials_rejected'],
    [401, 'invalid_client', 'credentials_rejected'],
    [400, 'unsupported_grant_type', 'unsupported_grant_type'],
    [400, 'invalid_request', 'invalid_request'],
  ])('a token call answered %i %s is reported as %s', async (status, oauthCode, expected) => {
    const server = await startScriptedServer(
      () => ({
        status,
        body: JSON.stringify({ error: oauthCode, error_description: `the service says ${oauthCode}` }),
      }),
      { clock },
    );
    close = server.close;
    const error = expectFailure(
      await run(makeTestClient(server.baseUrl, credentials, { clock }).client.testConnection()),
    );
    expect(error).toMatchObject({ code: expected, httpStatus: status, retryable: false });
    if (expected !== 'credentials_rejected')
      expect(error.message).toBe(
        `The signing service answered with error "${oauthCode}": the service says ${oauthCode}`,
      );
    expect(JSON.stringify(error)).not.toContain(credentials.clientSecret);
  });

  it('sends the token call form-encoded and never a bearer token with it', async () => {
    const { server, client } = await serve(() => ({
      status: 200,
      body: '{"id":"sr_1","status":"prepared"}',
    }));
    expectOk(await run(client.getSigningRequest('sr_1')));
    const tokenCall = server.requests.find((request) => request.url === '/oauth/token');
    expect(tokenCall?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(tokenCall?.headers.authorization).toBeUndefined();
    const read = server.requests.find((request) => request.url === '/api/v1/signing-requests/sr_1');
    expect(read?.headers.authorization).toBe('Bearer scripted-token');
    expect(read?.headers.accept).toBe('application/json');
  });
});
