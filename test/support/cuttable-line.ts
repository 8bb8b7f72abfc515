/**
 * A line between a browser and a server on loopback that a test can cut: an HTTP proxy (the
 * browser context's `proxy`) that forwards plain requests and tunnels everything else, the
 * app's WebSocket included, through CONNECT. `cut()` closes every connection through it and
 * refuses new ones until `restore()`: the page loses its server as when the server goes away
 * (its connections closed, new ones refused), with no stand-in socket of the test's own in
 * between.
 */
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface CuttableLine {
  /** The proxy's address, for Playwright's `proxy.server`. */
  readonly server: string;
  /** Drops every connection through the line; new ones are refused until `restore()`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Only loopback servers are reached through the line: it is a test's, never a way out. */
function loopbackPort(host: string | undefined, port: string | undefined): number | undefined {
  if (host !== '127.0.0.1' && host !== 'localhost') return undefined;
  const number = Number(port);
  return Number.isInteger(number) && number > 0 && number < 65_536 ? number : undefined;
}

/** Headers that concern one hop only (RFC 9110 §7.6.1), never forwarded. */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

function forwardable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const forwarded = { ...headers };
  for (const name of HOP_BY_HOP) delete forwarded[name];
  return forwarded;
}

export async function startCuttableLine(): Promise<CuttableLine> {
  let open = true;
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    // A kept-alive socket is handed out again for each request: tracked once.
    if (sockets.has(socket)) return;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const proxy = createServer((incoming, answer) => {
    const target = URL.canParse(incoming.url ?? '') ? new URL(incoming.url ?? '') : undefined;
    const port = loopbackPort(target?.hostname, target?.port);
    if (!open || !target || port === undefined) {
      incoming.socket.destroy();
      return;
    }
    const upstream = request(
      {
        host: target.hostname,
        port,
        method: incoming.method,
        path: `${target.pathname}${target.search}`,
        headers: forwardable(incoming.headers),
      },
      (response) => {
        answer.writeHead(response.statusCode ?? 502, forwardable(response.headers));
        response.pipe(answer);
      },
    );
    upstream.on('socket', track);
    upstream.on('error', () => answer.destroy());
    incoming.pipe(upstream);
  });
  proxy.on('connection', track);
  proxy.on('connect', (incoming, client: Socket, head: Buffer) => {
    const [host, portText] = (incoming.url ?? '').split(':');
    const port = loopbackPort(host, portText);
    if (!open || port === undefined) {
      client.destroy();
      return;
    }
    const upstream = connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    track(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  if (!address || typeof address !== 'object') throw new Error('the line has no port');

  const cut = (): void => {
    open = false;
    for (const socket of sockets) socket.destroy();
  };
  return {
    server: `http://127.0.0.1:${address.port}`,
    cut,
    restore() {
      open = true;
    },
    async close() {
      cut();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
