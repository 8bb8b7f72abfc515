import { createReadStream } from 'node:fs';
import { Transform } from 'node:stream';
import { normalizeFilename } from '../../shared/service/filename';
import {
  addParticipantResponseSchema,
  createSigningRequestResponseSchema,
  prepareResponseSchema,
  signingRequestSchema,
  uploadSchema,
  widgetSessionSchema,
  type AddParticipantResponse,
  type CreateSigningRequestBody,
  type CreateSigningRequestResponse,
  type Participant,
  type SigningRequest,
  type Upload,
} from '../../shared/service/wire';
import { silentLogger, type Logger } from '../log';
import { Secret } from '../secret';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './backoff';
import { CallRunner } from './call-runner';
import { HttpTransport } from './http-transport';
import { success, type Result } from './service-failure';
import { TokenManager, type TokenGrant } from './token-manager';

export interface ServiceClientOptions {
  /** The service's base address, e.g. https://sign.example.com (spec: `{base_url}`). */
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: Secret;
  readonly retry?: Partial<RetryPolicy>;
  readonly logger?: Logger;
  /** Injected for tests: randomness for jitter and the clock for expiries. */
  readonly random?: () => number;
  readonly now?: () => number;
  /** Deadline of each non-upload call, in ms (default 30 s). */
  readonly callTimeoutMs?: number;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Fewer attempts for callers with their own schedule (the poller); default from the retry policy. */
  readonly maxAttempts?: number;
}

export interface UploadSource {
  /** A file this process owns and that does not change while it is sent. */
  readonly path: string;
  readonly sizeBytes: number;
  /** The name shown to the service as `X-Filename` (the original file's name). */
  readonly filename: string;
}

export interface UploadOptions extends CallOptions {
  /** Bytes sent so far in the current attempt (restarts at 0 when an attempt is retried). */
  readonly onProgress?: (sentBytes: number, totalBytes: number) => void;
}

export interface ParticipantOptions extends CallOptions {
  /** True when an earlier attempt (perhaps in a process that crashed) may already have added it. */
  readonly mayAlreadyExist?: boolean;
}

export type AddParticipantOutcome =
  { readonly kind: 'added'; readonly response: AddParticipantResponse } | { readonly kind: 'alreadyAdded' };

export interface PrepareOutcome {
  /** True when the request had already been prepared (by an attempt whose answer was lost). */
  readonly alreadyPrepared: boolean;
  /** Known when this call prepared it, or when a read reported them. */
  readonly revision: number | undefined;
  readonly sha256: string | undefined;
}

/** A ceremony link: a secret kept in memory only, valid until `expiresAt` (local clock). */
export interface WidgetSessionHandle {
  readonly requestId: string;
  readonly widgetUrl: Secret;
  readonly expiresInSeconds: number;
  readonly expiresAt: number;
}

/**
 * Read size of uploads: large reads keep the thread pool (shared with the journal's fsyncs) free
 * while several uploads run, and bound the memory of one upload to a few chunks.
 */
const UPLOAD_CHUNK_BYTES = 1024 * 1024;

