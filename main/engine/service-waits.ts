/**
 * The waits between tries when the service is away: how long the whole run waits after a
 * failure that says "not now" (unreachable, busy, a refused token), and how that wait is told.
 * Each wait of a streak is longer than the last, up to the longest; the service's Retry-After is
 * always honoured, up to a day.
 */
import { backoffDelayMs } from '../client/backoff';
import { TOKEN_REFUSED, type ServiceFailure } from '../domain/service-failure';
import type { SendEngineEvent } from './send-events';

/** How long the queue waits when the service is unreachable or busy: first and longest wait. */
export interface WaitBounds {
  readonly first: number;
  readonly longest: number;
}

/** The waits when the engine's options do not say. */
export const DEFAULT_WAIT_BOUNDS: WaitBounds = { first: 2_000, longest: 60_000 };

/** The longest the queue waits before trying the service again, whatever it asked (a day). */
const MAX_WAIT_MS = 24 * 3_600_000;

/** No answer came at all: the service cannot be reached (rather than asked to wait). */
export function isOfflineFailure(failure: ServiceFailure): boolean {
  return failure.code === 'network_unreachable' || failure.code === 'timeout';
}

/** How long to wait after the `streak`th failure in a row that makes the run wait. */
export function waitDelayMs(
  streak: number,
  failure: ServiceFailure,
  bounds: WaitBounds,
  random: () => number,
): number {
  const { first, longest } = bounds;
  const backoff = backoffDelayMs(
    streak,
    { maxAttempts: 0, baseDelayMs: first, maxDelayMs: longest, maxRetryAfterMs: 0 },
    random,
  );
  // Unreachable: probe again within 15 s at most, so a short outage ends soon after it does. A
  // refused token: the token manager spaces the token requests (its Retry-After), nothing more.
  const cappedBackoff = isOfflineFailure(failure)
    ? Math.min(backoff, 15_000)
    : failure.code === TOKEN_REFUSED
      ? 0
      : backoff;
  return Math.min(MAX_WAIT_MS, Math.max(failure.retryAfterMs ?? 0, first / 2 + cappedBackoff));
}

/** The event that tells a run waits for its service until `resumesAt` (by the wall clock, for people). */
export function waitingEvent(batchId: string, failure: ServiceFailure, resumesAt: number): SendEngineEvent {
  const reason = isOfflineFailure(failure)
    ? 'The signing service cannot be reached. Sending resumes by itself.'
    : failure.message;
  return {
    type: 'engine-state',
    batchId,
    state: 'waiting',
    reason,
    cause: {
      code: failure.code,
      ...(failure.serviceMessage === undefined ? {} : { serviceMessage: failure.serviceMessage }),
      ...(failure.serviceCode === undefined ? {} : { serviceCode: failure.serviceCode }),
      ...(failure.answerId === undefined ? {} : { answerId: failure.answerId }),
    },
    ...(isOfflineFailure(failure) ? { unreachable: true } : {}),
    resumesAt,
  };
}
