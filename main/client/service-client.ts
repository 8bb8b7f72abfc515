import { normalizeFilename } from '../../shared/service/filename';
import { isPreparedOrLater, statusFactsOf } from '../../shared/service/status';
import {
  addParticipantResponseSchema,
  createSigningRequestResponseSchema,
  prepareResponseSchema,
  signingRequestSchema,
  uploadSchema,
  widgetSessionSchema,
  type CreateSigningRequestBody,
  type Participant,
  type SigningRequest,
} from '../../shared/service/wire';
import { silentLogger, type Logger } from '../base/log';
import { Secret } from '../base/secret';
import { systemClock, type Clock } from '../time/clock';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './backoff';
import { ok } from '../../shared/base/result';
import { CallRunner, type AttemptOutcome } from './call-runner';
import { HttpTransport } from './http-transport';
import type { Transport } from './transport';

export { UPLOAD_SLICE_BYTES } from './http-transport';
import { OperationGate } from './operation-gate';
import { ReadSpacing } from './read-spacing';
import { isOperationName, type OperationName, type ServiceResult } from '../domain/service-failure';
import { TokenManager, type TokenGrant } from './token-manager';
import type { UploadSource } from './upload-source';
import type {
  CreationAnswer,
  ParticipantAnswer,
  PrepareOutcome,
  UploadAnswer,
} from '../domain/service-answers';
import { TAKEN_AT_ONCE_BYTES, UPLOAD_STALL_MS, uploadAnswerMs, uploadStallMs } from './upload-timing';

export type { UploadSource } from './upload-source';
export type { AttemptOutcome } from './call-runner';

/** Retry-After holds by operation: until when each is held, in wall-clock epoch ms. */
export type OperationHolds = Readonly<Partial<Record<OperationName, number>>>;

export interface ServiceClientOptions {
  /** The service's base address, e.g. https://sign.example.com (spec: `{base_url}`). */
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: Secret;
  readonly retry?: Partial<RetryPolicy>;
  readonly logger?: Logger;
  /** Injected for tests: randomness for jitter. */
  readonly random?: () => number;
  /** The clock of every wait, deadline and expiry (default: the system's; tests pass a virtual one). */
  readonly clock?: Clock;
  /**
   * What carries each attempt (default: HTTP, on `clock`). Tests give a scripted one to check
   * the retry, idempotency and token rules without a server.
   */
  readonly transport?: Transport;
  /**
   * How long the service has to answer a call once it was sent, in ms (default 30 s); an upload
   * has this plus what its last bytes may still take on the line (upload-timing.ts).
   */
  readonly callTimeoutMs?: number;
  /**
   * How long an upload's bytes may stand still before its attempt is given up (default
   * UPLOAD_STALL_MS), at the least: longer when `uploadTakenAtOnceBytes` take longer at its pace.
   */
  readonly uploadStallMs?: number;
  /** What the system may take of an upload at once (default TAKEN_AT_ONCE_BYTES; tests scale it). */
  readonly uploadTakenAtOnceBytes?: number;
  /**
   * Holds asked for before this client existed (by an earlier process, read back from the data
   * folder): until when each operation is held, in epoch ms by `now`. Taken in at construction;
   * a hold already over is ignored, and none lasts more than a day from now.
   */
  readonly initialHolds?: OperationHolds;
  /**
   * Told each time an answer lengthens the hold of an operation (a 429, or a 503 with
   * Retry-After), with until when it is held, in epoch ms by `now`: to keep it past a restart.
   */
  readonly onHold?: (operation: OperationName, untilEpochMs: number) => void;
}

