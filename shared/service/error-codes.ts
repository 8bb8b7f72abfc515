/**
 * The codes a failed service call can carry, as a type: every code of the error catalog (the
 * service's documented codes, spec §7, and the client's own words for what it met), the token
 * endpoint's OAuth codes (RFC 6749 §5.2), and a code the service sent that neither lists. A
 * code the app writes itself must be one of the listed ones: a misspelt one does not compile.
 */
import type { CatalogCode } from './error-catalog';

/** The token endpoint's errors (RFC 6749 §5.2; the spec does not show them, §4.1). */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
] as const;

export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

declare const unlisted: unique symbol;
/**
 * A code the service sent that neither the catalog nor OAuth lists (the spec does not show the
 * errors of every call): kept as sent, shown with the service's own message. Only
 * `serviceErrorCode` makes one, so no code the app writes can be one by mistake.
 */
export type UnlistedCode = string & { readonly [unlisted]: true };

export type ServiceErrorCode = CatalogCode | OAuthErrorCode | UnlistedCode;

/**
 * A code as the service (or a stored record of it) says it: the same string, typed. Every string
 * is a code; this names the one place one enters the app unchecked.
 */
export function serviceErrorCode(said: string): ServiceErrorCode {
  return said as ServiceErrorCode;
}
