import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import type { Simulator } from '../../simulator/simulator';

/**
 * Each upload attempt the app puts on the wire, and what the service received of it. The app
 * is watched from outside, through undici's diagnostics channels (the request as it is
 * created, the socket its headers go out on, its answer or error), never through its own
 * code; the service's side is the simulator's byte counter of that connection, found by the
 * client's port (`receivedByConnection()[].clientPort`). Both run in this process, so a
 * reading is taken at one instant.
 */

/** The part of undici's request object read here (its headers hold the bearer token: only X-Filename is read). */
interface UndiciRequest {
  readonly origin?: unknown;
  readonly method?: unknown;
  readonly path?: unknown;
  readonly headers?: unknown;
}

interface Attempt {
  readonly documentId: string;
  readonly startedAtMs: number;
  /** The client's port, once the request's headers went out on a socket. */
  clientPort?: number;
  /** The simulator's number of that connection, when it had one at that moment. */
  connection?: number;
  /** What that connection had received before this request (a kept-alive connection carries several). */
  baseline: number;
  /** Bytes received when the attempt ended (answered or failed): nothing more of it counts after. */
  settled?: number;
  endedAtMs?: number;
  answered?: boolean;
}

/** One upload attempt, as `attempts()` tells it (times in ms from the watch's start). */
export interface AttemptRecord {
  readonly documentId: string;
  readonly startedAtMs: number;
  /** When its answer's headers came, or it failed; undefined while on its way. */
  readonly endedAtMs: number | undefined;
  /** Answered with success (2xx): the service had all of it. */
  readonly answered: boolean;
  /** What the service received of it (so far, while on its way). */
  readonly receivedBytes: number;
}

/** One document as the watch knows it: its id and the name the app sends as X-Filename. */
export interface WatchedDocument {
  readonly id: string;
  readonly filename: string;
  readonly sizeBytes: number;
}

const UPLOAD_PATH = '/api/v1/uploads';

/** The simulator's upload byte counters by client port, read at one instant. */
export type ConnectionReading = ReadonlyMap<number, { connection: number; receivedBytes: number }>;

