import type { CatalogCode } from '../../shared/service/error-catalog';
import { serviceErrorCode, type ServiceErrorCode } from '../../shared/service/error-codes';
import { oauthErrorBodySchema, serviceErrorBodySchema } from '../../shared/service/wire';

/** What an error body said, when it was in the shape the service uses. */
export interface ErrorDetails {
  readonly code: ServiceErrorCode | undefined;
  readonly message: string | undefined;
  /** True when the body had the service's error shape: the service itself answered. */
  readonly fromService: boolean;
}

/** How the runner must treat one HTTP answer that is not a success. */
export interface FailedAnswer {
  readonly code: ServiceErrorCode;
  readonly serviceMessage: string | undefined;
  /** The same call may succeed later without any change: retried inside the call, then retryable. */
  readonly retryable: boolean;
  /** The request may have been applied although this answer is an error. */
  readonly outcomeUnknown: boolean;
  /**
   * The service asked every caller of this operation to pause (a 429, or a 503): the runner
   * holds the operation back for the Retry-After it gave (a 429 without one: a backoff delay).
   */
  readonly pausesOperation: boolean;
}

export type AnswerClass =
  | { readonly kind: 'success' }
  | { readonly kind: 'unauthorized'; readonly details: ErrorDetails }
  | ({ readonly kind: 'failure' } & FailedAnswer);

const NO_DETAILS: ErrorDetails = { code: undefined, message: undefined, fromService: false };

/**
 * Reads an error body in the service's shape: spec §7 `{"error":{"code","message"}}` for the
 * API; for the token endpoint, also OAuth's `{"error","error_description"}` (RFC 6749 §5.2).
 * Anything else (HTML, empty, other JSON) did not come from the service.
 */
export function parseErrorDetails(text: string, shape: 'oauth' | 'api'): ErrorDetails {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return NO_DETAILS;
  }
  if (shape === 'oauth') {
    const oauth = oauthErrorBodySchema.safeParse(json);
    if (oauth.success)
      return {
        code: serviceErrorCode(oauth.data.error),
        message: oauth.data.error_description,
        fromService: true,
      };
  }
  const api = serviceErrorBodySchema.safeParse(json);
  return api.success
    ? { code: serviceErrorCode(api.data.error.code), message: api.data.error.message, fromService: true }
    : NO_DETAILS;
}

/** 5xx answers that say the server will never do this, so retrying cannot help. */
const NEVER_SUPPORTED = new Set([501, 505]);

/** The client's own code for a status whose body named none. */
function codeForStatus(status: number): CatalogCode {
  if (status === 404) return 'gateway_not_found';
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'upstream_unavailable';
  if (status === 502 || status === 504) return 'gateway_error';
  return 'service_error';
}

/**
 * Classifies an HTTP answer (README "Answers the spec does not pin down"):
 *
 * - any 2xx is success, with or without a body;
 * - 401 is left to the runner (renew the token once);
 * - 429 and 503 say "not now": retryable, not applied, and they pause the operation;
 * - a 404 without the service's error body is a gateway's, not the service's refusal:
 *   `gateway_not_found`, retryable, not applied;
 * - 500, 502, 504 and every other 5xx but 503 may have been applied (a gateway may have
 *   forwarded the request, the service may have half-applied it): outcome unknown, and
 *   retryable except 501 and 505;
 * - every other answer (4xx, 1xx, 3xx) refuses the request as sent: not applied, not retryable.
 */
export function classifyAnswer(status: number, text: string, shape: 'oauth' | 'api'): AnswerClass {
  if (status >= 200 && status < 300) return { kind: 'success' };
  const details = parseErrorDetails(text, shape);
  if (status === 401) return { kind: 'unauthorized', details };
  const code = details.code ?? codeForStatus(status);
  const base = { kind: 'failure', code, serviceMessage: details.message } as const;
  if (status === 429 || status === 503) {
    return { ...base, retryable: true, outcomeUnknown: false, pausesOperation: true };
  }
  if (status === 404 && !details.fromService) {
    return { ...base, retryable: true, outcomeUnknown: false, pausesOperation: false };
  }
  if (status >= 500 && status < 600) {
    return { ...base, retryable: !NEVER_SUPPORTED.has(status), outcomeUnknown: true, pausesOperation: false };
  }
  return { ...base, retryable: false, outcomeUnknown: false, pausesOperation: false };
}
