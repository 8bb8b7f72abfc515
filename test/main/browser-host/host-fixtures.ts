/**
 * Helpers for the browser host's tests: the page bridge bundled from source, a tiny renderer
 * fixture (so these tests do not depend on the real renderer), a host launched in-process over
 * a temporary data folder, and raw clients (ws and plain sockets) that speak the bridge protocol.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect as connectSocket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import WebSocket from 'ws';
import type { CeremonyOpener, DemoProvider } from '../../../main/app/ports';
import {
  createMemoryCredentialStore,
  type CredentialStore,
} from '../../../main/credentials/credential-store';
import {
  BRIDGE_PROTOCOL,
  SECRET_HASH_PARAMETER,
  SECRET_PROTOCOL_PREFIX,
  type DialogAnswer,
  type EventMessage,
  type HostMessage,
  type ResultMessage,
  type WelcomeMessage,
} from '../../../shared/ipc/browser-host-protocol';
import type { BridgeTuning } from '../../../main/browser-host/bridge-pages';
import {
  launchBrowserHost,
  profileRegistry,
  type LaunchedBrowserHost,
} from '../../../main/browser-host/launch';
import { createJsonLogger } from '../../../main/base/log';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

const BRIDGE_ENTRY = fileURLToPath(new URL('../../../renderer/browser-host-bridge.ts', import.meta.url));

/**
 * Bundles the page-side bridge as the build does (an IIFE for the browser) into `outDir`, from
 * its own entry or from a test's (which installs it with short timings).
 */
export async function bundleBridgeScript(outDir: string, entry = BRIDGE_ENTRY): Promise<string> {
  const outfile = join(outDir, 'desk-bridge.js');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'chrome130',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

/** The renderer's own meta CSP, so the tests prove the bridge works under it too. */
export const RENDERER_META_CSP =
  "default-src 'self'; script-src 'self'; worker-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'";

/**
 * A minimal built renderer: index.html whose module script (in <head>, as Vite emits it)
 * records whether `window.desk` already existed when the app's code started.
 */
export function writeRendererFixture(folder: string): string {
  mkdirSync(join(folder, 'assets'), { recursive: true });
  writeFileSync(
    join(folder, 'index.html'),
    [
      '<!doctype html>',
      '<html lang="en">',
      '  <head>',
      '    <meta charset="UTF-8" />',
      `    <meta http-equiv="Content-Security-Policy" content="${RENDERER_META_CSP}" />`,
      '    <title>Renderer fixture</title>',
      '    <script type="module" crossorigin src="./assets/app.js"></script>',
      '    <link rel="stylesheet" href="./assets/app.css" />',
      '  </head>',
      '  <body><p id="status">loading</p></body>',
      '</html>',
    ].join('\n'),
  );
  writeFileSync(
    join(folder, 'assets', 'app.js'),
    "window.deskAtStart = typeof window.desk;\ndocument.getElementById('status').textContent = 'ready';\n",
  );
  writeFileSync(join(folder, 'assets', 'app.css'), 'body { font-family: sans-serif; }\n');
  return folder;
}

export interface TestHost {
  readonly launched: LaunchedBrowserHost;
  readonly port: number;
  readonly secret: string;
  readonly folder: TempFolder;
  readonly dataDir: string;
  /** The host's home folder (in `folder`): reports land in its Downloads folder. */
  readonly home: string;
  /** Every line the host logged. */
  readonly logLines: string[];
  close(): Promise<void>;
}

export interface TestHostOptions {
  readonly ceremonyOpener?: CeremonyOpener;
  readonly demo?: DemoProvider | false;
  /** Default: an in-memory keychain. */
  readonly credentials?: CredentialStore;
  /** Default: the built renderer fixture. */
  readonly rendererDir?: string;
  /** Default: the page bridge's own entry, with the product's timings. */
  readonly bridgeEntry?: string;
  readonly bridgeTuning?: BridgeTuning;
}

/** The secret in a host URL's fragment. */
export function secretOf(url: string): string {
  return new URLSearchParams(new URL(url).hash.slice(1)).get(SECRET_HASH_PARAMETER) ?? '';
}

/**
 * Launches the browser host in-process over a fresh temporary data folder, with the renderer
 * fixture, the bridge bundled from source, profiles in the data folder and secrets in memory.
 */
export async function startTestHost(options: TestHostOptions = {}): Promise<TestHost> {
  const folder = makeTempFolder('desk-browser-host-');
  const rendererDir = options.rendererDir ?? writeRendererFixture(folder.file('renderer'));
  const bridgeScriptPath = await bundleBridgeScript(folder.path, options.bridgeEntry);
  const dataDir = folder.file('data');
  // A home of its own with a Downloads folder: a report is never saved in the real user's.
  const home = folder.file('home');
  mkdirSync(join(home, 'Downloads'), { recursive: true });
  const logLines: string[] = [];
  const launched = await launchBrowserHost({
    dataDir,
    home,
    rendererDir,
    bridgeScriptPath,
    logger: createJsonLogger((line) => logLines.push(line)),
    profiles: profileRegistry(dataDir, options.credentials ?? createMemoryCredentialStore()),
    demo: options.demo ?? false,
    tuning: {
      retry: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 4, maxRetryAfterMs: 5_000 },
      engineWaitMs: { first: 50, longest: 400 },
    },
    ...(options.ceremonyOpener ? { ceremonyOpener: options.ceremonyOpener } : {}),
    ...(options.bridgeTuning ? { bridgeTuning: options.bridgeTuning } : {}),
  });
  return {
    launched,
    port: Number(new URL(launched.origin).port),
    secret: secretOf(launched.url),
    folder,
    dataDir,
    home,
    logLines,
    async close() {
      await launched.close();
      folder.remove();
    },
  };
}

