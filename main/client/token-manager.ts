import { userMessage } from '../../shared/service/error-catalog';
import { tokenResponseSchema } from '../../shared/service/wire';
import { Secret } from '../secret';
import type { AccessToken, CallRunner, TokenSource } from './call-runner';
import type { Result } from './service-failure';
import { success } from './service-failure';

export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: Secret;
}

export interface TokenGrant {
  readonly token: AccessToken;
  readonly scopes: readonly string[] | undefined;
  readonly expiresInSeconds: number | undefined;
}

const TOKEN_TIMEOUT_MS = 20_000;
/** OAuth error codes that mean the client id or secret is not accepted. */
const CREDENTIAL_ERRORS = new Set(['invalid_client', 'unauthorized_client', 'invalid_grant']);
/** Renew this early before expiry, but never more than 10% of the lifetime. */
const MAX_RENEWAL_MARGIN_MS = 60_000;
/** A token asked for this recently is fresh enough to answer a renewal after a 401. */
export const RENEWAL_SHARED_MS = 1_000;

/**
 * Obtains OAuth client-credentials tokens (spec §4.1) and keeps the current one in memory.
 * Renews before expiry when the service gave `expires_in`, otherwise after a 401. Concurrent
 * callers share a single token request.
 */
export class TokenManager implements TokenSource {
  readonly #runner: CallRunner;
  readonly #credentials: ClientCredentials;
  readonly #now: () => number;
  #current: AccessToken | undefined;
  /** When the current token was asked for (local clock). */
  #currentAskedAt = 0;
  #renewAt = 0;
  #pending: Promise<Result<TokenGrant>> | undefined;

  constructor(runner: CallRunner, credentials: ClientCredentials, now: () => number) {
    this.#runner = runner;
    this.#credentials = credentials;
    this.#now = now;
  }

  /** A token that is valid as far as this client knows, obtaining one if needed. */
  async current(): Promise<Result<AccessToken>> {
    if (this.#current && (this.#current.expiresAt === undefined || this.#now() < this.#renewAt)) {
      return success(this.#current);
    }
    return this.renew();
  }

  /**
   * A token asked for now: after a 401, the one kept may be too old, whoever renewed it. One
   * asked for within `RENEWAL_SHARED_MS` counts as asked for now, so that calls refused together
   * share one renewal instead of each asking (a service may also cancel a token when it issues
   * the next).
   */
  async renew(): Promise<Result<AccessToken>> {
    if (this.#current && this.#now() - this.#currentAskedAt < RENEWAL_SHARED_MS)
      return success(this.#current);
    const grant = await this.obtain();
    return grant.ok ? success(grant.value.token) : grant;
  }

  /** Forgets `token` if it is still the current one (the service refused it). */
  invalidate(token: AccessToken): void {
    if (this.#current === token) this.#current = undefined;
  }

  /** Asks the service for a fresh token now; "Test connection" uses this. */
  obtain(): Promise<Result<TokenGrant>> {
    this.#pending ??= this.#request().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  async #request(): Promise<Result<TokenGrant>> {
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
    });
    if (!answer.ok) {
      // RFC 6749 §5.2: a bad client answers 401, or 400 with one of these codes; any other 400
      // (invalid_request, unsupported_grant_type…) is shown with its own code and message.
      const rejected =
        answer.error.httpStatus === 401 ||
        (answer.error.httpStatus === 400 && CREDENTIAL_ERRORS.has(answer.error.code));
      const error = { ...answer.error, stage: 'token' as const };
      return rejected
        ? {
            ok: false,
            error: { ...error, code: 'credentials_rejected', message: userMessage('credentials_rejected') },
          }
        : { ok: false, error };
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
    this.#renewAt =
      token.expiresAt === undefined
        ? Number.POSITIVE_INFINITY
        : token.expiresAt - Math.min(MAX_RENEWAL_MARGIN_MS, (lifetimeMs ?? 0) * 0.1);
    return success({
      token,
      scopes: grant.scope?.split(/\s+/).filter(Boolean),
      expiresInSeconds: grant.expires_in,
    });
  }
}
