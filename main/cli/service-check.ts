/**
 * What the command line says about reaching the service: the check before a run sends
 * anything (the app's "Test connection", connection-test.ts), and the lines of an outage and of
 * rejected credentials, worded for the command line (the app's words point to its own buttons).
 */
import { err, ok, type Result } from '../../shared/base/result';
import type { RetryPolicy } from '../client/backoff';
import type { ServiceClient } from '../client/service-client';
import { CONNECTION_TEST_RETRY, unreachableCause } from '../credentials/connection-test';
import type { CliOutput } from './cli-output';

/** Where the user changes the connection: the saved profile, or the environment and --base-url. */
export interface ConnectionSource {
  readonly baseUrl: string;
  /** The saved profile's name, when the command uses one. */
  readonly profile?: string;
}

/** Rejected credentials, with what to check on the command line and how to go on. */
export function credentialsRejectedLine(source: ConnectionSource, nothingSent: boolean): string {
  const check = source.profile
    ? `Check the client id and client secret of the profile ${source.profile} (in the app)`
    : 'Check SIGNING_CLIENT_ID and SIGNING_CLIENT_SECRET';
  return `The service rejected the connection credentials. ${check}, then run the same command again.${nothingSent ? ' Nothing was sent.' : ''}`;
}

/** The service was never reached: the address, the cause in plain words, and the next step. */
export function unreachableLine(source: ConnectionSource, cause: string): string {
  const check = source.profile ? `the base URL of the profile ${source.profile}` : '--base-url';
  return `The signing service cannot be reached at ${source.baseUrl}: ${cause}. Check ${check} and the network, then run the same command again. Nothing was sent.`;
}

/** A run that reached the service meets an outage: it waits and goes on by itself. */
export function outageLine(baseUrl: string): string {
  return `The signing service cannot be reached at ${baseUrl}. Sending resumes by itself when it answers again (Ctrl+C pauses; run the same command again later).`;
}

/** The end of an outage. */
export function outageOverLine(baseUrl: string): string {
  return `The signing service at ${baseUrl} answers again. Sending continues.`;
}

/** How the command goes on after the check before sending. */
export type ServiceCheck = Result<void, 'unreachable' | 'credentials_rejected'>;

/**
 * The app's test of a connection, with more attempts: a busy service (503, 429) is no reason to
 * stop; a refused connection is still reported after two attempts (call-runner.ts).
 */
const CHECK_RETRY: Partial<RetryPolicy> = { ...CONNECTION_TEST_RETRY, maxAttempts: 4 };

/**
 * Obtains the run's token before anything is sent, with the run's own client, so that the run
 * asks for one token, not one for the check and one for its calls: a wrong address or rejected
 * credentials end the command at once with one clear line (printed here), instead of a queue
 * that waits for a service that was never there. Any other answer (busy, rate-limited…) is the
 * engine's to ride out.
 */
export async function checkService(
  client: Pick<ServiceClient, 'ensureToken'>,
  source: ConnectionSource,
  out: CliOutput,
): Promise<ServiceCheck> {
  const result = await client.ensureToken(CHECK_RETRY);
  if (result.ok) return ok();
  const { code, networkCode } = result.error;
  if (code === 'credentials_rejected') {
    out.error(credentialsRejectedLine(source, true));
    out.event({ type: 'summary', sent: false, code });
    return err('credentials_rejected');
  }
  if (code === 'network_unreachable' || code === 'timeout') {
    out.error(unreachableLine(source, unreachableCause(networkCode, code === 'timeout')));
    out.event({ type: 'summary', sent: false, code, baseUrl: source.baseUrl });
    return err('unreachable');
  }
  return ok();
}
