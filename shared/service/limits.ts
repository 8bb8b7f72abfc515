/** Limits the service enforces (spec §8), checked locally before anything is sent. */
export const MAX_PDF_BYTES = 50 * 1024 * 1024;
export const MAX_FILENAME_LENGTH = 180;
export const MAX_ROLE_LENGTH = 100;
export const MAX_NAME_LENGTH = 255;
export const MIN_SIGNING_ORDER = 1;
export const UPLOAD_ID_PREFIX = 'upl_';
/**
 * A PDF starts with its header, `%PDF-` and one of the versions that exist: 1.0 to 1.7 (ISO
 * 32000-1 §7.5.2) or 2.0 (ISO 32000-2). The service refuses a body that does not start with it
 * (spec §7 `invalid_pdf`), so `%PDF-1.9`, `%PDF-2.1` or bytes before the header are refused here
 * too. The first 8 bytes decide. The simulator keeps the same rule on its own (it shares no code
 * with the app): simulator/routes/upload-route.ts.
 */
export const PDF_HEADER_PATTERN = /^%PDF-(?:1\.[0-7]|2\.0)/;
/**
 * Locale tags take the form language-REGION (spec §4.3), e.g. `fr-FR`; a BCP 47 region is two
 * letters or a three-digit UN M.49 area, e.g. `es-419`.
 */
export const LOCALE_PATTERN = /^[a-z]{2,3}-(?:[A-Z]{2}|\d{3})$/;
/** An e-mail address is at most 254 characters (RFC 5321 path limit). */
export const MAX_EMAIL_LENGTH = 254;
/** The filename the service stores when none is given (spec §4.2). */
export const DEFAULT_FILENAME = 'document.pdf';
