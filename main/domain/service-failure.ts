import { err, type Err, type Result } from '../../shared/base/result';
import type { Translator } from '../../shared/i18n/translator';
import { userMessage } from '../../shared/service/error-catalog';
import type { ServiceErrorCode } from '../../shared/service/error-codes';

/** The service operations, named as the spec names them (§4). */
export const OPERATION_NAMES = [
  'obtainToken',
  'uploadDocument',
  'createSigningRequest',
  'readSigningRequest',
  'addParticipant',
  'prepareSigningRequest',
  'createWidgetSession',
] as const;

export type OperationName = (typeof OPERATION_NAMES)[number];

/** True when `name` is one of the service operations. */
export function isOperationName(name: string): name is OperationName {
  return (OPERATION_NAMES as readonly string[]).includes(name);
}

/**
 * The longest hold one answer can impose. A Retry-After of days is a broken or hostile header,
 * not a plan; it is also beyond what a timer can wait (2^31 ms) in one go.
 */
export const MAX_OPERATION_HOLD_MS = 24 * 3600_000;

/**
 * A failed service call, as a value. `code` is the service's error code (spec §7) or one of the
 * client's own catalog codes; `message` is what a user reads; neither ever contains a secret.
 */
export interface ServiceFailure {
  readonly operation: OperationName;
  /** HTTP status when the service answered; absent for network failures and timeouts. */
  readonly httpStatus?: number;
  readonly code: ServiceErrorCode;
  /** The service's own message for the code, when it sent one. */
  readonly serviceMessage?: string;
  /**
   * The service's own error code when `code` is the client's word for its answer:
   * `token_refused` carries the token endpoint's OAuth code (`invalid_grant`…) here.
   */
  readonly serviceCode?: string;
  /** The catalog message a user sees. */
  readonly message: string;
  /**
   * True when the same call may succeed later without any change: network failures, timeouts,
   * 429, 503, a gateway's 404, and 5xx answers other than 501 and 505.
   */
  readonly retryable: boolean;
  /**
   * True when any attempt of this call may have been applied by the service: the request may
   * have left before the network failed, it timed out, or it got a 5xx other than 503. A 429,
   * a 503 and every 4xx say the attempt that got them was not applied; this stays true when
   * such an answer follows an earlier, unknown attempt of the same call.
   */
  readonly outcomeUnknown: boolean;
  readonly attempts: number;
  /**
   * `token` when the call failed while obtaining its access token (spec §4.1), before any attempt
   * of `operation` itself: the failure says nothing about the operation's own request (its
   * document, its recipients), and `httpStatus`/`code` are the token endpoint's. Absent otherwise.
   */
  readonly stage?: 'token';
  /**
   * For `network_unreachable` and `timeout`: the last attempt's system error code (ENOTFOUND,
   * ECONNREFUSED, a TLS certificate code…), so a message can name the cause. Never a URL.
   */
  readonly networkCode?: string;
  /** How long the service asked the client to wait (Retry-After), when it said so. */
  readonly retryAfterMs?: number;
  /**
   * Which answer of the service this failure reports, when many calls meet one answer: every call
   * that meets the same refused token request carries the same number (token-manager.ts), so it
   * is said once, not once per document that met it.
   */
  readonly answerId?: number;
}

/**
 * The client's code for a refused token request that is waited out, not taken as the verdict on
 * the credentials (token-manager.ts); the token endpoint's own code is in `serviceCode`.
 */
export const TOKEN_REFUSED = 'token_refused' satisfies ServiceErrorCode;

/** What a service call gives: its value, or the failure a user reads. */
export type ServiceResult<T> = Result<T, ServiceFailure>;

/** Builds a failed result whose user message comes from the error catalog. */
export function failure(fields: Omit<ServiceFailure, 'message'>): Err<ServiceFailure> {
  return err({
    ...fields,
    message: userMessage(fields.code, fields.serviceMessage, undefined, fields.serviceCode),
  });
}

/**
 * A failure's words in `t`'s language. `message` holds them in English (the command line's, and
 * what is stored); a view of the app words them anew from the code and the service's own words.
 */
export function serviceFailureWords(
  failure: Pick<ServiceFailure, 'code' | 'serviceMessage' | 'serviceCode'>,
  t: Translator['t'],
): string {
  return userMessage(failure.code, failure.serviceMessage, t, failure.serviceCode);
}

/**
 * True when the service itself said the signing request does not exist for this client: a 404
 * whose body is the service's error with code `signing_request_not_found`. A 404 without that
 * body (a gateway's, code `gateway_not_found`) never counts: the request may well exist.
 */
export function isNotFoundAtService(failure: ServiceFailure): boolean {
  return failure.httpStatus === 404 && failure.code === 'signing_request_not_found';
}
