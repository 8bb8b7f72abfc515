/**
 * The simulator's public types: how to start it, how to steer its faults, and the records
 * tests read back. Kept apart from the implementation so that tests and tools can import the
 * shapes without pulling in the server.
 */
import type { ServiceVariant } from './variants';
import type { LineTime } from './line-time';
import type { TimeSource } from './clock';

/** OAuth scopes of the signing service (spec §5). */
export type Scope =
  'signing.create' | 'signing.read' | 'ceremony.create' | 'signing.cancel' | 'webhooks.manage';

export const ALL_SCOPES = [
  'signing.create',
  'signing.read',
  'ceremony.create',
  'signing.cancel',
  'webhooks.manage',
] as const satisfies readonly Scope[];

/** An application registered with the simulated service (client-credentials grant). */
export interface SimulatorClient {
  clientId: string;
  clientSecret: string;
  scopes: Scope[];
}

export interface SimulatorOptions {
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Seeds the random generator behind random faults, so a failing run can be replayed. */
  seed?: number;
  /**
   * The time the service lives in (default: this computer's). An in-process test passes the
   * virtual clock the app under test runs on, so both sides of every lifetime, hold and
   * Retry-After see the same time; `advanceClock` still moves the service's time alone.
   */
  timeSource?: TimeSource;
  /**
   * The service played where the spec says "not shown" (success codes, key retention, check
   * order, upload error codes, token and Retry-After forms, extra fields). Default
   * REFERENCE_VARIANT, the simulator's behaviour before variants existed.
   */
  variant?: ServiceVariant;
  /** Lifetime of access tokens, by the simulator clock. Default: the variant's (3600 for the reference). */
  tokenTtlSeconds?: number;
  /** Lifetime of uploads, returned as `expires_in_hours`. Default 24. */
  uploadTtlHours?: number;
  /** Lifetime of widget URLs, returned as `expires_in_seconds`. Default 900. */
  widgetTtlSeconds?: number;
  /** Time between finalization and `evidence.ready` turning true, by the simulator clock. Default 1500. */
  evidenceDelayMs?: number;
  /** Registered applications. Default: [DEMO_CLIENT]. */
  clients?: SimulatorClient[];
  /**
   * The client's uplink in Mbit/s (10^6 bits a second): every upload body, all connections
   * together, crosses one link at this rate. Default: unlimited.
   */
  uploadMbit?: number;
  /**
   * Each TCP connection's own line in Mbit/s (a per-flow shaper): an upload body crosses it as
   * well as the shared `uploadMbit` line, waiting for both. Default: unlimited.
   */
  uploadMbitPerConnection?: number;
  /**
   * The time the uplink runs on: its rates, its stalls and `stall` faults (line-time.ts).
   * Default: this computer's, as a real line. A test may pass a virtual clock, its client's
   * too: the line then crosses each piece at the instant its rate allows (see line-time.ts).
   */
  uplinkTime?: LineTime;
  /** Serve the HTTP control API under `/__simulator/`. Default true. */
  control?: boolean;
  /**
   * A file to keep the service's data in (uploads, requests, idempotency keys): read at start,
   * written after every call that may change it. The demo connection uses it to last.
   */
  statePath?: string;
}

/** Random faults; every rate is a probability in [0, 1]. */
export interface FaultConfig {
  /** A request gets 503 `upstream_unavailable` before being processed. */
  rate503: number;
  /** A request gets 429 `rate_limited` (with Retry-After) before being processed. */
  rate429: number;
  /** Value of the Retry-After header on 429 and 503. */
  retryAfterSeconds: number;
  /** The socket is destroyed before the request is processed: nothing happened. */
  dropBeforeRate: number;
  /** The request is processed (state changed) but the socket is destroyed before the answer. */
  dropAfterRate: number;
  /** A reverse proxy in front of the service answers 404 with an HTML page; nothing is processed. */
  gateway404Rate: number;
  /** Added to every API response. */
  latencyMs: number;
  latencySpikeRate: number;
  latencySpikeMs: number;
  /**
   * A token request (`POST /oauth/token`, never another path) is refused as a service does for a
   * moment during a key rotation, with `tokenRefusalCode`, before being processed.
   */
  tokenRefusalRate: number;
  /** How a token refusal answers: 400 `invalid_grant` (the default) or 401 `invalid_client`. */
  tokenRefusalCode: TokenRefusalCode;
  /**
   * A call goes silent before it is processed: the simulator stops reading it and never
   * answers, and leaves the connection open until the client (or `close()`) closes it.
   */
  silentRate: number;
  /** Regex source: random faults and latency apply only to matching paths (within /oauth/token and /api/v1/). */
  pathPattern?: string;
}

/** The OAuth errors (RFC 6749 §5.2) a `tokenRefusal` answers with: 400 `invalid_grant` or 401 `invalid_client`. */
export type TokenRefusalCode = 'invalid_grant' | 'invalid_client';

export const TOKEN_REFUSAL_CODES = [
  'invalid_grant',
  'invalid_client',
] as const satisfies readonly TokenRefusalCode[];

export type FaultKind =
  | '503'
  | '429'
  | 'dropBefore'
  | 'dropAfter'
  | 'reject'
  | 'gateway404'
  | 'tokenRefusal'
  | 'silent'
  | 'silentAfter'
  | 'stall';

