import { userMessage } from '../../shared/service/error-catalog';

/** The service operations, named as the spec names them (§4). */
export type OperationName =
  | 'obtainToken'
  | 'uploadDocument'
  | 'createSigningRequest'
  | 'readSigningRequest'
  | 'addParticipant'
  | 'prepareSigningRequest'
  | 'createWidgetSession';

/**
 * A failed service call, as a value. `code` is the service's error code (spec §7) or one of the
 * client's own catalog codes; `message` is what a user reads; neither ever contains a secret.
 */
export interface ServiceFailure {
  readonly operation: OperationName;
  /** HTTP status when the service answered; absent for network failures and timeouts. */
  readonly httpStatus?: number;
  readonly code: string;
  /** The service's own message for the code, when it sent one. */
  readonly serviceMessage?: string;
  /** The catalog message a user sees. */
  readonly message: string;
  /** True when the same call may succeed later without any change (network, 429, 503). */
  readonly retryable: boolean;
  /** True when the request may have been applied although no answer arrived. */
  readonly outcomeUnknown: boolean;
  readonly attempts: number;
  /** How long the service asked the client to wait (Retry-After), when it said so. */
  readonly retryAfterMs?: number;
}

export type Result<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ServiceFailure };

/** Wraps a value as a successful result. */
export function success<T>(value: T): Result<T> {
  return { ok: true, value };
}

/** Builds a failed result whose user message comes from the error catalog. */
export function failure<T>(fields: Omit<ServiceFailure, 'message'>): Result<T> {
  return { ok: false, error: { ...fields, message: userMessage(fields.code, fields.serviceMessage) } };
}