export interface CallOptions {
  /** Aborting rejects the call with the signal's reason, also while it waits to be sent. */
  readonly signal?: AbortSignal;
  /** Fewer attempts for callers with their own schedule (the poller); default from the retry policy. */
  readonly maxAttempts?: number;
  /**
   * Called right before each HTTP attempt of this operation leaves (after the token and every
   * wait: Retry-After, read spacing), with the number of attempts sent so far, this one
   * included. Never called when the call ends, or is aborted, before anything left: so a caller
   * can tell "aborted before anything left" from "aborted in flight".
   */
  readonly onAttempt?: (attempt: number) => void;
  /**
   * Called once per attempt that left (after its `onAttempt`), as soon as its outcome is
   * classified, before any wait for the next attempt and before the call returns:
   * `not_applied` when the answer proves the attempt was not applied (429, 503, any other 4xx,
   * a 401 before the token is renewed, a connection refused before sending); `maybe_applied`
   * for a timeout, a connection lost after sending, 500/502/504 and every other 5xx, an abort
   * while on its way, and any 2xx (applied). Between `onAttempt` and this call, an attempt is on
   * the wire with no answer yet. `answered`: the service sent an answer (any HTTP status); false
   * when none came (a timeout, a lost or refused connection, an abort).
   */
  readonly onAttemptSettled?: (outcome: AttemptOutcome, answered: boolean) => void;
  /**
   * Aborting stops the call from sending anything more while an attempt already on its way
   * finishes (see the call runner's `departures`): a pause or a quit leaves no attempt "may
   * have been applied" that could be answered.
   */
  readonly departures?: AbortSignal;
}

export interface UploadOptions extends CallOptions {
  /**
   * Bytes handed to the connection so far in the current attempt (told 0 when an attempt begins, a
   * retry included). They may not have left this computer yet (upload-timing.ts).
   */
  readonly onProgress?: (sentBytes: number, totalBytes: number) => void;
  /**
   * The pace this upload's share of the line was measured at (bytes a second), when known: how
   * long, after its last byte was handed over, what the system still holds of it may take.
   */
  readonly lineBytesPerS?: number | undefined;
  /**
   * The slowest line's share for this upload (bytes a second): what an attempt after one that
   * was given up allows for, since the line may have got slower than measured.
   */
  readonly slowestShareBytesPerS?: number | undefined;
}

/** A ceremony link: a secret kept in memory only, valid until `expiresAt` (local clock). */
export interface WidgetSessionHandle {
  readonly requestId: string;
  readonly widgetUrl: Secret;
  readonly expiresInSeconds: number;
  readonly expiresAt: number;
}

/**
 * `X-Filename` must be a valid header value. Printable ASCII goes as is; anything else, and a
 * name with `%` (which a service may read as percent-encoding), goes as the normalized name,
 * which normalizes to itself: the service stores exactly the name the app showed.
 */
function filenameHeader(filename: string): string {
  const baseName = filename.split(/[/\\]/).pop() ?? '';
  return /^[\x20-\x24\x26-\x7e]+$/.test(baseName) ? baseName : normalizeFilename(baseName);
}

/**
 * The signing request a creation's `Location` names: only at this service's own origin and
 * under its own path (`{base_url}/api/v1/signing-requests/{id}`, absolute or relative), else
 * undefined. A Location elsewhere is not this service's word about this request.
 */
export function requestIdFromLocation(location: string | undefined, baseUrl: string): string | undefined {
  if (location === undefined || location.trim() === '') return undefined;
  let base: URL;
  let target: URL;
  try {
    base = new URL(`${baseUrl.replace(/\/+$/, '')}/`);
    target = new URL(location.trim(), base);
  } catch {
    return undefined;
  }
  if (target.origin !== base.origin || target.search !== '' || target.hash !== '') return undefined;
  const prefix = `${base.pathname}api/v1/signing-requests/`;
  if (!target.pathname.startsWith(prefix)) return undefined;
  const rest = target.pathname.slice(prefix.length);
  if (rest === '' || rest.includes('/')) return undefined;
  try {
    return decodeURIComponent(rest);
  } catch {
    return undefined;
  }
}

function requestPath(requestId: string, action = ''): string {
  return `/api/v1/signing-requests/${encodeURIComponent(requestId)}${action}`;
}

/**
 * The typed client of the signing service (spec §4). Every call sends `Accept:
 * application/json`, carries a bearer token from the token manager, retries only what is safe
 * to retry, and returns a `Result` whose failure holds a catalog message and never a secret.
 * Politeness is shared by every caller of one client: a Retry-After pauses its operation for
 * all of them (and, through `initialHolds`/`onHold`, for the next process too), and no signing
 * request is read twice within `READ_SPACING_MS`.
 */
