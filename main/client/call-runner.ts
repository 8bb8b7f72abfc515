import type { z } from 'zod';
import { oauthErrorBodySchema, serviceErrorBodySchema } from '../../shared/service/wire';
import type { Logger } from '../log';
import type { Secret } from '../secret';
import { backoffDelayMs, parseRetryAfterMs, sleep, type RetryPolicy } from './backoff';
import type { HttpRequest, HttpTransport } from './http-transport';
import { failure, success, type OperationName, type Result } from './service-failure';

/** An access token held in memory only. */
export interface AccessToken {
  readonly value: Secret;
  /** Local clock time (ms) after which the token should not be used; undefined when unknown. */
  readonly expiresAt: number | undefined;
}

/** Where authenticated calls get their token, and report one the service refused. */
export interface TokenSource {
  current(): Promise<Result<AccessToken>>;
  invalidate(token: AccessToken): void;
}

/** Everything the runner needs to perform one service operation. */
export interface CallSpec<T> {
  readonly operation: OperationName;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: HttpRequest['body'];
  readonly schema: z.ZodType<T>;
  /** Present for every call but the token call (spec §4). */
  readonly auth?: TokenSource;
  /** The token endpoint answers errors in OAuth shape, the API in the spec's §7 shape. */
  readonly errorShape: 'oauth' | 'api';
  /**
   * Whether sending the call again is harmless when an earlier attempt may have been applied
   * (reads, idempotency-keyed creates). Calls certainly never sent are always retried.
   */
  readonly repeatable: boolean;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Overrides the policy's attempts for this call. */
  readonly maxAttempts?: number | undefined;
  /** Told before each attempt, so progress can restart with a fresh body. */
  readonly onAttempt?: (attempt: number) => void;
}

export interface CallRunnerDeps {
  readonly baseUrl: string;
  readonly transport: HttpTransport;
  readonly policy: RetryPolicy;
  readonly logger: Logger;
  readonly random: () => number;
  readonly now: () => number;
}

/** Statuses that mean "not now": the same call may succeed later (PRODUCT.md). */
const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);

interface ErrorDetails {
  readonly code: string | undefined;
  readonly message: string | undefined;
}

function parseErrorDetails(text: string, shape: 'oauth' | 'api'): ErrorDetails {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { code: undefined, message: undefined };
  }
  if (shape === 'oauth') {
    const oauth = oauthErrorBodySchema.safeParse(json);
    if (oauth.success) return { code: oauth.data.error, message: oauth.data.error_description };
  }
  const api = serviceErrorBodySchema.safeParse(json);
  return api.success
    ? { code: api.data.error.code, message: api.data.error.message }
    : { code: undefined, message: undefined };
}

function defaultCodeForStatus(status: number): string {
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'upstream_unavailable';
  return 'service_error';
}

/**
 * Runs one service operation to completion: bounded attempts, exponential backoff with full
 * jitter, Retry-After honoured, one token renewal on 401, every answer parsed with its schema.
 * Repeats only what is safe to repeat. Returns a value; only the caller's abort throws.
 */
export class CallRunner {
  readonly #deps: CallRunnerDeps;

  constructor(deps: CallRunnerDeps) {
    this.#deps = deps;
  }

