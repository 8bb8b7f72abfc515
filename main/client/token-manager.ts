import { userMessage } from '../../shared/service/error-catalog';
import { tokenResponseSchema } from '../../shared/service/wire';
import { Secret } from '../base/secret';
import type { RetryPolicy } from './backoff';
import type { AccessToken, CallRunner, TokenSource } from './call-runner';
import { PROCESS_GRANTS, type CredentialsAtService, type GrantedCredentials } from './granted-credentials';
import { err, ok, type Err } from '../../shared/base/result';
import type { OAuthErrorCode, ServiceErrorCode } from '../../shared/service/error-codes';
import type { ServiceFailure, ServiceResult } from '../domain/service-failure';
import { TOKEN_REFUSED } from '../domain/service-failure';

export interface TokenGrant {
  readonly token: AccessToken;
  readonly scopes: readonly string[] | undefined;
  readonly expiresInSeconds: number | undefined;
}

const TOKEN_TIMEOUT_MS = 20_000;
/** OAuth error codes that mean the client id or secret is not accepted. */
const CREDENTIAL_ERRORS: ReadonlySet<ServiceErrorCode> = new Set<OAuthErrorCode>([
  'invalid_client',
  'unauthorized_client',
  'invalid_grant',
]);
/** Renew this early before expiry, but never more than 10% of the lifetime. */
const MAX_RENEWAL_MARGIN_MS = 60_000;
/** A token asked for this recently is fresh enough to answer a renewal after a 401. */
export const RENEWAL_SHARED_MS = 1_000;

/**
 * How long token requests must go on being refused, from the first refusal of a streak, before
 * the credentials count as rejected (README "Answers the spec does not pin down"): a service refuses
 * tokens for a moment while it rotates its keys, and credentials that got a token in this
 * process are not condemned for that.
 */
export const TOKEN_REFUSAL_WINDOW_MS = 30_000;
/** Refused token requests in a row, at least, before the credentials count as rejected. */
export const TOKEN_REFUSALS_TO_REJECT = 5;
/**
 * After a refused token request, no other starts before this wait: `first` after the first
 * refusal of a streak, doubling after each, at most `longest` (2, 4, 8, 16 s: the fifth try
 * comes 30 s after the first, when the window is over), plus a random part of up to half of it,
 * so that desks refused at the same instant of a rotation do not ask again in step. Callers are
 * told the wait as a Retry-After.
 */
export const TOKEN_REFUSAL_BACKOFF_MS = { first: 2_000, longest: 16_000 } as const;

/** Refused token requests since the last token granted. */
interface RefusalStreak {
  readonly count: number;
  /** When the first and the last refusal of the streak were answered (local clock). */
  readonly firstAt: number;
  readonly lastAt: number;
  /** No token request starts before this. */
  readonly nextTryAt: number;
  /** What the last refusal meant; told again, with the wait left, to callers before `nextTryAt`. */
  readonly failure: ServiceFailure;
}

/** RFC 6749 §5.2: a bad client answers 401, or 400 with one of `CREDENTIAL_ERRORS`. */
function isRefusal(failure: ServiceFailure): boolean {
  return failure.httpStatus === 401 || (failure.httpStatus === 400 && CREDENTIAL_ERRORS.has(failure.code));
}

/** A refusal taken as the verdict: the credentials are rejected, and waiting will not help. */
function asRejected(refusal: ServiceFailure): ServiceFailure {
  const { retryAfterMs: _wait, ...failure } = refusal;
  return {
    ...failure,
    code: 'credentials_rejected',
    message: userMessage('credentials_rejected'),
    retryable: false,
  };
}

let answerIds = 0;
/** A number no other refused token request of this process carries (`ServiceFailure.answerId`). */
function nextAnswerId(): number {
  answerIds += 1;
  return answerIds;
}

/**
 * Obtains OAuth client-credentials tokens (spec §4.1) and keeps the current one in memory.
 * Renews before expiry when the service gave `expires_in`, otherwise after a 401. Concurrent
 * callers share a single token request.
 *
 * A refused token request (400 `invalid_grant`, `invalid_client` or `unauthorized_client`, or a
 * 401) is `credentials_rejected` only when these credentials never got a token in this process,
 * or when refusals have gone on for `TOKEN_REFUSAL_WINDOW_MS` and `TOKEN_REFUSALS_TO_REJECT`
 * tries; otherwise it is `token_refused`, retryable, naming the service's code, and the next
 * token request waits its backoff (`TOKEN_REFUSAL_BACKOFF_MS`). A token granted ends the streak.
 */
export class TokenManager implements TokenSource {
  readonly #runner: CallRunner;
  readonly #credentials: CredentialsAtService;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #grants: GrantedCredentials;
  #current: AccessToken | undefined;
  /** When the current token was asked for (local clock). */
  #currentAskedAt = 0;
  #renewAt = 0;
  #pending: Promise<ServiceResult<TokenGrant>> | undefined;
  #refusals: RefusalStreak | undefined;

  constructor(
    runner: CallRunner,
    credentials: CredentialsAtService,
    now: () => number,
    options: { readonly random?: () => number; readonly grants?: GrantedCredentials } = {},
  ) {
    this.#runner = runner;
    this.#credentials = credentials;
    this.#now = now;
    this.#random = options.random ?? Math.random;
    this.#grants = options.grants ?? PROCESS_GRANTS;
  }

