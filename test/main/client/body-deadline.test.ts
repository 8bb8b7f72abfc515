import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpTransport } from '../../../main/client/http-transport';
import { VirtualClock } from '../../../main/time/virtual-clock';

let server: Server;
let base: string;
/** Bytes of body the server has written, by path: the answer is under way once its headers are. */
const written = new Map<string, number>();
beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? '';
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"status":');
    written.set(path, 1);
    if (path === '/drip') {
      const timer = setInterval(() => {
        response.write(' ');
        written.set(path, (written.get(path) ?? 0) + 1);
      }, 10);
      response.on('close', () => clearInterval(timer));
    } // '/stall': never ends
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('deadline over the body', () => {
  for (const path of ['/stall', '/drip'])
    it(`times out a call whose body ${path} after its headers, at its deadline`, async () => {
      written.delete(path);
      // The deadline runs on a virtual clock; the body's bytes come in real time meanwhile.
      const clock = new VirtualClock();
      const transport = new HttpTransport(clock);
      let outcome: unknown;
      void transport
        .send({
          method: 'GET',
          url: base + path,
          headers: {},
          timeoutMs: 400,
          signal: new AbortController().signal,
        })
        .then((value) => (outcome = value));
      // The headers are in and the body has begun (a trickle keeps coming for /drip).
      await vi.waitFor(() => expect(written.get(path) ?? 0).toBeGreaterThanOrEqual(path === '/drip' ? 3 : 1));
      await clock.advanceWhileCallsHang(399);
      expect(outcome).toBeUndefined();
      await clock.advanceWhileCallsHang(1);
      // Given up at the deadline: said as soon as the connection is torn down.
      await vi.waitFor(() =>
        expect(outcome).toMatchObject({ kind: 'network', timedOut: true, errorCode: 'TIMEOUT' }),
      );
      await transport.close().catch(() => undefined);
    });
  it('caller abort mid-body rejects with its reason', async () => {
    written.delete('/stall');
    const transport = new HttpTransport(new VirtualClock());
    const caller = new AbortController();
    const sending = transport.send({
      method: 'GET',
      url: base + '/stall',
      headers: {},
      timeoutMs: 10_000,
      signal: caller.signal,
    });
    await vi.waitFor(() => expect(written.get('/stall')).toBe(1));
    caller.abort(new Error('stopped'));
    await expect(sending).rejects.toThrow('stopped');
    await transport.close().catch(() => undefined);
  });
});
