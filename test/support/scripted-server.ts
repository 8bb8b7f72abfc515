import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../main/time/clock';

/** One canned answer of a scripted server. */
export interface ScriptedAnswer {
  readonly status: number;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ScriptedServerOptions {
  /**
   * The service's clock: its `Date` header reads it (a test's virtual clock, so Retry-After dates
   * and token ages are on the test's time). Default: Node's own `Date` header, this computer's.
   */
  readonly clock?: Clock;
}

/**
 * A real HTTP server on loopback that answers from a script, for service behaviours the
 * simulator never shows (unknown codes, malformed answers). Unscripted paths answer 404.
 */
export async function startScriptedServer(
  script: (request: IncomingMessage) => ScriptedAnswer | undefined,
  options: ScriptedServerOptions = {},
): Promise<{ baseUrl: string; requests: IncomingMessage[]; close(): Promise<void> }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    requests.push(request);
    request.resume();
    request.on('end', () => {
      const answer = script(request) ?? {
        status: 404,
        body: '{"error":{"code":"not_found","message":"no"}}',
      };
      const date = options.clock ? { date: new Date(options.clock.now()).toUTCString() } : {};
      response.writeHead(answer.status, { 'content-type': 'application/json', ...date, ...answer.headers });
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The answer of a token endpoint that grants `token` without saying for how long. */
export const tokenWithoutLifetime: ScriptedAnswer = {
  status: 200,
  body: JSON.stringify({ access_token: 'scripted-token' }),
};