  /** A token that is valid as far as this client knows, obtaining one if needed. */
  async current(): Promise<ServiceResult<AccessToken>> {
    if (this.#current && this.#valid()) return ok(this.#current);
    return this.#fresh();
  }

  /**
   * A token asked for now: after a 401, the one kept may be too old, whoever renewed it. One
   * asked for within `RENEWAL_SHARED_MS` counts as asked for now, so that calls refused together
   * share one renewal instead of each asking (a service may also cancel a token when it issues
   * the next).
   */
  async renew(): Promise<ServiceResult<AccessToken>> {
    if (this.#current && this.#now() - this.#currentAskedAt < RENEWAL_SHARED_MS) return ok(this.#current);
    return this.#fresh();
  }

  /** Forgets `token` if it is still the current one (the service refused it). */
  invalidate(token: AccessToken): void {
    if (this.#current === token) this.#current = undefined;
  }

  /**
   * Asks the service for a fresh token now, whatever the backoff after a refusal: "Test
   * connection" uses this, and a person who asks whether the credentials work gets a verdict,
   * so a refusal here is always `credentials_rejected`.
   */
  async obtain(retry?: Partial<RetryPolicy>): Promise<ServiceResult<TokenGrant>> {
    const grant = await this.#ask(retry);
    return !grant.ok && grant.error.code === TOKEN_REFUSED ? err(asRejected(grant.error)) : grant;
  }

  /**
   * A token for the calls to come, as {@link obtain} gives it, unless a valid one is held: the
   * check before a command line run, whose token the run then uses (one token a run).
   */
  async ensure(retry?: Partial<RetryPolicy>): Promise<ServiceResult<void>> {
    if (this.#valid()) return ok(undefined);
    const grant = await this.obtain(retry);
    return grant.ok ? ok(undefined) : grant;
  }

  /** True when the token kept is valid as far as this client knows. */
  #valid(): boolean {
    return (
      this.#current !== undefined && (this.#current.expiresAt === undefined || this.#now() < this.#renewAt)
    );
  }

  /** A new token, unless the backoff after a refusal still holds: then that refusal again, with the wait left. */
  async #fresh(): Promise<ServiceResult<AccessToken>> {
    const streak = this.#refusals;
    const now = this.#now();
    // A clock set back before the last refusal does not stretch the wait.
    if (streak && now < streak.nextTryAt && now >= streak.lastAt)
      return err({ ...streak.failure, retryAfterMs: streak.nextTryAt - now });
    const grant = await this.#ask();
    return grant.ok ? ok(grant.value.token) : grant;
  }

  /** The token request under way, or a new one (with `retry` over the client's policy). */
  #ask(retry?: Partial<RetryPolicy>): Promise<ServiceResult<TokenGrant>> {
    this.#pending ??= this.#request(retry).finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** Records a refused token request and says what it means (see the class comment). */
  #refused(answer: ServiceFailure): Err<ServiceFailure> {
    const answeredAt = this.#now();
    const count = (this.#refusals?.count ?? 0) + 1;
    const firstAt = this.#refusals?.firstAt ?? answeredAt;
    const baseMs = Math.min(
      TOKEN_REFUSAL_BACKOFF_MS.longest,
      TOKEN_REFUSAL_BACKOFF_MS.first * 2 ** (count - 1),
    );
    const backoffMs = Math.round(baseMs * (1 + this.#random() / 2));
    // A 401 without an OAuth body: its status is all the service said.
    const serviceCode = answer.code === 'service_error' ? `HTTP ${answer.httpStatus}` : answer.code;
    const refused: ServiceFailure = {
      ...answer,
      answerId: nextAnswerId(),
      code: TOKEN_REFUSED,
      serviceCode,
      message: userMessage(TOKEN_REFUSED, answer.serviceMessage, undefined, serviceCode),
      retryable: true,
      stage: 'token',
    };
    const lasted = count >= TOKEN_REFUSALS_TO_REJECT && answeredAt - firstAt >= TOKEN_REFUSAL_WINDOW_MS;
    const rejected = lasted || !this.#grants.has(this.#credentials);
    const meaning = rejected ? asRejected(refused) : refused;
    this.#refusals = {
      count,
      firstAt,
      lastAt: answeredAt,
      nextTryAt: answeredAt + backoffMs,
      failure: meaning,
    };
    return err(rejected ? meaning : { ...meaning, retryAfterMs: backoffMs });
  }

  async #request(retry?: Partial<RetryPolicy>): Promise<ServiceResult<TokenGrant>> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.#credentials.clientId,
      client_secret: this.#credentials.clientSecret.reveal(),
    });
    const requestedAt = this.#now();
    const answer = await this.#runner.run({
      operation: 'obtainToken',
      method: 'POST',
      path: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      schema: tokenResponseSchema,
      errorShape: 'oauth',
      repeatable: true,
      timeoutMs: TOKEN_TIMEOUT_MS,
      retry,
    });
    if (!answer.ok) {
      // Any other failure (invalid_request, unsupported_grant_type, an outage…) is shown with its
      // own code and message, and neither lengthens nor ends a streak of refusals.
      return isRefusal(answer.error) ? this.#refused(answer.error) : err({ ...answer.error, stage: 'token' });
    }
    const grant = answer.value.body;
    const lifetimeMs = grant.expires_in === undefined ? undefined : grant.expires_in * 1000;
    const token: AccessToken = {
      value: new Secret(grant.access_token),
      // Counted from when the request was sent, so a slow answer errs on the early side.
      expiresAt: lifetimeMs === undefined ? undefined : requestedAt + lifetimeMs,
    };
    this.#current = token;
    this.#currentAskedAt = requestedAt;
    this.#refusals = undefined;
    this.#grants.add(this.#credentials);
    this.#renewAt =
      token.expiresAt === undefined
        ? Number.POSITIVE_INFINITY
        : token.expiresAt - Math.min(MAX_RENEWAL_MARGIN_MS, (lifetimeMs ?? 0) * 0.1);
    return ok({
      token,
      scopes: grant.scope?.split(/\s+/).filter(Boolean),
      expiresInSeconds: grant.expires_in,
    });
  }
}
