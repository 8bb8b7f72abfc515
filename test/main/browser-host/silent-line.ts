/**
 * A line between a page and the browser host that a test can make go silent without closing,
 * as a connection does when a laptop sleeps or a network path drops: bytes stop arriving, and
 * nothing says so. Chromium reaches it as an HTTP proxy (CONNECT tunnels, the app's WebSocket
 * among them); Node clients through `port`, a plain forward to the host.
 *
 * `silence('to-page')` stops what the host sends from reaching the page (a call still arrives,
 * its answer is lost); `silence('both')` stops everything. Either way new connections hang
 * unanswered until `restore()`, which lets new ones through; the silenced ones stay silent.
 */
import { createServer as createHttpServer, request } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface SilentLine {
  /** For Playwright's `proxy.server` (with `bypass: '<-loopback>'`). */
  readonly proxy: string;
  /** A plain forward to the host's port, for Node clients (which must send the host's Host header). */
  readonly port: number;
  silence(what: 'to-page' | 'both'): void;
  restore(): void;
  close(): Promise<void>;
}

interface Tunnel {
  toPage: boolean;
  toHost: boolean;
  readonly sockets: readonly Socket[];
}

export async function startSilentLine(hostPort: number): Promise<SilentLine> {
  const tunnels = new Set<Tunnel>();
  const held = new Set<Socket>();
  let silent = false;

  /** Carries bytes between the page's socket and the host's while the tunnel lets them. */
  const join = (page: Socket, host: Socket, head?: Buffer): void => {
    const tunnel: Tunnel = { toPage: true, toHost: true, sockets: [page, host] };
    tunnels.add(tunnel);
    if (head && head.length > 0) host.write(head);
    page.on('data', (chunk) => {
      if (tunnel.toHost) host.write(chunk);
    });
    host.on('data', (chunk) => {
      if (tunnel.toPage) page.write(chunk);
    });
    // An end closing reaches the other only while the line carries things that way: a host
    // that gives up on a silent page closes nothing the page can see, as on a dead path.
    const closeWith = (closed: Socket, other: Socket, carries: () => boolean) => {
      const end = () => {
        if (carries()) other.destroy();
        if (page.destroyed && host.destroyed) tunnels.delete(tunnel);
      };
      closed.on('error', () => closed.destroy());
      closed.on('close', end);
    };
    closeWith(page, host, () => tunnel.toHost);
    closeWith(host, page, () => tunnel.toPage);
  };

  /** A new connection while the line is silent hangs, as a dead path does. */
  const holdIfSilent = (socket: Socket): boolean => {
    if (!silent) return false;
    held.add(socket);
    socket.on('error', () => socket.destroy());
    socket.once('close', () => held.delete(socket));
    return true;
  };

  // Plain requests (the page and its assets) are forwarded as they are; only tunnels go silent.
  const proxy = createHttpServer((incoming, answer) => {
    const target = URL.canParse(incoming.url ?? '') ? new URL(incoming.url ?? '') : undefined;
    if (!target || target.hostname !== '127.0.0.1' || Number(target.port) !== hostPort) {
      answer.writeHead(403).end();
      return;
    }
    const headers = { ...incoming.headers };
    for (const name of ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization'])
      delete headers[name];
    const upstream = request(
      {
        host: '127.0.0.1',
        port: hostPort,
        method: incoming.method,
        path: `${target.pathname}${target.search}`,
        headers,
      },
      (response) => {
        answer.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(answer);
      },
    );
    upstream.on('error', () => answer.destroy());
    incoming.pipe(upstream);
  });
  proxy.on('connect', (request, page: Socket, head: Buffer) => {
    if (holdIfSilent(page)) return;
    const [hostname, portText] = (request.url ?? '').split(':');
    if ((hostname !== '127.0.0.1' && hostname !== 'localhost') || Number(portText) !== hostPort) {
      page.destroy();
      return;
    }
    const host = connect(hostPort, '127.0.0.1', () => {
      page.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      join(page, host, head);
    });
    host.on('error', () => page.destroy());
  });
  const forward: Server = createServer((page) => {
    if (holdIfSilent(page)) return;
    const host = connect(hostPort, '127.0.0.1', () => join(page, host));
    host.on('error', () => page.destroy());
  });

  const listen = async (server: Server): Promise<number> => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address !== 'object') throw new Error('the line has no port');
    return address.port;
  };
  const proxyPort = await listen(proxy);
  const port = await listen(forward);

  return {
    proxy: `http://127.0.0.1:${proxyPort}`,
    port,
    silence(what) {
      silent = true;
      for (const tunnel of tunnels) {
        tunnel.toPage = false;
        if (what === 'both') tunnel.toHost = false;
      }
    },
    restore() {
      silent = false;
      for (const socket of held) socket.destroy();
    },
    async close() {
      for (const tunnel of tunnels) for (const socket of tunnel.sockets) socket.destroy();
      for (const socket of held) socket.destroy();
      await Promise.all(
        [proxy, forward].map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              if ('closeAllConnections' in server) server.closeAllConnections();
            }),
        ),
      );
    },
  };
}
