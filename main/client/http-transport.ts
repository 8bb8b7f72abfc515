import { Readable } from 'node:stream';
import type { Socket } from 'node:net';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import { systemClock, type Cancel, type Clock } from '../time/clock';
import type { HttpOutcome, HttpRequest, Transport } from './transport';

/**
 * A streamed body is handed to the connection in slices of this size, and counted as the
 * connection takes each one: what is counted runs ahead of the bytes on their way by one slice
 * at most, plus what the system's socket buffers hold (a 1 MiB read counted at once would show a
 * fifth of a 5 MiB document sent before its first byte left).
 */
export const UPLOAD_SLICE_BYTES = 64 * 1024;

/**
 * The bytes of `stream` in slices of at most UPLOAD_SLICE_BYTES (views, not copies); `counted`
 * hears the running total once the consumer has taken a slice and asks for the next (for the
 * last one, when it asks for the end). The stream's errors (a missing file) are the iterator's.
 */
async function* countedSlices(stream: Readable, counted: (sent: number) => void): AsyncGenerator<Buffer> {
  let sent = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    for (let offset = 0; offset < chunk.length; offset += UPLOAD_SLICE_BYTES) {
      const slice = chunk.subarray(offset, offset + UPLOAD_SLICE_BYTES);
      yield slice;
      sent += slice.length;
      counted(sent);
    }
  }
}

/** Answers larger than this are not JSON the spec describes; reading stops there. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/** Errors of the local body (the file being sent), not of the network: retrying cannot help. */
const LOCAL_CODES = new Set([
  'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  'ENOENT',
  'EACCES',
  'EPERM',
  'EISDIR',
  'EIO',
]);

/** Errors that prove the request never left this computer or never reached a server. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function errorCodeOf(error: unknown): string {
  let current: unknown = error;
  // undici wraps system errors; the useful code may sit on a cause (or an AggregateError's first error).
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    const aggregated = current instanceof AggregateError ? current.errors[0] : undefined;
    current = aggregated ?? current.cause;
  }
  return 'UNKNOWN_NETWORK_ERROR';
}

async function readLimitedText(body: Dispatcher.ResponseData['body']): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      return undefined;
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One connection for one upload attempt. When the attempt is given up, the connection is reset
 * (RST), not closed: a close would let the system go on sending what its buffers hold of the
 * file (megabytes) ahead of the next attempt, on the same slow line. A pooled connection cannot
 * be told apart from the others, so an upload does not use the pool.
 */
class OwnConnection {
  #socket: Socket | undefined;
  readonly dispatcher: Agent;

  constructor() {
    const connect = buildConnector({ timeout: CONNECT_TIMEOUT_MS });
    this.dispatcher = new Agent({
      connect: (options, callback) =>
        connect(options, (error, socket) => {
          if (socket) this.#socket = socket as Socket;
          callback(error, socket as never);
        }),
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  /** Drops what the system still holds to send, and the connection. */
  reset(): void {
    const socket = this.#socket;
    if (socket && !socket.destroyed) socket.resetAndDestroy();
  }

  close(): void {
    void this.dispatcher.close().catch(() => undefined);
  }
}

/** How long a connection may take to open (ms). */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Sends HTTP requests over a keep-alive connection pool (undici). Classifies every failure so
 * the caller can tell "certainly not sent" from "may have been applied". Aborting the caller's
 * signal rejects with its reason; every other failure is a value.
 */
export class HttpTransport implements Transport {
  readonly #dispatcher: Agent;
  readonly #clock: Clock;

  /** `clock` runs each exchange's deadline, and is told while an exchange is on the wire. */
  constructor(clock: Clock = systemClock) {
    this.#clock = clock;
    this.#dispatcher = new Agent({
      keepAliveTimeout: 10_000,
      connect: { timeout: CONNECT_TIMEOUT_MS },
      // The overall deadline below bounds each exchange; these catch stalls in between.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  /** Performs one attempt of `httpRequest`. */
  async send(httpRequest: HttpRequest): Promise<HttpOutcome> {
    let body: string | Readable | undefined;
    try {
      body = typeof httpRequest.body === 'function' ? httpRequest.body() : httpRequest.body;
    } catch (error) {
      // The caller's source could not even be opened: nothing left this computer.
      return { kind: 'local', errorCode: errorCodeOf(error) };
    }
    // A timer cleared once the exchange ends (AbortSignal.timeout would keep each call's timer and
    // signal alive for the whole deadline: 30 s of them per read for a poller reading 1,000 a minute).
    const deadline = new AbortController();
    const { stallMs, timeoutMs } = httpRequest;
    // A watched upload has a connection of its own, reset when the attempt is given up.
    const own =
      stallMs !== undefined && typeof httpRequest.body === 'function' ? new OwnConnection() : undefined;
    /** Why the deadline struck: the body stopped moving, or no answer came in time. */
    let struck: 'TIMEOUT' | 'STALLED' = 'TIMEOUT';
    let cancelTimer: Cancel = () => undefined;
    const arm = (ms: number, why: typeof struck) => {
      cancelTimer();
      struck = why;
      cancelTimer = this.#clock.timer(ms, () => {
        // Reset before the abort: once aborted, the connection is closed, and a closed one still
        // sends what the system holds of the file.
        own?.reset();
        deadline.abort(new DOMException('The operation timed out.', 'TimeoutError'));
      });
    };
    if (body !== undefined && typeof body !== 'string') {
      const watched = stallMs !== undefined;
      const total = Number(httpRequest.headers['content-length']);
      httpRequest.onBodySent?.(0);
      body = Readable.from(
        countedSlices(body, (sent) => {
          httpRequest.onBodySent?.(sent);
          if (!watched) return;
          // Handed in full: from now on the answer is owed; until then, the next slice.
          if (Number.isFinite(total) && sent >= total) arm(timeoutMs, 'TIMEOUT');
          else arm(stallMs, 'STALLED');
        }),
        // One slice read ahead at most: what is counted is what the connection took.
        { objectMode: false, highWaterMark: UPLOAD_SLICE_BYTES },
      );
      if (watched) arm(stallMs, 'STALLED');
      else arm(timeoutMs, 'TIMEOUT');
    } else arm(timeoutMs, 'TIMEOUT');
    const signal = httpRequest.signal
      ? AbortSignal.any([httpRequest.signal, deadline.signal])
      : deadline.signal;
    const onTheWire = this.#clock.busy();
    try {
      const response = await request(httpRequest.url, {
        method: httpRequest.method,
        headers: httpRequest.headers,
        body,
        signal,
        dispatcher: own?.dispatcher ?? this.#dispatcher,
      });
      const text = await readLimitedText(response.body);
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      }
      return { kind: 'answered', status: response.statusCode, headers, text: text ?? '' };
    } catch (error) {
      own?.reset();
      if (httpRequest.signal?.aborted) throw httpRequest.signal.reason;
      if (body !== undefined && typeof body !== 'string') body.destroy();
      const timedOut = deadline.signal.aborted;
      const errorCode = timedOut ? struck : errorCodeOf(error);
      if (LOCAL_CODES.has(errorCode)) return { kind: 'local', errorCode };
      return {
        kind: 'network',
        mayHaveReachedService: !NOT_SENT_CODES.has(errorCode),
        timedOut,
        errorCode,
      };
    } finally {
      onTheWire();
      cancelTimer();
      own?.close();
    }
  }

  /** Closes every pooled connection. */
  async close(): Promise<void> {
    await this.#dispatcher.close();
  }
}
