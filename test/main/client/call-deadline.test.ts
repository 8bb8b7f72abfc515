import { createHook } from 'node:async_hooks';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport } from '../../../main/client/http-transport';

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end('{"status":"prepared"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/read`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('call deadline', () => {
  it('leaves no timer behind once a call is answered (a poller reads a thousand times a day and more)', async () => {
    const transport = new HttpTransport();
    const live = new Set<number>();
    const hook = createHook({
      init(id, type) {
        if (type === 'Timeout') live.add(id);
      },
      destroy(id) {
        live.delete(id);
      },
    });
    const caller = new AbortController();
    hook.enable();
    try {
      for (let call = 0; call < 50; call += 1) {
        const outcome = await transport.send({
          method: 'GET',
          url,
          headers: {},
          timeoutMs: 30_000,
          signal: caller.signal,
        });
        expect(outcome).toMatchObject({ kind: 'answered', status: 200 });
      }
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      hook.disable();
      await transport.close();
    }
    // Each call's 30-s deadline ended with its answer; timers of the server and the connection pool may live on, not one a call.
    expect(live.size).toBeLessThan(20);
  });
});