/** The status of an answer told on `undici:request:headers`. */
function statusOf(message: unknown): number | undefined {
  const status = (message as { response?: { statusCode?: unknown } }).response?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The value of a header in undici's flat `[name, value, name, value…]` list, case-insensitively. */
function headerValue(headers: unknown, name: string): string | undefined {
  if (!Array.isArray(headers)) return undefined;
  for (let index = 0; index + 1 < headers.length; index += 2) {
    const key: unknown = headers[index];
    if (typeof key === 'string' && key.toLowerCase() === name) {
      const value: unknown = headers[index + 1];
      return typeof value === 'string' ? value : undefined;
    }
  }
  return undefined;
}

/** See the file comment. Call `stop()` when the run ends. */
export class UploadWatch {
  readonly #sim: Simulator;
  readonly #origin: string;
  readonly #byFilename: Map<string, WatchedDocument>;
  readonly #attempts = new WeakMap<object, Attempt>();
  readonly #byDocument = new Map<string, Attempt[]>();
  readonly #started = performance.now();
  readonly #handlers: [string, (message: unknown) => void][];

  constructor(sim: Simulator, documents: readonly WatchedDocument[]) {
    this.#sim = sim;
    this.#origin = new URL(sim.baseUrl).origin;
    this.#byFilename = new Map(documents.map((document) => [document.filename, document]));
    this.#handlers = [
      ['undici:request:create', (message) => this.#created(message)],
      ['undici:client:sendHeaders', (message) => this.#headersSent(message)],
      ['undici:request:headers', (message) => this.#settle(message, statusOf(message))],
      ['undici:request:error', (message) => this.#settle(message, undefined)],
    ];
    for (const [channel, handler] of this.#handlers) subscribe(channel, handler);
  }

  stop(): void {
    for (const [channel, handler] of this.#handlers) unsubscribe(channel, handler);
  }

  /** Upload attempts of this document that left the app so far. */
  attemptsOf(documentId: string): number {
    return this.#byDocument.get(documentId)?.length ?? 0;
  }

  /** Every attempt so far, in the order they left. */
  attempts(): AttemptRecord[] {
    const reading = this.connections();
    return [...this.#byDocument.values()]
      .flat()
      .sort((a, b) => a.startedAtMs - b.startedAtMs)
      .map((attempt) => ({
        documentId: attempt.documentId,
        startedAtMs: attempt.startedAtMs,
        endedAtMs: attempt.endedAtMs,
        answered: attempt.answered === true,
        receivedBytes: this.#received(attempt, reading),
      }));
  }

  /**
   * Bytes the service received of this document's latest attempt (0 before any); `byConnection`
   * is a reading of `connections()`, to read several documents at one instant.
   */
  receivedOf(documentId: string, byConnection: ConnectionReading = this.connections()): number {
    const attempts = this.#byDocument.get(documentId);
    const latest = attempts?.[attempts.length - 1];
    return latest ? this.#received(latest, byConnection) : 0;
  }

  /** True while this document's latest attempt is on its way (left the app, neither answered nor failed). */
  isOnItsWay(documentId: string): boolean {
    const attempts = this.#byDocument.get(documentId);
    const latest = attempts?.[attempts.length - 1];
    return latest !== undefined && latest.settled === undefined;
  }

  /**
   * The simulator's counters by client port, read once (the latest connection wins: a port can
   * be used again after its connection closed).
   */
  connections(): ConnectionReading {
    const byPort = new Map<number, { connection: number; receivedBytes: number }>();
    for (const { connection, clientPort, receivedBytes } of this.#sim.uplink.receivedByConnection())
      if (clientPort !== undefined) byPort.set(clientPort, { connection, receivedBytes });
    return byPort;
  }

  #received(attempt: Attempt, byConnection: ConnectionReading): number {
    if (attempt.settled !== undefined) return attempt.settled;
    if (attempt.clientPort === undefined) return 0;
    const link = byConnection.get(attempt.clientPort);
    if (!link) return 0;
    // A connection the simulator had not counted yet when the headers left starts from nothing.
    const baseline = link.connection === attempt.connection ? attempt.baseline : 0;
    return Math.max(0, link.receivedBytes - baseline);
  }

  #created(message: unknown): void {
    const request = (message as { request?: UndiciRequest }).request;
    if (!request || request.path !== UPLOAD_PATH || request.method !== 'POST') return;
    if (String(request.origin).replace(/\/$/, '') !== this.#origin) return;
    const filename = headerValue(request.headers, 'x-filename');
    const document = filename === undefined ? undefined : this.#byFilename.get(filename);
    if (!document) return;
    const attempt: Attempt = {
      documentId: document.id,
      startedAtMs: performance.now() - this.#started,
      baseline: 0,
    };
    this.#attempts.set(request, attempt);
    const attempts = this.#byDocument.get(document.id) ?? [];
    attempts.push(attempt);
    this.#byDocument.set(document.id, attempts);
  }

  #headersSent(message: unknown): void {
    const { request, socket } = message as { request?: object; socket?: Socket };
    const attempt = request ? this.#attempts.get(request) : undefined;
    if (!attempt || !socket || socket.localPort === undefined) return;
    attempt.clientPort = socket.localPort;
    const link = this.connections().get(socket.localPort);
    if (link) {
      attempt.connection = link.connection;
      attempt.baseline = link.receivedBytes;
    }
  }

  #settle(message: unknown, status: number | undefined): void {
    const request = (message as { request?: object }).request;
    const attempt = request ? this.#attempts.get(request) : undefined;
    if (!attempt || attempt.settled !== undefined) return;
    attempt.settled = this.#received(attempt, this.connections());
    attempt.endedAtMs = performance.now() - this.#started;
    attempt.answered = status !== undefined && status >= 200 && status < 300;
  }
}
