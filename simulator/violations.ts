/**
 * Protocol breaches a careful operator of the service would flag. Each is recorded as one
 * line that begins with its kind tag, e.g. `read-spacing: GET /api/v1/signing-requests/sr_1 by
 * demo-desk 1200 ms after the previous read of it (at least 5000 ms apart)`, so a test can
 * filter by kind with `violationsOfKind` or `simulator.state.violationRecords()`.
 */

/** Every kind of violation the simulator records; the tag that starts each violation line. */
export const violationKinds = [
  /** A call without `Accept` (spec §4: send `Accept: application/json` on all calls). */
  'accept',
  /** A bearer token sent to `/oauth/token`. */
  'token-endpoint',
  /** A raw non-ASCII `X-Filename` header (it must be percent-encoded). */
  'filename',
  /** An expired widget URL loaded (the client must use `expires_in_seconds`). */
  'widget-link',
  /** A creation without `Idempotency-Key`, or a key reused with a different body. */
  'idempotency-key',
  /** A call of an operation that arrives before the end of a Retry-After given to the same client for it. */
  'retry-after',
  /** Two reads of the same signing request by the same client less than 5,000 ms apart. */
  'read-spacing',
  /** A path or method the spec does not define. */
  'unknown-endpoint',
  /** Client credentials or tokens anywhere but the token form. */
  'credentials',
  /** A body on a call the spec says takes none (read, prepare, widget session). */
  'body-not-allowed',
] as const;

export type ViolationKind = (typeof violationKinds)[number];

/** One recorded violation; `text` is the line `violations()` returns (it starts with `kind: `). */
export interface ViolationRecord {
  kind: ViolationKind;
  text: string;
  /** When it was noticed, by the simulator clock (ISO 8601 UTC). */
  at: string;
}

/** The violation line for a kind and a description: `kind: description`. */
export function violationLine(kind: ViolationKind, description: string): string {
  return `${kind}: ${description}`;
}

/** The kind tag a violation line starts with, or undefined for a line of no known kind. */
export function violationKindOf(violation: string): ViolationKind | undefined {
  const tag = violation.slice(0, Math.max(0, violation.indexOf(':')));
  return (violationKinds as readonly string[]).includes(tag) ? (tag as ViolationKind) : undefined;
}

/** The violation lines of one kind, in the order they were recorded. */
export function violationsOfKind(violations: readonly string[], kind: ViolationKind): string[] {
  return violations.filter((violation) => violationKindOf(violation) === kind);
}
