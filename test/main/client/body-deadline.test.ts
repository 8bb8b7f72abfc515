import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport } from '../../../main/client/http-transport';

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"status":');
    if (request.url === '/drip') {
      const timer = setInterval(() => response.write(' '), 50);
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
    it(`times out a call whose body ${path} after its headers`, async () => {
      const transport = new HttpTransport();
      const started = Date.now();
      const outcome = await transport.send({
        method: 'GET',
        url: base + path,
        headers: {},
        timeoutMs: 400,
        signal: new AbortController().signal,
      });
      expect(outcome).toMatchObject({ kind: 'network', timedOut: true, errorCode: 'TIMEOUT' });
      expect(Date.now() - started).toBeLessThan(2_000);
      await transport.close().catch(() => undefined);
    });
  it('caller abort mid-body rejects with its reason', async () => {
    const transport = new HttpTransport();
    const caller = new AbortController();
    setTimeout(() => caller.abort(new Error('stopped')), 200);
    await expect(
      transport.send({
        method: 'GET',
        url: base + '/stall',
        headers: {},
        timeoutMs: 10_000,
        signal: caller.signal,
      }),
    ).rejects.toThrow('stopped');
    await transport.close().catch(() => undefined);
  });
});
