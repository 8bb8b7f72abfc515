/**
 * How long a service keeps Idempotency-Keys, as a connection states it (README "Sending exactly once": an explicit
 * assumption per connection, an hour unless its operator says otherwise): the bounds every entry
 * point accepts, and how the hours a person typed are read.
 */
import { err, ok, type Result } from '../base/result';

/** The shortest retention a connection may state: a quarter of an hour. */
export const KEY_RETENTION_HOURS_MIN = 0.25;

/** The longest retention a connection may state: a year (services keep keys hours to days). */
export const KEY_RETENTION_HOURS_MAX = 8_760;

/** What a typed retention means: hours, none (the app's default), or not a number of hours in bounds. */
export type TypedKeyRetention = Result<number | undefined, 'not_hours'>;

/**
 * Reads the hours typed in a connection's form: empty is the default (no hours); otherwise a
 * plain decimal number, with a point or a comma (`24`, `1.5`, `1,5`), within the bounds.
 * Anything else (`24h`, `-1`, `1e3`, `abc`) is refused, never guessed.
 */
export function readKeyRetentionHours(typed: string): TypedKeyRetention {
  const text = typed.trim();
  if (text === '') return ok(undefined);
  if (!/^\d+([.,]\d+)?$/.test(text)) return err('not_hours');
  const hours = Number(text.replace(',', '.'));
  return hours >= KEY_RETENTION_HOURS_MIN && hours <= KEY_RETENTION_HOURS_MAX ? ok(hours) : err('not_hours');
}