/** Upload deadline: a minute plus the time the file takes at a slow 128 KiB/s. */
function uploadTimeoutMs(sizeBytes: number): number {
  return 60_000 + Math.ceil(sizeBytes / (128 * 1024)) * 1000;
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

const PREPARED_OR_LATER = new Set(['prepared', 'in_progress', 'completed']);

/**
 * The typed client of the signing service (spec §4). Every call sends `Accept:
 * application/json`, carries a bearer token from the token manager, retries only what is safe
 * to retry, and returns a `Result` whose failure holds a catalog message and never a secret.
 */
export class ServiceClient {
  readonly #transport = new HttpTransport();
  readonly #runner: CallRunner;
  readonly #tokens: TokenManager;
  readonly #now: () => number;
  readonly #callTimeoutMs: number;

  constructor(options: ServiceClientOptions) {
    this.#now = options.now ?? Date.now;
    this.#callTimeoutMs = options.callTimeoutMs ?? 30_000;
    this.#runner = new CallRunner({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      transport: this.#transport,
      policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      logger: options.logger ?? silentLogger,
      random: options.random ?? Math.random,
      now: this.#now,
    });
    this.#tokens = new TokenManager(
      this.#runner,
      { clientId: options.clientId, clientSecret: options.clientSecret },
      this.#now,
    );
  }

  /** Obtains a fresh token ("Test connection"), reporting the granted scopes and lifetime. */
  testConnection(): Promise<Result<TokenGrant>> {
    return this.#tokens.obtain();
  }

  /** Streams a PDF from disk to `POST /api/v1/uploads` (spec §4.2); never holds it in memory. */
  uploadDocument(source: UploadSource, options: UploadOptions = {}): Promise<Result<Upload>> {
    const openBody = () => {
      let sent = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          sent += chunk.length;
          options.onProgress?.(sent, source.sizeBytes);
          callback(null, chunk);
        },
      });
      const file = createReadStream(source.path, { highWaterMark: UPLOAD_CHUNK_BYTES });
      file.on('error', (error) => counter.destroy(error));
      return file.pipe(counter);
    };
    return this.#runner.run({
      operation: 'uploadDocument',
      method: 'POST',
      path: '/api/v1/uploads',
      headers: {
        'content-type': 'application/pdf',
        'content-length': String(source.sizeBytes),
        'x-filename': filenameHeader(source.filename),
      },
      body: openBody,
      schema: uploadSchema,
      auth: this.#tokens,
      errorShape: 'api',
      // A repeated upload only leaves an unused temporary upload behind, which expires.
      repeatable: true,
      timeoutMs: uploadTimeoutMs(source.sizeBytes),
      signal: options.signal,
      onAttempt: () => options.onProgress?.(0, source.sizeBytes),
    });
  }

  /**
   * Creates a signing request (spec §4.3). The caller supplies the Idempotency-Key it stored
   * before the first attempt, so every retry, even from another process, resolves to one request.
   */
  createSigningRequest(
    body: CreateSigningRequestBody,
    idempotencyKey: string,
    options: CallOptions = {},
  ): Promise<Result<CreateSigningRequestResponse>> {
    return this.#runner.run({
      operation: 'createSigningRequest',
      method: 'POST',
      path: '/api/v1/signing-requests',
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify(body),
      schema: createSigningRequestResponseSchema,
      auth: this.#tokens,
      errorShape: 'api',
      repeatable: true,
      timeoutMs: this.#callTimeoutMs,
      signal: options.signal,
    });
  }

  /**
   * Adds a participant (spec §4.5). The service has no idempotency key for this call, so when
   * an earlier attempt may have been applied, a `participant_conflict` answer means it was:
   * the outcome is reported as `alreadyAdded` instead of an error.
   */
  async addParticipant(
    requestId: string,
    participant: Participant,
    options: ParticipantOptions = {},
  ): Promise<Result<AddParticipantOutcome>> {
    const answer = await this.#runner.run({
      operation: 'addParticipant',
      method: 'POST',
      path: `/api/v1/signing-requests/${encodeURIComponent(requestId)}/participants`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(participant),
      schema: addParticipantResponseSchema,
      auth: this.#tokens,
      errorShape: 'api',
      repeatable: true,
      timeoutMs: this.#callTimeoutMs,
      signal: options.signal,
    });
    if (answer.ok) return success({ kind: 'added', response: answer.value });
    const mayExist = options.mayAlreadyExist === true || answer.error.outcomeUnknown;
    if (mayExist && answer.error.code === 'participant_conflict') return success({ kind: 'alreadyAdded' });
    return answer;
  }

  /**
   * Prepares a signing request (spec §4.6). A `prepare_conflict` on a request that the service
   * already shows as prepared (an earlier attempt whose answer was lost) counts as success.
   */
  async prepareSigningRequest(requestId: string, options: CallOptions = {}): Promise<Result<PrepareOutcome>> {
    const answer = await this.#runner.run({
      operation: 'prepareSigningRequest',
      method: 'POST',
      path: `/api/v1/signing-requests/${encodeURIComponent(requestId)}/prepare`,
      schema: prepareResponseSchema,
      auth: this.#tokens,
      errorShape: 'api',
      repeatable: true,
      timeoutMs: this.#callTimeoutMs,
      signal: options.signal,
    });
    if (answer.ok) {
      return success({
        alreadyPrepared: false,
        revision: answer.value.document.revision,
        sha256: answer.value.document.sha256,
      });
    }
    if (answer.error.code !== 'prepare_conflict') return answer;
    const current = await this.getSigningRequest(requestId, options);
    // A read that failed for a passing reason says nothing yet: report that, so the caller retries.
    if (!current.ok) return current.error.retryable ? current : answer;
    const prepared = Boolean(current.value.prepared_at) || PREPARED_OR_LATER.has(current.value.status);
    if (!prepared) return answer;
    return success({
      alreadyPrepared: true,
      revision: current.value.document?.revision,
      sha256: current.value.document?.sha256,
    });
  }

  /**
   * Creates a widget session (spec §4.7). The URL comes back wrapped as a `Secret` with its
   * expiry computed from the returned `expires_in_seconds`, never an assumed lifetime.
   */
  async createWidgetSession(
    requestId: string,
    options: CallOptions = {},
  ): Promise<Result<WidgetSessionHandle>> {
    const requestedAt = this.#now();
    const answer = await this.#runner.run({
      operation: 'createWidgetSession',
      method: 'POST',
      path: `/api/v1/signing-requests/${encodeURIComponent(requestId)}/widget-session`,
      schema: widgetSessionSchema,
      auth: this.#tokens,
      errorShape: 'api',
      // A repeated call only opens a second session; the unused one expires.
      repeatable: true,
      timeoutMs: this.#callTimeoutMs,
      signal: options.signal,
    });
    if (!answer.ok) return answer;
    return success({
      requestId: answer.value.id,
      widgetUrl: new Secret(answer.value.widget_url),
      expiresInSeconds: answer.value.expires_in_seconds,
      expiresAt: requestedAt + answer.value.expires_in_seconds * 1000,
    });
  }

  /** Reads a signing request (spec §4.4); unknown fields and status values are kept. */
  getSigningRequest(requestId: string, options: CallOptions = {}): Promise<Result<SigningRequest>> {
    return this.#runner.run({
      operation: 'readSigningRequest',
      method: 'GET',
      path: `/api/v1/signing-requests/${encodeURIComponent(requestId)}`,
      schema: signingRequestSchema,
      auth: this.#tokens,
      errorShape: 'api',
      repeatable: true,
      timeoutMs: this.#callTimeoutMs,
      signal: options.signal,
      maxAttempts: options.maxAttempts,
    });
  }

  /** Closes pooled connections; the client cannot be used afterwards. */
  close(): Promise<void> {
    return this.#transport.close();
  }
}