/** Every fault kind, for the control API's schema. */
export const FAULT_KINDS = [
  '503',
  '429',
  'dropBefore',
  'dropAfter',
  'reject',
  'gateway404',
  'tokenRefusal',
  'silent',
  'silentAfter',
  'stall',
] as const satisfies readonly FaultKind[];

/**
 * A fault for the next request whose path matches `pathPattern` (any request when absent).
 * `gateway404` answers 404 with an HTML page, as a reverse proxy does, without processing.
 * `reject` answers `status` with the error `code` without processing the request: how a test
 * meets an answer the spec does not show (e.g. a creation refused for a reason of the service's).
 * `tokenRefusal` waits for the next token request (`POST /oauth/token`, whatever `pathPattern`
 * says) and refuses it in OAuth shape with `code` (a `TokenRefusalCode`, default `invalid_grant`).
 * `silent`: the simulator stops reading the call (an upload after `afterBytes` of its body) and
 * never answers nor closes; nothing is processed. `silentAfter`: the call is processed, then its
 * answer is never written and the connection stays open. Both last until the client closes the
 * connection, or the simulator closes. `stall`: the connection is not read for `stallMs` (an
 * upload's after `afterBytes` of its body, another call's before it is read), then the call
 * goes on and is answered.
 */
export interface QueuedFault {
  kind: FaultKind;
  pathPattern?: string;
  retryAfterSeconds?: number;
  /** For `reject`: the HTTP status (4xx or 5xx, default 422). */
  status?: number;
  /** For `reject`: the error code (default `rejected`); for `tokenRefusal`: a `TokenRefusalCode`. */
  code?: string;
  /** For `silent` and `stall` on an upload: body bytes taken before it strikes (default 0). */
  afterBytes?: number;
  /** For `stall` (required): how long the connection is not read, in ms. */
  stallMs?: number;
}

/** Names of the operations the simulator recognises, as recorded in the call log. */
export type OperationName =
  | 'token'
  | 'upload'
  | 'createSigningRequest'
  | 'readSigningRequest'
  | 'addParticipant'
  | 'prepare'
  | 'createWidgetSession'
  | 'widgetPage'
  | 'widgetSign'
  | 'unknown';

/**
 * The simulator's own ceremony goes draft → prepared → in_progress → completed. The spec lists
 * its statuses as "not shown" (§3), so a test may put a request in any other status too
 * (`Simulator.setStatus`): `declined`, `expired`, `on_hold`… A string, then, beyond these.
 */
export type RequestStatus = 'draft' | 'prepared' | 'in_progress' | 'completed' | (string & {});
/** Its document's status: pending → prepared → finalized, or any other a test sets. */
export type DocumentStatus = 'pending' | 'prepared' | 'finalized' | (string & {});

/**
 * A status a test puts a request in (`Simulator.setStatus`, `POST /__simulator/requests/{id}/status`):
 * any status word; optionally its document's status, and whether `finalized_at` is set (now) or
 * cleared. What is not given stays as it is.
 */
export interface StatusChange {
  status: string;
  documentStatus?: string;
  finalized?: boolean;
}

export interface ParticipantRecord {
  participantId: string;
  participantType: 'signer' | 'observer';
  isInternal: boolean;
  role: string;
  name: string;
  email: string;
  signingOrder: number | null;
  /** True for participants added with the participants endpoint rather than at creation. */
  addedLater: boolean;
  /** ISO 8601 UTC, null until this signer has signed. */
  signedAt: string | null;
}

/** A signing request as the simulated service holds it. Timestamps are ISO 8601 UTC or null. */
export interface SignedRequestRecord {
  id: string;
  clientId: string;
  externalReference: string;
  transactionType: string | null;
  idempotencyKey: string;
  uploadId: string;
  filename: string;
  status: RequestStatus;
  documentStatus: DocumentStatus;
  revision: number | null;
  documentSha256: string | null;
  evidenceReady: boolean;
  enforceOrder: boolean;
  ownerMustSign: boolean | null;
  ceremonyMode: string | null;
  meetingProvider: string | null;
  evidenceLevel: string | null;
  locale: string | null;
  participants: ParticipantRecord[];
  createdAt: string;
  preparedAt: string | null;
  openedAt: string | null;
  finalizedAt: string | null;
}

export interface UploadRecord {
  uploadId: string;
  clientId: string;
  /** Normalized filename, as returned to the client. */
  filename: string;
  sha256: string;
  sizeBytes: number;
  createdAt: string;
  expiresAt: string;
  expired: boolean;
}

/** One HTTP call received on /oauth, /api or /widget (control calls are not recorded). */
export interface CallRecord {
  method: string;
  /** Path without query string; widget tokens are replaced by `:token` because they are secrets. */
  path: string;
  operation: OperationName;
  /** The authenticated client, when the call carried a valid token (or valid credentials for /oauth/token). */
  clientId: string | null;
  /** Status code answered; null when no answer reached the client (dropped socket, client gone). */
  status: number | null;
  fault: FaultKind | null;
  /** When the call arrived, by the simulator clock (ISO 8601 UTC). */
  at: string;
  /** A creation's Idempotency-Key as it arrived (not a secret), even when a fault dropped the call. */
  idempotencyKey?: string;
  /** For uploads: body bytes the service had received (that crossed the uplink) when the call was logged. */
  receivedBytes?: number;
}
