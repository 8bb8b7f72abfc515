/**
 * The browser host's server: the built renderer and the page-side bridge over HTTP, and the
 * bridge itself over a WebSocket, on 127.0.0.1 only. The WebSocket is the browser's stand-in
 * for Electron's IPC: it accepts a page only when it presents this launch's secret from this
 * very origin, then hands it to bridge-pages.ts, where every call goes through `dispatchInvoke`,
 * exactly as IPC calls do.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { readFile, realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { DeskHandlers } from '../../shared/ipc/contract';
import { englishWords, type Translator } from '../../shared/i18n/translator';
import type { DeskServiceDeps } from '../app/desk-service';
import type { Logger } from '../base/log';
import {
  BRIDGE_PATH,
  BRIDGE_PROTOCOL,
  BRIDGE_SCRIPT_PATH,
  MAX_MESSAGE_BYTES,
  SECRET_HASH_PARAMETER,
  SECRET_PROTOCOL_PREFIX,
} from '../../shared/ipc/browser-host-protocol';
import { createBridgePages, type BridgeTuning } from './bridge-pages';

export interface BrowserHostOptions {
  /** The desk service's handlers: what the bridge's calls reach. */
  readonly handlers: DeskHandlers;
  readonly logger: Logger;
  /** The built renderer (dist/renderer): index.html and its assets. */
  readonly rendererDir: string;
  /** The bundled page-side bridge; defaults to desk-bridge.js next to this bundle. */
  readonly bridgeScriptPath?: string;
  /** Default 0: any free port. */
  readonly port?: number;
  /** Tests only: quicker pings, fewer kept events. */
  readonly bridgeTuning?: BridgeTuning;
  /** The desk's language now, for the words of the pages a one-time link answers with (default English). */
  readonly words?: () => Translator['t'];
}

/** Where a one-time link leads, decided when it is followed (so an expired URL is never used). */
export type HandoffTarget = () => Promise<{ readonly location: string } | { readonly failure: string }>;

export interface BrowserHost {
  /** The app's address with this launch's secret in its fragment: `http://127.0.0.1:PORT/#secret=…`. */
  readonly url: string;
  /** `http://127.0.0.1:PORT`: the only Origin the bridge accepts. */
  readonly origin: string;
  readonly port: number;
  /** Sends an event to every connected page, numbered, kept for a page that misses it (the desk service's `emit`). */
  readonly emit: DeskServiceDeps['emit'];
  /**
   * A single-use link (`http://127.0.0.1:PORT/handoff/<token>`, valid two minutes) that redirects
   * to what `target` says when followed. It lets a browser window be pointed at a secret URL
   * without the secret appearing on a command line, which other local users can read.
   */
  handoff(target: HandoffTarget): string;
  /** Closes every page's bridge (code 1001) and stops listening. */
  close(): Promise<void>;
}