  async run<T>(spec: CallSpec<T>): Promise<Result<T>> {
    const { logger, random } = this.#deps;
    const policy = spec.maxAttempts
      ? { ...this.#deps.policy, maxAttempts: spec.maxAttempts }
      : this.#deps.policy;
    let attempt = 0;
    let renewedAfterUnauthorized = false;
    let outcomeUnknown = false;

    const retryOrFail = async (
      reason: string,
      waitMs: number | undefined,
      fail: () => Result<T>,
    ): Promise<'retry' | Result<T>> => {
      if (attempt >= policy.maxAttempts) return fail();
      if (waitMs !== undefined && waitMs > policy.maxRetryAfterMs) return fail();
      const delayMs = waitMs ?? backoffDelayMs(attempt, policy, random);
      logger.log('warn', 'service.retry', { operation: spec.operation, attempt, reason, delayMs });
      await sleep(delayMs, spec.signal);
      return 'retry';
    };

    for (;;) {
      attempt += 1;
      let token: AccessToken | undefined;
      if (spec.auth) {
        const tokenResult = await spec.auth.current();
        if (!tokenResult.ok) {
          return failure({
            ...tokenResult.error,
            operation: spec.operation,
            attempts: attempt,
            outcomeUnknown,
          });
        }
        token = tokenResult.value;
      }
      spec.onAttempt?.(attempt);
      const outcome = await this.#deps.transport.send({
        method: spec.method,
        url: `${this.#deps.baseUrl}${spec.path}`,
        headers: {
          accept: 'application/json',
          ...(token ? { authorization: `Bearer ${token.value.reveal()}` } : {}),
          ...spec.headers,
        },
        body: spec.body,
        timeoutMs: spec.timeoutMs,
        signal: spec.signal,
      });

      if (outcome.kind === 'local') {
        return failure({
          operation: spec.operation,
          code: 'local_file_changed',
          retryable: false,
          // A partial body may have reached the service; it cannot have been accepted.
          outcomeUnknown: false,
          attempts: attempt,
        });
      }
      if (outcome.kind === 'network') {
        outcomeUnknown ||= outcome.mayHaveReachedService;
        const code = outcome.timedOut ? 'timeout' : 'network_unreachable';
        const fail = (): Result<T> =>
          failure({ operation: spec.operation, code, retryable: true, outcomeUnknown, attempts: attempt });
        if (outcome.mayHaveReachedService && !spec.repeatable) return fail();
        // Refused twice: the service is unreachable; the caller (the queue) waits and says so.
        if (!outcome.mayHaveReachedService && attempt >= 2) return fail();
        const next = await retryOrFail(outcome.errorCode, undefined, fail);
        if (next === 'retry') continue;
        return next;
      }

      const { status } = outcome;
      if (status >= 200 && status < 300) return this.#parseAnswer(spec, outcome.text, attempt);

      const details = parseErrorDetails(outcome.text, spec.errorShape);
      if (status === 401 && token && spec.auth) {
        if (!renewedAfterUnauthorized) {
          // An expired or revoked token: renew once and try again without counting an attempt.
          renewedAfterUnauthorized = true;
          spec.auth.invalidate(token);
          attempt -= 1;
          continue;
        }
        return failure({
          operation: spec.operation,
          httpStatus: status,
          code: 'credentials_rejected',
          serviceMessage: details.message,
          retryable: false,
          outcomeUnknown,
          attempts: attempt,
        });
      }

      if (TRANSIENT_STATUSES.has(status)) {
        const retryAfterMs = parseRetryAfterMs(outcome.headers['retry-after'], this.#deps.now());
        const fail = (): Result<T> =>
          failure({
            operation: spec.operation,
            httpStatus: status,
            code: details.code ?? defaultCodeForStatus(status),
            serviceMessage: details.message,
            retryable: true,
            outcomeUnknown,
            attempts: attempt,
            retryAfterMs,
          });
        const next = await retryOrFail(`http_${status}`, retryAfterMs, fail);
        if (next === 'retry') continue;
        return next;
      }

      return failure({
        operation: spec.operation,
        httpStatus: status,
        code: details.code ?? defaultCodeForStatus(status),
        serviceMessage: details.message,
        retryable: false,
        outcomeUnknown,
        attempts: attempt,
      });
    }
  }

  #parseAnswer<T>(spec: CallSpec<T>, text: string, attempt: number): Result<T> {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = spec.schema.safeParse(json);
    if (parsed.success) return success(parsed.data);
    this.#deps.logger.log('error', 'service.invalid_response', {
      operation: spec.operation,
      issues: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    });
    return failure({
      operation: spec.operation,
      code: 'invalid_response',
      retryable: false,
      // The call succeeded on the service's side; only its answer is unreadable.
      outcomeUnknown: true,
      attempts: attempt,
    });
  }
}
