/**
 * What the service's key retention (how long it keeps an Idempotency-Key) proves about a
 * creation key's earlier attempts, and the check to ask when a request's id cannot be learnt.
 */
import type { CreationKey } from './batch-state';

/**
 * True when a new request answered at `now` comes within the service's key retention of the
 * first attempt under `create`'s key: had an earlier attempt created a request, the service
 * would still know the key and replay it. Judged on this computer's clock, and also on the
 * service's own (`serviceNow` against the `Date` of the upload answer before the first attempt)
 * when both are known: this computer's clock may have been wrong at one end, and a clock that
 * went back proves nothing.
 */
export function withinKeyRetention(
  create: CreationKey,
  now: number,
  retentionMs: number,
  serviceNow?: number,
): boolean {
  const within = (elapsed: number) => elapsed >= 0 && elapsed < retentionMs;
  const firstAt = Date.parse(create.firstAttemptAt);
  if (Number.isNaN(firstAt) || !within(now - firstAt)) return false;
  if (create.serviceFirstAt === undefined || serviceNow === undefined) return true;
  return within(serviceNow - create.serviceFirstAt);
}

/**
 * The check for a key answered without an id whose id cannot be learnt: a request exists under
 * it, and when that answer came beyond the key retention after an attempt of unknown outcome,
 * another may exist too (the person is told two may exist, not only to find one).
 */
export function withoutIdCheck(create: CreationKey): 'created_without_id' | 'new_request_after_unknown' {
  return create.twoMayExist === true ? 'new_request_after_unknown' : 'created_without_id';
}
