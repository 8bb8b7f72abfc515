/**
 * The service client is the last line of defence of the address rule
 * (main/client/base-url.ts): whichever caller forgot to check an address, a client made for
 * one that fails the rule sends nothing, not even the token request that carries the secret.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../main/client/service-client';
import type { LogFields } from '../../../main/base/log';
import { Secret } from '../../../main/base/secret';

/** A listener on 127.0.0.1 that records every request it receives, whatever its path, and answers 404. */
let server: Server;
let port: number;
const received: { method: string | undefined; url: string | undefined; authorization: boolean }[] = [];

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response) => {
    received.push({
      method: request.method,
      url: request.url,
      authorization: request.headers.authorization !== undefined,
    });
    request.resume();
    response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((closed) => server.close(closed));
});

const SECRET = 'the-client-secret';

function clientFor(baseUrl: string, logged: { event: string; fields: LogFields | undefined }[] = []) {
  return new ServiceClient({
    baseUrl,
    clientId: 'desk',
    clientSecret: new Secret(SECRET),
    retry: { maxAttempts: 1 },
    logger: { log: (_level, event, fields) => logged.push({ event, fields }) },
  });
}

describe('a service client made for an address that fails the rule sends nothing', () => {
  it.each([
    ['a user name and password', (p: number) => `http://desk:hunter2@127.0.0.1:${p}`],
    ['a user name only', (p: number) => `http://desk@127.0.0.1:${p}`],
    ['a query', (p: number) => `http://127.0.0.1:${p}/?tenant=1`],
    ['a fragment', (p: number) => `http://127.0.0.1:${p}#f`],
    ['plain http to another computer', () => 'http://sign.example.com'],
    ['another scheme', () => 'ftp://sign.example.com'],
    ['no address at all', () => 'not an address'],
  ])('%s: every call fails as address_refused, and nothing reached the listener', async (_label, address) => {
    const logged: { event: string; fields: LogFields | undefined }[] = [];
    const client = clientFor(address(port), logged);
    try {
      const token = await client.testConnection();
      expect(token).toEqual({
        ok: false,
        error: {
          operation: 'obtainToken',
          code: 'address_refused',
          message:
            'Nothing was sent: the service address is refused. The client secret only goes to an https:// address (http:// only to this computer) without user name, password, query or fragment. Check the connection’s address.',
          retryable: false,
          outcomeUnknown: false,
          attempts: 0,
          stage: 'token',
        },
      });
      const read = await client.getSigningRequest('sr_1');
      expect(read.ok || read.error.code).toBe('address_refused');
      expect(received).toEqual([]);
      // The log names the refusal, never the address (it may hold a password) or the secret.
      expect(logged.map((entry) => entry.event)).toContain('service.address_refused');
      const text = JSON.stringify(logged);
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain(SECRET);
    } finally {
      await client.close();
    }
  });

  it('an address that passes is used in its one spelling: the token request arrives', async () => {
    const client = clientFor(`HTTP://0x7f000001:${port}/`);
    try {
      const token = await client.testConnection();
      expect(token.ok).toBe(false);
      expect(received).toEqual([{ method: 'POST', url: '/oauth/token', authorization: false }]);
    } finally {
      await client.close();
      received.length = 0;
    }
  });
});