export class ServiceClient {
  readonly #transport: Transport;
  readonly #runner: CallRunner;
  readonly #tokens: TokenManager;
  readonly #clock: Clock;
  readonly #callTimeoutMs: number;
  readonly #uploadStallMs: number;
  readonly #takenAtOnce: number;
  /** The service and client this client talks to (no secret). */
  readonly address: { readonly baseUrl: string; readonly clientId: string };

  constructor(options: ServiceClientOptions) {
    this.address = { baseUrl: options.baseUrl, clientId: options.clientId };
    const clock = options.clock ?? systemClock;
    this.#clock = clock;
    this.#transport = options.transport ?? new HttpTransport(clock);
    this.#callTimeoutMs = options.callTimeoutMs ?? 30_000;
    this.#uploadStallMs = options.uploadStallMs ?? UPLOAD_STALL_MS;
    this.#takenAtOnce = options.uploadTakenAtOnceBytes ?? TAKEN_AT_ONCE_BYTES;
    const gate = new OperationGate(clock);
    const startedAt = this.#clock.now();
    for (const [operation, untilEpochMs] of Object.entries(options.initialHolds ?? {})) {
      // Which answer asked for the hold is not kept; either way the app waits as it was asked.
      if (isOperationName(operation) && untilEpochMs !== undefined)
        gate.hold(operation, untilEpochMs - startedAt, 'rate_limited');
    }
    const { onHold } = options;
    this.#runner = new CallRunner({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      transport: this.#transport,
      policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      logger: options.logger ?? silentLogger,
      random: options.random ?? Math.random,
      clock,
      gate,
      onHold: onHold ? (operation, heldMs) => onHold(operation, this.#clock.now() + heldMs) : undefined,
      spacing: new ReadSpacing(undefined, clock),
    });
    this.#tokens = new TokenManager(
      this.#runner,
      {
        baseUrl: options.baseUrl.replace(/\/+$/, ''),
        clientId: options.clientId,
        clientSecret: options.clientSecret,
      },
      () => clock.now(),
      { random: options.random ?? Math.random },
    );
  }

  /** Obtains a fresh token ("Test connection"), reporting the granted scopes and lifetime. */
  testConnection(): Promise<ServiceResult<TokenGrant>> {
    return this.#tokens.obtain();
  }

  /** A valid token held, or one obtained now with `retry` (TokenManager.ensure): the check before a run. */
  ensureToken(retry?: Partial<RetryPolicy>): Promise<ServiceResult<void>> {
    return this.#tokens.ensure(retry);
  }

  /**
   * Streams a PDF to `POST /api/v1/uploads` (spec §4.2), a fresh stream from `source.open()`
   * per attempt; never holds it in memory. Needs the upload object back: a 2xx without a
   * readable one is `invalid_response`.
   */
  async uploadDocument(
    source: UploadSource,
    options: UploadOptions = {},
  ): Promise<ServiceResult<UploadAnswer>> {
    // After an attempt given up, what it left in the system's buffers may still cross ahead.
    const slowest = options.slowestShareBytesPerS;
    const paceOf = (attempt: number) =>
      attempt === 1 || slowest === undefined ? options.lineBytesPerS : slowest / 2;
    const answer = await this.#runner.run({
      operation: 'uploadDocument',
      method: 'POST',
      path: '/api/v1/uploads',
      headers: {
        'content-type': 'application/pdf',
        'content-length': String(source.sizeBytes),
        'x-filename': filenameHeader(source.filename),
      },
      body: () => source.open(),
      schema: uploadSchema,
      auth: this.#tokens,
      errorShape: 'api',
      // A repeated upload only leaves an unused temporary upload behind, which expires.
      repeatable: true,
      // Given up when its bytes stop moving, or when no answer comes once they all left.
      // The first attempt allows for the pace measured; one after an attempt given up, for the
      // slowest line's share (the line may have got slower since).
      stallMs: (attempt) => uploadStallMs(this.#uploadStallMs, this.#takenAtOnce, paceOf(attempt)),
      timeoutMs: (attempt) => uploadAnswerMs(source.sizeBytes, this.#callTimeoutMs, paceOf(attempt)),
      onBodySent: (sent) => options.onProgress?.(sent, source.sizeBytes),
      signal: options.signal,
      departures: options.departures,
      maxAttempts: options.maxAttempts,
      onAttempt: options.onAttempt,
      onAttemptSettled: options.onAttemptSettled,
    });
    return answer.ok ? ok({ ...answer.value.body, serviceTime: answer.value.serviceTime }) : answer;
  }

  /**
   * Creates a signing request (spec §4.3). The caller supplies the Idempotency-Key it stored
   * before the first attempt, so every retry, even from another process, resolves to one
   * request. Any 2xx is success, with or without a body: the answer says what could be read.
   */
  async createSigningRequest(
    body: CreateSigningRequestBody,
    idempotencyKey: string,
    options: CallOptions = {},
  ): Promise<ServiceResult<CreationAnswer>> {
    const answer = await this.#runner.run({
      operation: 'createSigningRequest',
      method: 'POST',
      path: '/api/v1/signing-requests',
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify(body),
      schema: createSigningRequestResponseSchema,
      bodyOptional: true,
      auth: this.#tokens,
      errorShape: 'api',
      repeatable: true,
      timeoutMs: this.#callTimeoutMs,
      signal: options.signal,
      departures: options.departures,
      maxAttempts: options.maxAttempts,
      onAttempt: options.onAttempt,
      onAttemptSettled: options.onAttemptSettled,
    });
    if (!answer.ok) return answer;
    const id = answer.value.body?.id;
    return ok({
      id,
      replayed: answer.value.body?.idempotent_replay,
      earlierAttemptUnknown: answer.value.earlierAttemptUnknown,
      serviceTime: answer.value.serviceTime,
      locationId:
        id === undefined ? requestIdFromLocation(answer.value.location, this.address.baseUrl) : undefined,
    });
  }

  /**
   * Adds a participant (spec §4.5). Any 2xx is success, with or without a body. The service
   * has no idempotency key for this call, so it is never sent again inside one call once an
   * attempt may have reached the service (a timeout, a connection lost after sending, a 5xx
   * other than 503): that failure comes back at once with `outcomeUnknown`, and the caller, who
   * records it, decides what comes next. Answers that prove nothing was added (429, 503, a
   * gateway's 404, a connection refused before sending) are still retried. This method decides
   * nothing about a `participant_conflict`: the caller judges it with what it knows.
   */
  async addParticipant(
    requestId: string,
    participant: Participant,
    options: CallOptions = {},
  ): Promise<ServiceResult<ParticipantAnswer>> {
    const answer = await this.#runner.run({
      operation: 'addParticipant',
      method: 'POST',
      path: requestPath(requestId, '/participants'),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(participant),
      schema: addParticipantResponseSchema,
      bodyOptional: true,
      auth: this.#tokens,
      errorShape: 'api',
      // No idempotency key: once an attempt may have reached the service, the caller records the
      // unknown outcome before anything is sent again (a refused connection is still retried).
      repeatable: false,
      timeoutMs: this.#callTimeoutMs,
      signal: options.signal,
      departures: options.departures,
      maxAttempts: options.maxAttempts,
      onAttempt: options.onAttempt,
      onAttemptSettled: options.onAttemptSettled,
    });
    if (!answer.ok) return answer;
    return ok({ participantId: answer.value.body?.participant?.participant_id });
  }

  /**
   * Prepares a signing request (spec §4.6). Any 2xx is success; when its answer lacks
   * `document.revision` or `document.sha256`, they are taken from a read of the request (read
   * spacing respected), and stay undefined if the read lacks them or fails: the request is
   * prepared either way. A `prepare_conflict` on a request that the service shows as prepared
   * or later (an earlier attempt whose answer was lost) counts as success, `alreadyPrepared`.
   */
  async prepareSigningRequest(
    requestId: string,
    options: CallOptions = {},
  ): Promise<ServiceResult<PrepareOutcome>> {
    const answer = await this.#runner.run({
      operation: 'prepareSigningRequest',
      method: 'POST',
      path: requestPath(requestId, '/prepare'),
      schema: prepareResponseSchema,
      bodyOptional: true,
      auth: this.#tokens,
      errorShape: 'api',
      repeatable: true,
      timeoutMs: this.#callTimeoutMs,
      signal: options.signal,
      departures: options.departures,
      maxAttempts: options.maxAttempts,
      onAttempt: options.onAttempt,
      onAttemptSettled: options.onAttemptSettled,
    });
    const readOptions = options.signal ? { signal: options.signal } : {};
    if (answer.ok) {
      const document = answer.value.body?.document;
      if (document?.revision !== undefined && document.sha256 !== undefined) {
        return ok({ alreadyPrepared: false, revision: document.revision, sha256: document.sha256 });
      }
      const current = await this.getSigningRequest(requestId, readOptions);
      const read = current.ok ? current.value.document : undefined;
      return ok({
        alreadyPrepared: false,
        revision: document?.revision ?? read?.revision,
        sha256: document?.sha256 ?? read?.sha256,
      });
    }
    if (answer.error.code !== 'prepare_conflict') return answer;
    const current = await this.getSigningRequest(requestId, readOptions);
    // A read that failed says nothing about the preparation: its own failure is reported (the
    // caller waits for a passing one, stops for credentials, fails the document if it is gone).
    if (!current.ok) return current;
    const prepared = isPreparedOrLater(statusFactsOf(current.value));
    if (!prepared) return answer;
    return ok({
      alreadyPrepared: true,
      revision: current.value.document?.revision,
      sha256: current.value.document?.sha256,
    });
  }

  /**
   * Creates a widget session (spec §4.7). The URL comes back wrapped as a `Secret` with its
   * expiry computed from the returned `expires_in_seconds`, never an assumed lifetime. Needs the
   * session back: a 2xx without a readable one is `invalid_response`.
   */
  async createWidgetSession(
    requestId: string,
    options: CallOptions = {},
  ): Promise<ServiceResult<WidgetSessionHandle>> {
    const requestedAt = this.#clock.now();
    const answer = await this.#runner.run({
      operation: 'createWidgetSession',
      method: 'POST',
      path: requestPath(requestId, '/widget-session'),
      schema: widgetSessionSchema,
      auth: this.#tokens,
      errorShape: 'api',
      // A repeated call only opens a second session; the unused one expires.
      repeatable: true,
      timeoutMs: this.#callTimeoutMs,
      signal: options.signal,
      departures: options.departures,
      maxAttempts: options.maxAttempts,
      onAttempt: options.onAttempt,
      onAttemptSettled: options.onAttemptSettled,
    });
    if (!answer.ok) return answer;
    const session = answer.value.body;
    return ok({
      requestId: session.id,
      widgetUrl: new Secret(session.widget_url),
      expiresInSeconds: session.expires_in_seconds,
      expiresAt: requestedAt + session.expires_in_seconds * 1000,
    });
  }

  /**
   * Reads a signing request (spec §4.4); unknown fields and status values are kept. No two
   * attempts for the same id start less than `READ_SPACING_MS` apart, whoever calls, retries
   * included: an attempt waits its turn (abortable). Needs the request back: a 2xx without a
   * readable one is `invalid_response`.
   */
  async getSigningRequest(
    requestId: string,
    options: CallOptions = {},
  ): Promise<ServiceResult<SigningRequest>> {
    const answer = await this.#runner.run({
      operation: 'readSigningRequest',
      method: 'GET',
      path: requestPath(requestId),
      schema: signingRequestSchema,
      auth: this.#tokens,
      errorShape: 'api',
      repeatable: true,
      timeoutMs: this.#callTimeoutMs,
      signal: options.signal,
      departures: options.departures,
      maxAttempts: options.maxAttempts,
      spacingKey: requestId,
      onAttempt: options.onAttempt,
      onAttemptSettled: options.onAttemptSettled,
    });
    return answer.ok ? ok(answer.value.body) : answer;
  }

  /** Closes pooled connections; the client cannot be used afterwards. */
  close(): Promise<void> {
    return this.#transport.close();
  }
}
