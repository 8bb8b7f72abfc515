/**
 * The filename normalization the simulated service applies to `X-Filename` (spec §4.2):
 * directory components removed, converted to ASCII, unsupported characters replaced, at most
 * 180 characters, `.pdf` appended when the name does not end in it.
 */

const DEFAULT_FILENAME = 'document.pdf';
const FALLBACK_STEM = 'document';
const MAX_FILENAME_LENGTH = 180;

/** Letters that Unicode decomposition leaves non-ASCII, mapped to their usual transliteration. */
const TRANSLITERATIONS: ReadonlyMap<string, string> = new Map([
  ['ß', 'ss'],
  ['Æ', 'AE'],
  ['æ', 'ae'],
  ['Ø', 'O'],
  ['ø', 'o'],
  ['Œ', 'OE'],
  ['œ', 'oe'],
  ['Đ', 'D'],
  ['đ', 'd'],
  ['Ł', 'L'],
  ['ł', 'l'],
  ['Þ', 'TH'],
  ['þ', 'th'],
]);

const DIRECTORY_SEPARATOR = /[/\\]/;
const COMBINING_MARKS = /[\u0300-\u036f]/g;
const UNSUPPORTED_RUN = /[^A-Za-z0-9._-]+/g;
const LEADING_OR_TRAILING_PUNCTUATION = /^[._-]+|[._-]+$/g;
const TRAILING_PUNCTUATION = /[._-]+$/;
const PDF_EXTENSION = /\.pdf$/i;

function toAscii(name: string): string {
  const transliterated = Array.from(name, (char) => TRANSLITERATIONS.get(char) ?? char).join('');
  return transliterated.normalize('NFKD').replace(COMBINING_MARKS, '');
}

/**
 * Returns the filename the service stores for a raw `X-Filename` value (already
 * percent-decoded). Total: every input, including undefined, yields a non-empty ASCII name
 * of at most 180 characters ending in `.pdf` (any case).
 *
 * The `.pdf` extension is split off before leading and trailing punctuation is trimmed, so
 * that `.pdf` and `契約書.pdf` give `document.pdf` rather than `pdf.pdf` (see README.md).
 */
export function normalizeFilename(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return DEFAULT_FILENAME;
  const baseName = raw.split(DIRECTORY_SEPARATOR).pop() ?? '';
  const cleaned = toAscii(baseName).replace(UNSUPPORTED_RUN, '_');
  const hasPdfExtension = PDF_EXTENSION.test(cleaned);
  const extension = hasPdfExtension ? cleaned.slice(-4) : '.pdf';
  const stem = (hasPdfExtension ? cleaned.slice(0, -4) : cleaned).replace(
    LEADING_OR_TRAILING_PUNCTUATION,
    '',
  );
  const limitedStem = stem.slice(0, MAX_FILENAME_LENGTH - extension.length).replace(TRAILING_PUNCTUATION, '');
  return (limitedStem === '' ? FALLBACK_STEM : limitedStem) + extension;
}

/**
 * Reads the `X-Filename` header value: percent-encoded UTF-8 is decoded when the value
 * contains `%XX`; a value that does not decode is used as it is.
 */
export function decodeFilenameHeader(headerValue: string | undefined): string | undefined {
  if (headerValue === undefined || !/%[0-9A-Fa-f]{2}/.test(headerValue)) return headerValue;
  try {
    return decodeURIComponent(headerValue);
  } catch {
    return headerValue;
  }
}