/** The subprotocols a page offers: the bridge's, and the secret. */
export function bridgeProtocols(secret: string): string[] {
  return [BRIDGE_PROTOCOL, `${SECRET_PROTOCOL_PREFIX}${secret}`];
}

/** A connected raw bridge client: calls by id, and every event it received. */
export interface BridgeClient {
  readonly socket: WebSocket;
  readonly events: EventMessage[];
  /** Welcomes, heartbeats: every message that is neither a result nor an event. */
  readonly others: HostMessage[];
  call(channel: string, args: readonly unknown[], answer?: DialogAnswer): Promise<ResultMessage>;
  /** A call with the request id given, sent as is (the same id twice is the same call). */
  callAs(id: string, channel: string, args: readonly unknown[]): Promise<ResultMessage>;
  /** Says hello as a page does (the host sends events only after it); resolves with the welcome. */
  hello(fields?: { launch?: string; seq?: number; awaiting?: string[] }): Promise<WelcomeMessage>;
  /** Sends any text or bytes as they are and waits for the next reply. */
  sendRaw(data: string | Buffer, binary?: boolean): Promise<ResultMessage>;
  waitForEvent(match: (event: EventMessage) => boolean, timeoutMs?: number): Promise<EventMessage>;
  /** Resolves with the close code. */
  closed(): Promise<number>;
  close(): void;
}

export type BridgeOpening =
  | { readonly opened: true; readonly client: BridgeClient }
  | { readonly opened: false; readonly status: number };

/** Opens a raw ws connection to the bridge with the given Origin and subprotocols. */
export function openBridge(
  port: number,
  options: { readonly origin?: string; readonly protocols?: string[]; readonly host?: string },
): Promise<BridgeOpening> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/bridge`, options.protocols ?? [], {
      ...(options.origin === undefined ? {} : { origin: options.origin }),
      ...(options.host === undefined ? {} : { headers: { host: options.host } }),
    });
    socket.once('unexpected-response', (_request, response) => {
      resolve({ opened: false, status: response.statusCode ?? 0 });
      socket.terminate();
    });
    socket.once('error', reject);
    socket.once('open', () => {
      socket.off('error', reject);
      socket.on('error', () => undefined);
      resolve({ opened: true, client: bridgeClient(socket) });
    });
  });
}

/**
 * Opens the bridge as the host's own page would, failing the test if it is refused, and says
 * hello (unless `greet` is false), so events reach it.
 */
export async function openTrustedBridge(host: TestHost, greet = true): Promise<BridgeClient> {
  const opening = await openBridge(host.port, {
    origin: host.launched.origin,
    protocols: bridgeProtocols(host.secret),
  });
  if (!opening.opened) throw new Error(`the bridge refused the host's own page (HTTP ${opening.status})`);
  if (greet) await opening.client.hello();
  return opening.client;
}

