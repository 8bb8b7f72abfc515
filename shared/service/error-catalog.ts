/**
 * One catalog of user-facing messages for every error the service documents (spec §7) and
 * every failure the client itself can report: each code's words (what happened, then what the
 * user can do) are in the `errors` area of the message catalogs, in every language. Unknown
 * codes are shown with their code and the service's message, never hidden.
 */
import type { MessageId } from '../i18n/catalog';
import { englishWords, type Translator } from '../i18n/translator';

/** Each code's message in the catalogs (shared/i18n/catalog/<language>/errors.json). */
export const ERROR_CATALOG = {
  invalid_content_type: 'errors.invalid_content_type',
  missing_pdf: 'errors.missing_pdf',
  pdf_too_large: 'errors.pdf_too_large',
  invalid_pdf: 'errors.invalid_pdf',
  upstream_unavailable: 'errors.upstream_unavailable',
  signing_request_not_found: 'errors.signing_request_not_found',
  signing_request_not_ready: 'errors.signing_request_not_ready',
  participant_forbidden: 'errors.participant_forbidden',
  participant_conflict: 'errors.participant_conflict',
  invalid_participant_request: 'errors.invalid_participant_request',
  prepare_forbidden: 'errors.prepare_forbidden',
  prepare_conflict: 'errors.prepare_conflict',
  invalid_prepare_request: 'errors.invalid_prepare_request',
  widget_session_forbidden: 'errors.widget_session_forbidden',
  widget_session_conflict: 'errors.widget_session_conflict',
  invalid_widget_session_request: 'errors.invalid_widget_session_request',
  network_unreachable: 'errors.network_unreachable',
  timeout: 'errors.timeout',
  rate_limited: 'errors.rate_limited',
  credentials_rejected: 'errors.credentials_rejected',
  // A refused token request waited out (README "Answers the spec does not pin down"): the service's OAuth code is `serviceCode`.
  token_refused: 'errors.token_refused',
  insufficient_scope: 'errors.insufficient_scope',
  idempotency_key_reused: 'errors.idempotency_key_reused',
  upload_expired: 'errors.upload_expired',
  upload_not_found: 'errors.upload_not_found',
  sha256_mismatch: 'errors.sha256_mismatch',
  local_file_changed: 'errors.local_file_changed',
  local_copy_missing: 'errors.local_copy_missing',
  // The address rule (main/client/base-url.ts), said with the connections' words.
  address_refused: 'connections.addressRefused',
  gateway_not_found: 'errors.gateway_not_found',
  gateway_error: 'errors.gateway_error',
  invalid_response: 'errors.invalid_response',
  service_error: 'errors.service_error',
} as const satisfies Record<string, MessageId>;

export type CatalogCode = keyof typeof ERROR_CATALOG;

/** True when the catalog has a message for this code. */
export function isCatalogCode(code: string): code is CatalogCode {
  return Object.hasOwn(ERROR_CATALOG, code);
}

/**
 * The message a user sees for an error, in `t`'s language (English unless given): the
 * catalog's words for a known code (with the service's own code where they name it,
 * `serviceCode`); for an unknown code, the code itself with the service's message so nothing
 * is hidden.
 */
export function userMessage(
  code: string,
  serviceMessage?: string,
  t: Translator['t'] = englishWords(),
  serviceCode?: string,
): string {
  if (isCatalogCode(code)) return t(ERROR_CATALOG[code], { serviceCode: serviceCode ?? '?' });
  const detail = serviceMessage?.trim();
  return detail ? t('errors.unknownCodeWithDetail', { code, detail }) : t('errors.unknownCode', { code });
}
