import type { IncomingMessage, ServerResponse } from 'node:http';
import { withExtraFields } from './extra-fields';
import type { BodyCrossing, CrossingOutcome } from './body-crossing';
import type { ServiceVariant } from './variants';

/**
 * Reading request bodies and describing answers. Handlers return an `ApiResponse` value and
 * the request pipeline writes it, so faults (latency, lost answers) apply in one place.
 */

/** An answer to an API call, not yet written. */
export interface ApiResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Close the connection after the answer (the client is still sending a body we refuse to read). */
  closeConnection?: boolean;
  /** No body at all: Content-Length 0 (nothing at all with 204). `body` is then ignored. */
  empty?: boolean;
  /** An HTML page instead of JSON (a gateway's answer, not the service's). `body` is then ignored. */
  html?: string;
  /** Retry-After, in seconds: the writer formats it as the variant says (seconds or HTTP-date). */
  retryAfterSeconds?: number;
}

/** `{"error":{"code","message"}}`, the service's error shape (spec §7). */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  headers?: Record<string, string>,
): ApiResponse {
  return { status, body: { error: { code, message } }, ...(headers ? { headers } : {}) };
}

/** `{"error","error_description"}`, the OAuth 2.0 shape (RFC 6749 §5.2) of the token endpoint. */
export function oauthErrorResponse(status: number, error: string, description: string): ApiResponse {
  return { status, body: { error, error_description: description } };
}

export type BodyOutcome =
  | { kind: 'complete'; sizeBytes: number }
  /** More than the limit arrived. `drained` is false when the client kept sending far beyond it. */
  | { kind: 'tooLarge'; drained: boolean }
  /** The client went away before the body ended, or a fault silenced it: there is nobody to answer. */
  | { kind: 'aborted' };

/**
 * Reads a request body chunk by chunk without keeping it: `onChunk` sees each chunk while the
 * total stays within `maxBytes`. Past the limit the rest is read and discarded (so the client
 * can read the answer on a healthy keep-alive connection) up to another `maxBytes` or 1 MiB,
 * whichever is larger; beyond that reading stops and the connection must be closed. With a
 * `crossing` (uploads on the uplink), each piece is seen only once the uplink has carried it,
 * and the request is not read meanwhile; a silent fault in it ends the reading as 'aborted',
 * the request left unread.
 */
export function consumeBody(
  request: IncomingMessage,
  maxBytes: number,
  onChunk: (chunk: Buffer) => void,
  crossing?: BodyCrossing,
): Promise<BodyOutcome> {
  const discardLimit = maxBytes + Math.max(maxBytes, 1024 * 1024);
  return new Promise((resolve) => {
    let sizeBytes = 0;
    let settled = false;
    let ended = false;
    /** The chunk still crossing the uplink, if any: the body ends only once it has arrived. */
    let crossed: Promise<CrossingOutcome> = Promise.resolve('go');
    const settle = (outcome: BodyOutcome) => {
      if (settled) return;
      settled = true;
      request.off('data', onData);
      resolve(outcome);
    };
    const take = (chunk: Buffer) => {
      if (settled) return;
      sizeBytes += chunk.length;
      if (sizeBytes <= maxBytes) {
        onChunk(chunk);
      } else if (sizeBytes > discardLimit) {
        request.pause();
        settle({ kind: 'tooLarge', drained: false });
      }
    };
    const onData = (chunk: Buffer) => {
      if (!crossing) {
        take(chunk);
        return;
      }
      if (crossing.passAtOnce(chunk, take)) return;
      request.pause();
      crossed = crossing.pass(chunk, take).then((outcome) => {
        if (outcome === 'stop') settle({ kind: 'aborted' });
        else if (!settled) request.resume();
        return outcome;
      });
    };
    request.on('data', onData);
    request.once('end', () => {
      ended = true;
      void crossed
        .then((outcome) => (outcome === 'go' && crossing ? crossing.finish() : outcome))
        .then((outcome) => {
          if (outcome === 'stop') settle({ kind: 'aborted' });
          else
            settle(
              sizeBytes > maxBytes ? { kind: 'tooLarge', drained: true } : { kind: 'complete', sizeBytes },
            );
        });
    });
    // A reset connection emits 'error' then 'close'; both mean the body will never end.
    request.once('error', () => settle({ kind: 'aborted' }));
    request.once('close', () => {
      if (!ended) settle({ kind: 'aborted' });
    });
  });
}

