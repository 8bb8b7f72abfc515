/**
 * The one rule for a signing service's address (README "Using the app", Connections): the client secret
 * goes only to an address that passes it. Every way an address enters the app or the command
 * line uses it (a saved connection, `--base-url`, a batch's recorded address), and the service
 * client checks it again before any request leaves (`CallRunner`), so no caller can forget.
 *
 * - https://, or http:// only to this computer: `localhost`, `[::1]` and the whole IPv4 loopback
 *   range 127.0.0.0/8 (RFC 1122 §3.2.1.3: such packets never leave the computer). Not
 *   `localhost.`, `*.localhost` or `[::ffff:127.0.0.1]`: their name resolution or routing is
 *   not guaranteed to stay on this computer everywhere.
 * - no user name or password, no query and no fragment, not even an empty `?` or `#`;
 * - no space, tab or line break inside (the URL parser would drop tabs and line breaks silently);
 * - at most `MAX_BASE_URL_LENGTH` characters.
 *
 * An accepted address is kept in its one spelling (`canonicalBaseUrl`): what the URL parser makes
 * of it (`HTTP://LOCALHOST:4010/` is `http://localhost:4010`, `http://0x7f000001` is
 * `http://127.0.0.1`, an international domain name is kept in its ASCII form, `xn--…`).
 * Messages are in the language of the call in progress (`words()`), English on the command line.
 */
import { z } from 'zod';
import { err, ok, type Result } from '../../shared/base/result';
import { canonicalBaseUrl } from '../domain/batch-connection';
import { words } from '../base/words';

/** The longest address accepted: far beyond any service's, and bounded work for a hostile one. */
export const MAX_BASE_URL_LENGTH = 2048;

/** Names of this computer other than the IPv4 loopback range, as the URL parser spells them. */
const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);
/** 127.0.0.0/8, as the URL parser spells an IPv4 host (four decimal numbers, whatever was typed). */
const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** True when `hostname` (as `URL` gives it) names this computer. */
function isLoopback(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || IPV4_LOOPBACK.test(hostname);
}

/** The address in its one spelling, or why it is refused (in words). */
export type BaseUrlCheck = Result<string, string>;

/** Checks `text` against the address rule: the address in its one spelling, or why it is refused. */
export function checkBaseUrl(text: string): BaseUrlCheck {
  const t = words();
  const refused = (message: string): BaseUrlCheck => err(message);
  const trimmed = text.trim();
  if (trimmed === '') return refused(t('connections.baseUrlRequired'));
  if (trimmed.length > MAX_BASE_URL_LENGTH)
    return refused(t('connections.baseUrlTooLong', { length: trimmed.length, max: MAX_BASE_URL_LENGTH }));
  if (/[\s\p{Cc}]/u.test(trimmed)) return refused(t('connections.baseUrlSpaces'));
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return refused(t('connections.baseUrlNotAddress'));
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return refused(t('connections.baseUrlScheme'));
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) return refused(t('connections.baseUrlHttp'));
  if (url.username || url.password) return refused(t('connections.baseUrlCredentials'));
  // `href` keeps an empty query or fragment (`https://host/?`) that `search` and `hash` hide.
  if (url.href.includes('?') || url.href.includes('#')) return refused(t('connections.baseUrlQuery'));
  return ok(canonicalBaseUrl(url.href));
}

/** The address rule as a schema: parses to the address in its one spelling. */
export const baseUrlSchema = z.string().transform((text, context) => {
  const checked = checkBaseUrl(text);
  if (checked.ok) return checked.value;
  context.addIssue({ code: 'custom', message: checked.error });
  return z.NEVER;
});