const HANDOFF_LIFETIME_MS = 120_000;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/** The same policy as the Electron app's pages, plus the one WebSocket the page may open. */
export function contentSecurityPolicy(port: number): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "worker-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ws://127.0.0.1:${port}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Puts the bridge script in <head>, before the app's first script, so `window.desk` exists first. */
export function injectBridgeScript(html: string): string {
  const tag = `<script src="${BRIDGE_SCRIPT_PATH}"></script>`;
  const headEnd = html.search(/<\/head\s*>/i);
  const firstScript = html.search(/<script\b/i);
  const at = firstScript !== -1 && (headEnd === -1 || firstScript < headEnd) ? firstScript : headEnd;
  return at === -1 ? `${tag}${html}` : `${html.slice(0, at)}${tag}${html.slice(at)}`;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * Starts the browser host on 127.0.0.1 with a fresh 32-byte secret. Every HTTP request must name
 * the host `127.0.0.1:PORT` (DNS rebinding); the bridge additionally requires the Origin
 * `http://127.0.0.1:PORT` and the secret, and refuses anything else with 403 before upgrading.
 */
export async function startBrowserHost(options: BrowserHostOptions): Promise<BrowserHost> {
  const { handlers, logger } = options;
  const t = () => options.words?.() ?? englishWords();
  const bridgeScriptPath = options.bridgeScriptPath ?? join(import.meta.dirname, 'desk-bridge.js');
  const bridgeScript = await readFile(bridgeScriptPath, 'utf8').catch(() => {
    throw new Error(`The page bridge is missing at ${bridgeScriptPath}: run "npm run build" first.`);
  });
  const rendererRoot = await realpath(options.rendererDir).catch(() => {
    throw new Error(`The renderer is missing at ${options.rendererDir}: run "npm run build" first.`);
  });
  const secret = randomBytes(32).toString('base64url');
  const secretDigest = digest(secret);
  const pages = createBridgePages({
    handlers,
    logger,
    ...(options.bridgeTuning ? { tuning: options.bridgeTuning } : {}),
  });
  const handoffs = new Map<string, { readonly target: HandoffTarget; readonly timer: NodeJS.Timeout }>();
  let closed = false;
  // Known once listening; every check below runs after that.
  let hostHeader = '';
  let origin = '';
  let csp = '';

  const securityHeaders = (): Record<string, string> => ({
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  });

  const send = (
    request: IncomingMessage,
    response: ServerResponse,
    status: number,
    contentType: string,
    body: string | Buffer,
    extra: Record<string, string> = {},
  ): void => {
    response.writeHead(status, {
      ...securityHeaders(),
      'Content-Type': contentType,
      'Content-Length': String(Buffer.byteLength(body)),
      ...extra,
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  };
  const sendText = (request: IncomingMessage, response: ServerResponse, status: number, text: string) =>
    send(request, response, status, 'text/plain; charset=utf-8', `${text}\n`);

  async function serveIndex(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // Read on every request: a rebuilt renderer shows up on reload without restarting the host.
    const html = await readFile(join(rendererRoot, 'index.html'), 'utf8');
    send(request, response, 200, CONTENT_TYPES['.html'] as string, injectBridgeScript(html));
  }

  async function serveFile(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    const inside = (candidate: string) =>
      candidate === rendererRoot || candidate.startsWith(rendererRoot + sep);
    const target = resolve(rendererRoot, `.${path}`);
    if (!inside(target)) return sendText(request, response, 403, 'Forbidden');
    // A symbolic link inside the folder must not lead out of it either.
    const real = await realpath(target).catch(() => undefined);
    // Chromium asks for a favicon on its own; "none" keeps a console error out of every page.
    if (!real && path === '/favicon.ico') return send(request, response, 204, 'image/x-icon', '');
    if (!real || !inside(real)) return sendText(request, response, 404, 'Not found');
    if (real === join(rendererRoot, 'index.html')) return serveIndex(request, response);
    const info = await stat(real);
    if (!info.isFile()) return sendText(request, response, 404, 'Not found');
    const type = CONTENT_TYPES[extname(real).toLowerCase()] ?? 'application/octet-stream';
    send(request, response, 200, type, await readFile(real));
  }

  async function redeemHandoff(
    request: IncomingMessage,
    response: ServerResponse,
    token: string,
  ): Promise<void> {
    const key = digest(token).toString('hex');
    const entry = handoffs.get(key);
    if (!entry || request.method !== 'GET') {
      return sendText(request, response, 410, t()('host.linkUsed'));
    }
    handoffs.delete(key);
    clearTimeout(entry.timer);
    const outcome = await entry.target().catch(() => ({ failure: t()('host.pageNotOpened') }));
    if ('location' in outcome) {
      response.writeHead(302, { ...securityHeaders(), Location: outcome.location, 'Content-Length': '0' });
      response.end();
    } else {
      sendText(request, response, 502, outcome.failure);
    }
  }

  async function handleRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.headers.host !== hostHeader) return sendText(request, response, 403, 'Forbidden');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return send(request, response, 405, 'text/plain; charset=utf-8', 'Method not allowed\n', {
        Allow: 'GET, HEAD',
      });
    }
    const rawPath = (request.url ?? '/').split('?')[0] as string;
    let path: string;
    try {
      path = decodeURIComponent(rawPath);
    } catch {
      return sendText(request, response, 400, 'Bad request');
    }
    if (!path.startsWith('/') || path.includes('\0')) return sendText(request, response, 400, 'Bad request');
    if (path === BRIDGE_SCRIPT_PATH)
      return send(request, response, 200, CONTENT_TYPES['.js'] as string, bridgeScript);
    if (path === BRIDGE_PATH) return sendText(request, response, 426, 'Upgrade required');
    if (path.startsWith('/handoff/')) return redeemHandoff(request, response, path.slice('/handoff/'.length));
    if (path === '/' || path === '/index.html') return serveIndex(request, response);
    return serveFile(request, response, path);
  }

  /** Why an upgrade is refused, for the log; undefined when it may proceed. */
  function refusalOf(request: IncomingMessage): 'path' | 'host' | 'origin' | 'secret' | undefined {
    if ((request.url ?? '').split('?')[0] !== BRIDGE_PATH) return 'path';
    if (request.headers.host !== hostHeader) return 'host';
    if (request.headers.origin !== origin) return 'origin';
    const offered = (request.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((protocol) => protocol.trim())
      .filter((protocol) => protocol !== '');
    const secrets = offered.filter((protocol) => protocol.startsWith(SECRET_PROTOCOL_PREFIX));
    const candidate = secrets.length === 1 ? (secrets[0] as string).slice(SECRET_PROTOCOL_PREFIX.length) : '';
    // Both sides hashed to one length, so the comparison takes the same time whatever was sent.
    const matches = timingSafeEqual(digest(candidate), secretDigest) && candidate !== '';
    return matches && offered.includes(BRIDGE_PROTOCOL) ? undefined : 'secret';
  }

  function refuseUpgrade(socket: Duplex, status: 403 | 404): void {
    const text = status === 403 ? 'Forbidden' : 'Not Found';
    socket.once('finish', () => socket.destroy());
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${text.length}\r\n\r\n${text}`,
    );
  }

  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    clientTracking: false,
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has(BRIDGE_PROTOCOL) ? BRIDGE_PROTOCOL : false),
  });

  const server = createServer((request, response) => {
    handleRequest(request, response).catch((error: unknown) => {
      logger.log('error', 'browser_host.request_failed', {
        error: error instanceof Error ? error.name : typeof error,
      });
      if (!response.headersSent) sendText(request, response, 500, 'Internal error');
      else response.destroy();
    });
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const refusal = closed ? 'closed' : refusalOf(request);
    if (refusal) {
      logger.log('warn', 'bridge.refused', { reason: refusal });
      refuseUpgrade(socket, refusal === 'path' ? 404 : 403);
      return;
    }
    sockets.handleUpgrade(request, socket, head, (page) => pages.accept(page));
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  server.listen(options.port ?? 0, '127.0.0.1');
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([error]) => {
      throw new Error(
        `The browser host cannot listen on 127.0.0.1:${options.port ?? 0}: ${(error as Error).message}`,
      );
    }),
  ]);
  const port = (server.address() as AddressInfo).port;
  hostHeader = `127.0.0.1:${port}`;
  origin = `http://${hostHeader}`;
  csp = contentSecurityPolicy(port);
  logger.log('info', 'browser_host.listening', { origin });

  return {
    url: `${origin}/#${SECRET_HASH_PARAMETER}=${secret}`,
    origin,
    port,
    emit(event, payload) {
      if (!closed) pages.emit(event, payload);
    },
    handoff(target) {
      const token = randomBytes(32).toString('base64url');
      const key = digest(token).toString('hex');
      const timer = setTimeout(() => handoffs.delete(key), HANDOFF_LIFETIME_MS);
      timer.unref();
      handoffs.set(key, { target, timer });
      return `${origin}/handoff/${token}`;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const { timer } of handoffs.values()) clearTimeout(timer);
      handoffs.clear();
      await pages.close();
      const stopped = new Promise<void>((resolveStop) => server.close(() => resolveStop()));
      server.closeAllConnections();
      await stopped;
      sockets.close();
    },
  };
}
