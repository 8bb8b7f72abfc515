/** How transient failures are retried: bounded attempts, exponential backoff with full jitter. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A Retry-After longer than this is not waited for inside one call; the failure is returned. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
};

/**
 * Delay before retry number `retry` (1 for the first retry): uniformly random between 0 and
 * min(maxDelay, base × 2^(retry−1)) — "full jitter", so many clients never retry in step.
 */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number): number {
  return Math.floor(random() * backoffCeilingMs(retry, policy));
}

/** The longest delay `backoffDelayMs` can give before retry number `retry`: min(maxDelay, base × 2^(retry−1)). */
export function backoffCeilingMs(retry: number, policy: RetryPolicy): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
}

/**
 * Parses a Retry-After header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. Returns
 * milliseconds to wait, or undefined when absent or unreadable. An HTTP-date is measured from
 * the answer's own `Date` header when it has one (both come from the service's clock, so a
 * clock that differs from this computer's cannot stretch or cancel the wait), else from `now`.
 */
export function parseRetryAfterMs(
  header: string | undefined,
  now: number,
  dateHeader?: string | undefined,
): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) {
    const seconds = Number(value);
    return Number.isFinite(seconds) ? seconds * 1000 : undefined;
  }
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  const answeredAt = dateHeader === undefined ? Number.NaN : Date.parse(dateHeader);
  return Math.max(0, date - (Number.isNaN(answeredAt) ? now : answeredAt));
}
