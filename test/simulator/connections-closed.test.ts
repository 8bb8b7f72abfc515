import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../simulator/simulator';
import { startVirtualSimulator } from '../support/virtual-world';
import { JSON_HEADERS, keepAliveClient, rawRequest } from './test-support';

/**
 * `connectionsClosed`: the moment a test may restart a "machine" and move the clock, because
 * everything the machine before it sent has reached the service (power-cut-send.test.ts).
 */
describe('the simulator says when every client connection is closed', () => {
  let sim: Simulator;

  beforeEach(async () => {
    sim = await startSimulator();
  });

  afterEach(async () => {
    await sim.close();
  });

  it('waits while a kept-alive connection stays open, and resolves once its client closes it', async () => {
    const client = keepAliveClient(sim.baseUrl);
    const answer = await client.send({ method: 'GET', path: '/api/v1/signing-requests/sr_1', headers: {} });
    expect(answer.status).toBe(401);
    // Given a moment (20 ms of real time to look again and again), it still sees the connection open.
    await expect(sim.connectionsClosed(20)).rejects.toThrow(
      '1 client connection(s) still open and 0 call(s) still being answered after 20 ms',
    );
    client.close();
    await expect(sim.connectionsClosed(1_000)).resolves.toBeUndefined();
  });

  it('has received what a machine sent in the instant before it went away, before the clock moves on', async () => {
    const token = await rawRequest(sim.baseUrl, {
      method: 'POST',
      path: '/oauth/token',
      headers: { ...JSON_HEADERS, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: DEMO_CLIENT.clientId,
        client_secret: DEMO_CLIENT.clientSecret,
      }).toString(),
    });
    if (token.kind !== 'answered') throw new Error(`token call failed: ${token.code}`);
    const accessToken = (JSON.parse(token.text) as { access_token: string }).access_token;
    const path = '/api/v1/signing-requests/sr_gone_with_its_machine';
    const socket = connect(Number(new URL(sim.baseUrl).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // A machine that dies with its read on the wire: the read is sent, the socket dropped at once.
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${accessToken}\r\nAccept: application/json\r\n\r\n`,
    );
    socket.destroy();
    await sim.connectionsClosed(1_000);
    // The machine comes back 6 s later and reads the same request: the two reads are 6 s apart.
    sim.clock.advance(6_000);
    const again = await rawRequest(sim.baseUrl, {
      method: 'GET',
      path,
      headers: { ...JSON_HEADERS, authorization: `Bearer ${accessToken}` },
    });
    expect(again).toMatchObject({ kind: 'answered', status: 404 });
    expect(sim.state.calls().filter((call) => call.path === path)).toHaveLength(2);
    expect(sim.state.violations()).toEqual([]);
  });

  it('waits for a call still being answered after its client went away', async () => {
    // The answer's latency runs on a virtual clock: it is still to come until the test lets it pass.
    const { sim: held, clock } = await startVirtualSimulator();
    try {
      held.faults.set({ latencyMs: 300 });
      const socket = connect(Number(new URL(held.baseUrl).port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        'GET /api/v1/signing-requests/sr_1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n',
      );
      socket.destroy();
      // The call has reached the service and waits out its latency (a 401 to come).
      await clock.runUntil(() => clock.pendingTimers === 1, { what: 'the call held at the service' });
      await expect(held.connectionsClosed(20)).rejects.toThrow(
        '0 client connection(s) still open and 1 call(s) still being answered after 20 ms',
      );
      await clock.advance(300);
      await expect(held.connectionsClosed(2_000)).resolves.toBeUndefined();
    } finally {
      await held.close();
    }
  });
});