let clientCount = 0;

function bridgeClient(socket: WebSocket): BridgeClient {
  const events: EventMessage[] = [];
  const replies: ResultMessage[] = [];
  const others: HostMessage[] = [];
  const waiters: (() => void)[] = [];
  clientCount += 1;
  const prefix = `test-client-${String(clientCount).padStart(5, '0')}-${process.pid}`;
  let nextId = 1;
  let isClosed = false;
  const closeCode = new Promise<number>((resolve) =>
    socket.once('close', (code) => {
      isClosed = true;
      resolve(code);
    }),
  );
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as HostMessage;
    if (message.type === 'event') events.push(message);
    else if (message.type === 'result') replies.push(message);
    else others.push(message);
    for (const wake of waiters.splice(0)) wake();
  });
  const until = async <T>(find: () => T | undefined, timeoutMs: number): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (isClosed) throw new Error('the bridge closed before the awaited message came');
      if (Date.now() > deadline) throw new Error('timed out waiting for the bridge');
      await Promise.race([
        new Promise<void>((resolve) => waiters.push(resolve)),
        new Promise((resolve) => setTimeout(resolve, 50)),
        closeCode,
      ]);
    }
  };
  const takeReply = (match: (reply: ResultMessage) => boolean) => () => {
    const index = replies.findIndex(match);
    return index === -1 ? undefined : replies.splice(index, 1)[0];
  };
  const callAs = (id: string, channel: string, args: readonly unknown[], answer?: DialogAnswer) => {
    socket.send(JSON.stringify({ type: 'call', id, channel, args, ...(answer ? { answer } : {}) }));
    return until(
      takeReply((reply) => reply.id === id),
      10_000,
    );
  };
  return {
    socket,
    events,
    others,
    call(channel, args, answer) {
      const id = `${prefix}.${nextId}`;
      nextId += 1;
      return callAs(id, channel, args, answer);
    },
    callAs,
    async hello(fields = {}) {
      const before = others.length;
      socket.send(JSON.stringify({ type: 'hello', awaiting: [], ...fields }));
      return until(
        () => others.slice(before).find((message): message is WelcomeMessage => message.type === 'welcome'),
        10_000,
      );
    },
    async sendRaw(data, binary = false) {
      socket.send(data, { binary });
      return until(
        takeReply(() => true),
        10_000,
      );
    },
    waitForEvent: (match, timeoutMs = 10_000) => until(() => events.find(match), timeoutMs),
    closed: () => closeCode,
    close: () => socket.close(),
  };
}

/** Sends raw bytes over a plain TCP connection and returns everything the server answered. */
export function rawExchange(port: number, request: string | Buffer, timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectSocket(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(request);
  });
}

/** A WebSocket upgrade request written by hand, header by header. */
export function upgradeRequest(port: number, headers: Readonly<Record<string, string | undefined>>): string {
  const all: Record<string, string | undefined> = {
    Host: `127.0.0.1:${port}`,
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
    'Sec-WebSocket-Version': '13',
    ...headers,
  };
  const lines = Object.entries(all)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}: ${value}`);
  return `GET /bridge HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** A masked client→server WebSocket text frame (payload under 126 bytes), as a browser sends it. */
export function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  if (payload.length >= 126) throw new Error('maskedTextFrame: payload too long for the short form');
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const masked = Buffer.from(payload.map((byte, index) => byte ^ (mask[index % 4] as number)));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}

/** The status code of the first line of a raw HTTP answer (0 when there was none). */
export function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
}
