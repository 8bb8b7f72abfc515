/**
 * How long a service keeps Idempotency-Keys, as a connection states it (PRODUCT.md: an explicit
 * assumption per connection, an hour unless its operator says otherwise): the bounds every entry
 * point accepts, and how the hours a person typed are read.
 */

/** The shortest retention a connection may state: a quarter of an hour. */
export const KEY_RETENTION_HOURS_MIN = 0.25;

/** The longest retention a connection may state: a year (services keep keys hours to days). */
export const KEY_RETENTION_HOURS_MAX = 8_760;

/** What a typed retention means: hours, none (the app's default), or not a number of hours in bounds. */
export type TypedKeyRetention =
  { readonly ok: true; readonly hours: number | undefined } | { readonly ok: false };

/**
 * Reads the hours typed in a connection's form: empty is the default (no hours); otherwise a
 * plain decimal number, with a point or a comma (`24`, `1.5`, `1,5`), within the bounds.
 * Anything else (`24h`, `-1`, `1e3`, `abc`) is refused, never guessed.
 */
export function readKeyRetentionHours(typed: string): TypedKeyRetention {
  const text = typed.trim();
  if (text === '') return { ok: true, hours: undefined };
  if (!/^\d+([.,]\d+)?$/.test(text)) return { ok: false };
  const hours = Number(text.replace(',', '.'));
  return hours >= KEY_RETENTION_HOURS_MIN && hours <= KEY_RETENTION_HOURS_MAX
    ? { ok: true, hours }
    : { ok: false };
}