export type CollectedBody =
  { kind: 'complete'; bytes: Buffer } | { kind: 'tooLarge'; drained: boolean } | { kind: 'aborted' };

/** Reads a small body (JSON or form) into memory, refusing more than `maxBytes`. */
export async function collectBody(request: IncomingMessage, maxBytes: number): Promise<CollectedBody> {
  const chunks: Buffer[] = [];
  const outcome = await consumeBody(request, maxBytes, (chunk) => chunks.push(chunk));
  return outcome.kind === 'complete' ? { kind: 'complete', bytes: Buffer.concat(chunks) } : outcome;
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type === '' ? undefined : type;
}

/** A single header value (the first when a header was repeated). */
export function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Parses JSON, telling "not JSON" apart from any value (including null). */
export function parseJson(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
}

/** True for a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Writes a JSON answer (no-op when the connection is already gone). */
export function writeJson(response: ServerResponse, answer: ApiResponse): void {
  if (response.destroyed || response.headersSent) return;
  const payload = JSON.stringify(answer.body);
  response.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    // Answers carry tokens and secret URLs; nothing should cache them.
    'cache-control': 'no-store',
    ...(answer.closeConnection ? { connection: 'close' } : {}),
    ...answer.headers,
  });
  response.end(payload);
}

/** What `writeApiAnswer` put on the wire, when it matters to the caller. */
export interface WrittenAnswer {
  /** The Retry-After header value and the instant it names (simulator clock), when one was sent. */
  retryAfter?: { value: string; until: number };
}

/**
 * Writes an answer of the simulated service as the variant says: Retry-After as seconds or as
 * an HTTP-date (with `Date` from the simulator clock, so the two can be compared), no body at
 * all for `empty` answers and 204, unknown fields added to JSON bodies for `extraFields`.
 * No-op when the connection is already gone.
 */
export function writeApiAnswer(
  response: ServerResponse,
  answer: ApiResponse,
  options: { variant: ServiceVariant; now: number; path: string },
): WrittenAnswer {
  if (response.destroyed || response.headersSent) return {};
  const { variant, now } = options;
  const extraHeaders: Record<string, string> = {};
  const written: WrittenAnswer = {};
  // Every answer says when, by the simulator's clock (a real server's Date is its own clock):
  // a client may compare it with a Retry-After date, or judge time on the service's side.
  extraHeaders.date = new Date(now).toUTCString();
  if (answer.retryAfterSeconds !== undefined) {
    const seconds = answer.retryAfterSeconds;
    // An HTTP-date has whole seconds: round up, so waiting until it never cuts the delay short.
    const until =
      variant.retryAfter === 'http-date'
        ? Math.ceil((now + seconds * 1000) / 1000) * 1000
        : now + seconds * 1000;
    const value = variant.retryAfter === 'http-date' ? new Date(until).toUTCString() : String(seconds);
    extraHeaders['retry-after'] = value;
    written.retryAfter = { value, until };
  }
  const closing = answer.closeConnection ? { connection: 'close' } : {};
  if (answer.status === 204 || (answer.empty && answer.html === undefined)) {
    response.writeHead(answer.status, {
      ...(answer.status === 204 ? {} : { 'content-length': 0 }),
      'cache-control': 'no-store',
      ...closing,
      ...extraHeaders,
      ...answer.headers,
    });
    response.end();
    return written;
  }
  const html = answer.html !== undefined;
  const payload = html
    ? (answer.html ?? '')
    : JSON.stringify(variant.extraFields ? withExtraFields(answer.body, options.path) : answer.body);
  response.writeHead(answer.status, {
    'content-type': html ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-store',
    ...closing,
    ...extraHeaders,
    ...answer.headers,
  });
  response.end(payload);
  return written;
}
