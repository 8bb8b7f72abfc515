/**
 * "Test connection" (README "Using the app", Connections): obtain a token with a profile's credentials and check that
 * it carries the scopes the desk needs, with a message a user can act on when it does not.
 */
import { err, ok, type Result } from '../../shared/base/result';
import type { ServiceErrorCode } from '../../shared/service/error-codes';
import type { RetryPolicy } from '../client/backoff';
import { ServiceClient } from '../client/service-client';
import type { Connection } from './connection';
import { serviceFailureWords, type ServiceFailure } from '../domain/service-failure';
import { silentLogger, type Logger } from '../base/log';
import type { Clock } from '../time/clock';
import { words } from '../base/words';

/** The scopes the desk uses (spec §5): upload and create, read for tracking, ceremony for the rest. */
export const REQUIRED_SCOPES = ['signing.create', 'signing.read', 'ceremony.create'] as const;

/** A token the connection obtained, as far as the desk needs it. */
export interface ConnectionGrant {
  /** The scopes the token carries; empty when the service did not say (see `scopesReported`). */
  readonly scopes: string[];
  /** False when the token answer had no `scope` field, so the scopes could not be checked. */
  readonly scopesReported: boolean;
  /** The token's lifetime, when the service gave one. */
  readonly expiresInSeconds: number | undefined;
}

/** Why the connection does not serve the desk. */
export interface ConnectionRefusal {
  /** The token call's failure (e.g. `credentials_rejected`, `network_unreachable`) or `missing_scopes`. */
  readonly code: ServiceErrorCode | 'missing_scopes';
  /** What a user reads; never contains the secret. */
  readonly message: string;
  /** Set with `missing_scopes`: the required scopes the token lacks. */
  readonly missingScopes?: string[];
  /** Set when the service was not reached: the system's error code (see `unreachableCause`). */
  readonly networkCode?: string;
}

export type ConnectionTestResult = Result<ConnectionGrant, ConnectionRefusal>;

export interface ConnectionTestOptions {
  readonly logger?: Logger;
  /** Overrides the short retry policy (tests make it quicker still). */
  readonly retry?: Partial<RetryPolicy>;
  /** The clock of the test's waits and deadlines (default: the system's; tests pass a virtual one). */
  readonly clock?: Clock;
}

/** A person is waiting for the answer: one retry of a transient failure, then the verdict. */
export const CONNECTION_TEST_RETRY: Partial<RetryPolicy> = {
  maxAttempts: 2,
  baseDelayMs: 300,
  maxDelayMs: 1_000,
  maxRetryAfterMs: 5_000,
};

/**
 * What a user reads when the test failed, in the language of the call (`words()`: the app's
 * handler speaks the person's; the command line's is English).
 */
function messageFor(failure: ServiceFailure, baseUrl: string): string {
  const t = words();
  switch (failure.code) {
    case 'network_unreachable':
      return t('connections.testUnreachable', { baseUrl });
    case 'timeout':
      return t('connections.testTimeout', { baseUrl });
    case 'invalid_response':
      return t('connections.testNotAService', { baseUrl });
    default:
      return serviceFailureWords(failure, t);
  }
}

/** TLS failures: the address answered, but not as a server this computer can trust. */
const TLS_CODES =
  /^(CERT_|ERR_TLS_|ERR_SSL_|EPROTO$|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$)/;

/**
 * Why the service could not be reached, in plain words, from the system's error code of a
 * failed connection (`networkCode`): what a person checks next depends on it.
 */
export function unreachableCause(code: string | undefined, timedOut = false): string {
  if (timedOut || code === 'TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT')
    return 'nothing answered in time';
  switch (code) {
    case 'ENOTFOUND':
      return 'there is no such host (its name is not found)';
    case 'EAI_AGAIN':
      return 'its name could not be looked up (no answer from the name service)';
    case 'ECONNREFUSED':
      return 'nothing answers at that address (connection refused)';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ENETDOWN':
      return 'this computer has no network route to it';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed before it answered';
  }
  if (code !== undefined && TLS_CODES.test(code))
    return `its secure connection (TLS) failed: the certificate is not trusted or does not match the name (${code})`;
  return code === undefined ? 'the connection failed' : `the connection failed (${code})`;
}

/**
 * Obtains a fresh token with `connection` and reports its scopes and lifetime, or a failure
 * with a user message: rejected credentials, an unreachable service, or a token that lacks
 * some of `REQUIRED_SCOPES` (named in the message). Retries a transient failure once; never
 * throws; the client it opens is closed before it returns.
 */
export async function testConnection(
  connection: Connection,
  options: ConnectionTestOptions = {},
): Promise<ConnectionTestResult> {
  const client = new ServiceClient({
    baseUrl: connection.baseUrl,
    clientId: connection.clientId,
    clientSecret: connection.clientSecret,
    logger: options.logger ?? silentLogger,
    retry: { ...CONNECTION_TEST_RETRY, ...options.retry },
    ...(options.clock ? { clock: options.clock } : {}),
  });
  try {
    const grant = await client.testConnection();
    if (!grant.ok) {
      return err({
        code: grant.error.code,
        message: messageFor(grant.error, connection.baseUrl),
        ...(grant.error.networkCode === undefined ? {} : { networkCode: grant.error.networkCode }),
      });
    }
    const { scopes, expiresInSeconds } = grant.value;
    // The spec does not show a `scope` field in the token answer: without it nothing can be
    // checked here, and a missing scope shows up as insufficient_scope on the first call.
    if (scopes === undefined) return ok({ scopes: [], scopesReported: false, expiresInSeconds });
    const missing = REQUIRED_SCOPES.filter((scope) => !scopes.includes(scope));
    if (missing.length > 0) {
      return err({
        code: 'missing_scopes',
        message: words()('connections.testMissingScopes', {
          count: missing.length,
          missing: missing.join(', '),
          required: REQUIRED_SCOPES.join(', '),
        }),
        missingScopes: missing,
      });
    }
    return ok({ scopes: [...scopes], scopesReported: true, expiresInSeconds });
  } finally {
    await client.close();
  }
}
