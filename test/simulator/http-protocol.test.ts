import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import { fetchJson, getToken, keepAliveClient, rawRequest, readRequest } from './test-support';

let simulator: Simulator;
let token: string;

beforeEach(async () => {
  simulator = await startSimulator();
  token = await getToken(simulator);
});

afterEach(async () => {
  await simulator.close();
});

describe('HTTP behaviour shared by every endpoint', () => {
  it('binds 127.0.0.1 and gives a base URL without trailing slash', () => {
    expect(simulator.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers 404 not_found for an unknown route', async () => {
    for (const path of ['/', '/api/v1/nothing', '/api/v2/uploads', '/api/v1/signing-requests/sr_a/cancel']) {
      const answer = await fetchJson(`${simulator.baseUrl}${path}`, {
        headers: { accept: 'application/json' },
      });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    }
  });

  it('answers 405 method_not_allowed with Allow for a known route', async () => {
    const answer = await fetchJson(`${simulator.baseUrl}/api/v1/uploads`, {
      headers: { accept: 'application/json', authorization: `Bearer ${token}` },
    });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
    expect(answer.body.error.code).toBe('method_not_allowed');
    const deletion = await fetchJson(`${simulator.baseUrl}/api/v1/signing-requests/sr_a`, {
      method: 'DELETE',
    });
    expect([deletion.status, deletion.headers.get('allow')]).toEqual([405, 'GET']);
  });

  it('records a violation for a call without Accept, but still answers', async () => {
    const answer = await rawRequest(simulator.baseUrl, {
      method: 'GET',
      path: '/api/v1/signing-requests/sr_x',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.kind === 'answered' && answer.status).toBe(404);
    expect(simulator.state.violations()).toEqual([
      'accept: GET /api/v1/signing-requests/sr_x without Accept: application/json',
    ]);
  });

  it('accepts */* and application/json among other types without a violation', async () => {
    for (const accept of ['*/*', 'text/html, application/json;q=0.9', 'application/*']) {
      simulator.clock.advance(5_000); // reads of one request must be 5 s apart
      const answer = await fetchJson(`${simulator.baseUrl}/api/v1/signing-requests/sr_x`, {
        headers: { accept, authorization: `Bearer ${token}` },
      });
      expect(answer.status).toBe(404);
    }
    expect(simulator.state.violations()).toEqual([]);
  });

  it('answers 406 not_acceptable when Accept excludes JSON', async () => {
    const answer = await fetchJson(`${simulator.baseUrl}/api/v1/signing-requests/sr_x`, {
      headers: { accept: 'text/html', authorization: `Bearer ${token}` },
    });
    expect(answer.status).toBe(406);
    expect(answer.body.error.code).toBe('not_acceptable');
  });

  it('serves successive calls, errors included, over one keep-alive connection', async () => {
    const client = keepAliveClient(simulator.baseUrl);
    const read = (authorization: string) =>
      client.send({
        method: 'GET',
        path: '/api/v1/signing-requests/sr_a',
        headers: { accept: 'application/json', authorization },
      });
    try {
      expect(await read(`Bearer ${token}`)).toEqual({ status: 404, reusedSocket: false });
      expect(await read('Bearer wrong')).toEqual({ status: 401, reusedSocket: true });
      simulator.faults.enqueue({ kind: '503' });
      expect(await read(`Bearer ${token}`)).toEqual({ status: 503, reusedSocket: true });
      expect(await read(`Bearer ${token}`)).toEqual({ status: 404, reusedSocket: true });
    } finally {
      client.close();
    }
  });

  it('answers 413 request_too_large for a huge JSON body', async () => {
    const answer = await rawRequest(simulator.baseUrl, {
      method: 'POST',
      path: '/api/v1/signing-requests',
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': 'big',
      },
      body: JSON.stringify({ padding: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expect(answer.kind === 'answered' && answer.status).toBe(413);
    expect(answer.kind === 'answered' && JSON.parse(answer.text).error.code).toBe('request_too_large');
  });

  it('keeps a call log with operation names and answered statuses', async () => {
    await readRequest(simulator, token, 'sr_a');
    const calls = simulator.state.calls();
    expect(calls.map((call) => [call.method, call.path, call.operation, call.status, call.clientId])).toEqual(
      [
        ['POST', '/oauth/token', 'token', 200, 'demo-desk'],
        ['GET', '/api/v1/signing-requests/sr_a', 'readSigningRequest', 404, 'demo-desk'],
      ],
    );
    expect(calls[1]?.at).toMatch(/Z$/);
  });
});
