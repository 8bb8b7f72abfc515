import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { DEMO_CLIENT, type Simulator, type SimulatorClient } from '../../simulator/simulator';

/**
 * Helpers for the simulator's own tests: they talk to a started simulator over real HTTP,
 * exactly as a client would, and return what the client observes.
 */

export const JSON_HEADERS = { accept: 'application/json' } as const;

/** A small, valid-looking PDF (the simulator checks only the header). */
export function samplePdf(text = 'sample'): Buffer {
  return Buffer.from(`%PDF-1.7\n% ${text}\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n`, 'latin1');
}

export interface JsonAnswer {
  status: number;
  headers: Headers;
  // Tests read arbitrary fields of the answer; `any` keeps the assertions short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** fetch, then the status, headers and parsed JSON body (undefined when the body is not JSON). */
export async function fetchJson(url: string, init: RequestInit = {}): Promise<JsonAnswer> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body };
}

/** Obtains an access token with the client-credentials grant. */
export async function getToken(simulator: Simulator, client: SimulatorClient = DEMO_CLIENT): Promise<string> {
  const answer = await fetchJson(`${simulator.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    }).toString(),
  });
  if (answer.status !== 200) throw new Error(`token call answered ${answer.status}`);
  return answer.body.access_token as string;
}

/** An authenticated API call with a JSON body (when `json` is given). */
export function callApi(
  simulator: Simulator,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  options: { json?: unknown; headers?: Record<string, string>; body?: string } = {},
): Promise<JsonAnswer> {
  const headers: Record<string, string> = { ...JSON_HEADERS, authorization: `Bearer ${token}` };
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  return fetchJson(`${simulator.baseUrl}${path}`, {
    method,
    headers: { ...headers, ...options.headers },
    ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
}

/** Uploads a PDF (raw body, `application/pdf`). */
export function uploadPdf(
  simulator: Simulator,
  token: string,
  bytes: Buffer = samplePdf(),
  headers: Record<string, string> = {},
): Promise<JsonAnswer> {
  return fetchJson(`${simulator.baseUrl}/api/v1/uploads`, {
    method: 'POST',
    headers: {
      ...JSON_HEADERS,
      authorization: `Bearer ${token}`,
      'content-type': 'application/pdf',
      ...headers,
    },
    body: new Uint8Array(bytes),
  });
}

/** A valid creation body for an upload: one signer and one observer unless overridden. */
export function signingRequestBody(
  uploadId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    external_reference: 'HR-2026-001',
    transaction_type: 'employment_contract',
    document: { upload_id: uploadId },
    recipients: [
      {
        participant_type: 'signer',
        role: 'Employee',
        name: 'Anne Martin',
        email: 'anne@example.com',
        signing_order: 1,
      },
      {
        participant_type: 'observer',
        role: 'HR',
        name: 'Bruno Keller',
        email: 'bruno@example.com',
        is_internal: true,
      },
    ],
    locale: 'fr-FR',
    ...overrides,
  };
}

let keyCounter = 0;

/** A fresh Idempotency-Key. */
export function newIdempotencyKey(): string {
  keyCounter += 1;
  return `test-key-${process.pid}-${keyCounter}-${Date.now()}`;
}

/** Creates a signing request with the given body and key. */
export function createSigningRequest(
  simulator: Simulator,
  token: string,
  body: unknown,
  idempotencyKey: string = newIdempotencyKey(),
): Promise<JsonAnswer> {
  return callApi(simulator, token, 'POST', '/api/v1/signing-requests', {
    json: body,
    headers: { 'idempotency-key': idempotencyKey },
  });
}

/** Uploads a PDF and creates a draft signing request for it; returns its id. */
export async function createDraftRequest(
  simulator: Simulator,
  token: string,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const upload = await uploadPdf(simulator, token);
  const created = await createSigningRequest(
    simulator,
    token,
    signingRequestBody(upload.body.upload_id, overrides),
  );
  // Any 2xx: the success code is the variant's choice (spec §4.3 "not shown").
  if (created.status < 200 || created.status > 299)
    throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

/** Creates and prepares a signing request; returns its id. */
export async function createPreparedRequest(
  simulator: Simulator,
  token: string,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const id = await createDraftRequest(simulator, token, overrides);
  const prepared = await callApi(simulator, token, 'POST', `/api/v1/signing-requests/${id}/prepare`);
  if (prepared.status < 200 || prepared.status > 299) throw new Error(`prepare answered ${prepared.status}`);
  return id;
}

/** Reads a signing request. */
export function readRequest(simulator: Simulator, token: string, id: string): Promise<JsonAnswer> {
  return callApi(simulator, token, 'GET', `/api/v1/signing-requests/${id}`);
}

export type RawOutcome =
  | { kind: 'answered'; status: number; headers: IncomingHttpHeaders; text: string }
  | { kind: 'network'; code: string };

/**
 * One request over node:http on a fresh connection, with full control over headers and a
 * streamed body; network failures come back as values carrying their error code.
 */
export function rawRequest(
  baseUrl: string,
  options: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: Buffer | string | (() => Readable);
  },
): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const url = new URL(options.path, baseUrl);
    const request = httpRequest(
      {
        method: options.method,
        host: url.hostname,
        port: url.port,
        path: options.path,
        headers: options.headers,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            kind: 'answered',
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ kind: 'network', code: error.code ?? 'ERROR' }),
        );
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ kind: 'network', code: error.code ?? 'ERROR' }),
    );
    if (typeof options.body === 'function') {
      const stream = options.body();
      stream.on('error', () => request.destroy());
      stream.pipe(request);
    } else {
      request.end(options.body);
    }
  });
}

/**
 * A PDF body of exactly `totalBytes`, generated chunk by chunk from one reused filler
 * buffer so a 50 MiB body never sits in memory. `onChunk` sees every chunk (to hash it);
 * `headerText` replaces the PDF header (to send something that is not a PDF).
 */
export function generatedPdfStream(
  totalBytes: number,
  onChunk: (chunk: Buffer) => void = () => undefined,
  headerText = '%PDF-1.7\n',
): () => Readable {
  const header = Buffer.from(headerText, 'latin1');
  const filler = Buffer.alloc(1024 * 1024, 0x20);
  return () =>
    Readable.from(
      (function* generate() {
        let remaining = totalBytes;
        const first = header.subarray(0, Math.min(header.length, remaining));
        onChunk(first);
        yield first;
        remaining -= first.length;
        while (remaining > 0) {
          const chunk = filler.subarray(0, Math.min(filler.length, remaining));
          onChunk(chunk);
          yield chunk;
          remaining -= chunk.length;
        }
      })(),
      { objectMode: false },
    );
}

/** The error code behind a failed fetch (undici wraps it in `cause`). */
export async function fetchFailureCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    let current: unknown = error;
    for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
      const code = (current as { code?: unknown }).code;
      if (typeof code === 'string') return code;
      current = current.cause;
    }
    return 'NETWORK_ERROR';
  }
  throw new Error('expected the request to fail with a network error, but it succeeded');
}

/**
 * A node:http client holding one keep-alive connection, reporting for each call whether the
 * connection was reused: proof that the simulator kept it healthy.
 */
export function keepAliveClient(baseUrl: string): {
  send(options: { method: string; path: string; headers: Record<string, string>; body?: Buffer }): Promise<{
    status: number;
    reusedSocket: boolean;
  }>;
  close(): void;
} {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    send: (options) =>
      new Promise((resolve, reject) => {
        const request = httpRequest(
          new URL(options.path, baseUrl),
          { method: options.method, headers: options.headers, agent },
          (response) => {
            response.resume();
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, reusedSocket: request.reusedSocket }),
            );
          },
        );
        request.on('error', reject);
        request.end(options.body);
      }),
    close: () => agent.destroy(),
  };
}

/** A PDF of exactly `bytes` in memory (the simulator checks only the header). */
export function pdfOfSize(bytes: number, text: string): Buffer {
  const head = samplePdf(text);
  return Buffer.concat([head, Buffer.alloc(bytes - head.length, 0x20)]);
}

/** An upload under way on a connection of its own, as its client sees it. */
export interface UploadUnderWay {
  /** The answer, or the network failure, once the call ends. */
  outcome: Promise<RawOutcome>;
  /** Bytes the client handed to its socket so far, request head and body (what its progress would count). */
  bytesWritten(): number;
  /** True once the connection is closed, by either side. */
  closed(): boolean;
  /** The client's TCP port of its connection, once connected (kept after it closed). */
  localPort(): number | undefined;
  /** The client gives up: closes its connection. */
  giveUp(): void;
}

/**
 * Starts an upload over node:http on a fresh connection (no agent), streaming `body` (a buffer
 * or a generated stream), and returns a handle on it while it runs.
 */
export function startUpload(
  simulator: Simulator,
  token: string,
  body: Buffer | { bytes: number },
): UploadUnderWay {
  const url = new URL('/api/v1/uploads', simulator.baseUrl);
  const length = Buffer.isBuffer(body) ? body.length : body.bytes;
  const request = httpRequest({
    method: 'POST',
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    headers: {
      ...JSON_HEADERS,
      authorization: `Bearer ${token}`,
      'content-type': 'application/pdf',
      'content-length': String(length),
    },
    agent: false,
  });
  // Kept once connected: a closed socket no longer says its port.
  let localPort: number | undefined;
  request.on('socket', (socket) => socket.once('connect', () => (localPort = socket.localPort)));
  const outcome = new Promise<RawOutcome>((resolve) => {
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          kind: 'answered',
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      response.on('error', (error: NodeJS.ErrnoException) =>
        resolve({ kind: 'network', code: error.code ?? 'ERROR' }),
      );
    });
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ kind: 'network', code: error.code ?? 'ERROR' }),
    );
  });
  if (Buffer.isBuffer(body)) request.end(body);
  else generatedPdfStream(body.bytes)().pipe(request);
  return {
    outcome,
    bytesWritten: () => request.socket?.bytesWritten ?? 0,
    closed: () => request.socket?.destroyed ?? false,
    localPort: () => localPort,
    giveUp: () => request.destroy(),
  };
}

/**
 * Polls `read` every `everyMs` until `done` holds for its value; returns that value. Throws,
 * naming the last value, when it never does within `giveUpMs` (a guard against waiting for an
 * outcome that will not come, not a measure of time).
 */
export async function waitFor<T>(
  read: () => T,
  done: (value: T) => boolean,
  everyMs = 10,
  giveUpMs = 10_000,
): Promise<T> {
  const deadline = performance.now() + giveUpMs;
  for (;;) {
    const value = read();
    if (done(value)) return value;
    if (performance.now() > deadline)
      throw new Error(`the awaited outcome never came; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
