/**
 * How the step machine classes a failed call: does it prove the call did not apply, can the same
 * call work later, does the service refuse the key or the upload, and what made an outcome
 * unknown.
 */
import type { CatalogCode } from '../../shared/service/error-catalog';
import type { ServiceErrorCode } from '../../shared/service/error-codes';
import { isNotFoundAtService, type ServiceFailure } from './service-failure';
import type { UnknownCause } from './batch-events';

/** Errors after which nothing can be sent for any document until the user acts. */
const FATAL_CODES: ReadonlySet<ServiceErrorCode> = new Set<CatalogCode>([
  'credentials_rejected',
  'insufficient_scope',
]);

/** The kinds of answer a step machine tells apart (the table tests use these). */
export type AnswerKind = 'applied' | 'refused' | 'transient' | 'unknown' | 'gone' | 'fatal' | 'interrupted';

/** Classifies a failure: does it prove the call did not apply, and can the same call work later? */
export function failureKind(failure: ServiceFailure): Exclude<AnswerKind, 'applied' | 'interrupted'> {
  if (FATAL_CODES.has(failure.code)) return 'fatal';
  // The token endpoint failed before this attempt of the call was sent: its answer says
  // nothing about this document (an earlier attempt's unknown outcome is recorded by the
  // deciders from `outcomeUnknown`), so it never fails the document nor refuses its key.
  // Retryable waits; anything else stops the run with the token endpoint's reason.
  if (failure.stage === 'token') return failure.retryable ? 'transient' : 'fatal';
  if (failure.outcomeUnknown) return 'unknown';
  if (isNotFoundAtService(failure)) return 'gone';
  if (failure.retryable) return 'transient';
  return 'refused';
}

/** True when the service's refusal names the upload: it no longer accepts it (README "Sending exactly once"). */
export function refusalNamesUpload(failure: {
  readonly code: ServiceErrorCode | undefined;
  readonly serviceMessage?: string | undefined;
}): boolean {
  return /upload/i.test(failure.code ?? '') || /upload/i.test(failure.serviceMessage ?? '');
}

/**
 * True when the service refused a creation because its key is known with another body: the
 * service holds a request for this contract's key made elsewhere (this app always sends a key
 * with the very body stored with it). Services word it their own way (409
 * `idempotency_key_reused`, Stripe's 400 `idempotency_error`, the IETF draft's 422). A key
 * still in use (Stripe's 409 `idempotency_key_in_use`: its first request is still running, as
 * one of this document's may be) is not a refusal: it is waited out as any 409.
 */
export function refusesKeyReuse(failure: Pick<ServiceFailure, 'code' | 'httpStatus' | 'stage'>): boolean {
  if (failure.stage === 'token') return false;
  const status = failure.httpStatus ?? 0;
  return (
    status >= 400 &&
    status < 500 &&
    /idempotency/i.test(failure.code) &&
    !/invalid_idempotency_key|required|missing|in_use|in_progress|processing/i.test(failure.code)
  );
}

/** What made an attempt's outcome unknown, as its failure tells it. */
export function unknownCause(failure: ServiceFailure): UnknownCause {
  if (failure.httpStatus === 409) return 'key_in_use';
  return failure.httpStatus !== undefined && failure.httpStatus >= 500 ? 'server_error' : 'no_answer';
}
