/**
 * A report's file name, from a batch name: no folders, no characters Windows refuses, a .csv
 * extension. The name comes from the person (the batch's name), so it never chooses the folder:
 * Electron proposes it in a save dialog, the browser host saves under it in the Downloads folder.
 */

/**
 * The most UTF-8 bytes before ".csv". File systems allow 255 bytes (ext4) or 255 UTF-16 units
 * (NTFS, APFS); 200 leaves room for the extension and the browser host's " (1000)".
 */
export const MAX_REPORT_STEM_BYTES = 200;

/** The name used when nothing of the batch name is left. */
const FALLBACK_STEM = 'report';

/**
 * Invisible characters that change how the rest reads: bidi controls (U+202E makes
 * `a‮gnp.csv.csv` display as `avsc.csv.png`), zero-width characters, the byte order mark, soft
 * hyphens — every "format" character (Cf) — and unpaired surrogates. They are dropped.
 */
const INVISIBLE = /[\p{Cf}\p{Cs}]/gu;

/** What Windows refuses in a name, and line breaks of any kind: each becomes "_". */
const REFUSED = /[\\/:*?"<>|\p{Cc}\p{Zl}\p{Zp}]/gu;

/** Dots and spaces at either end (Windows drops trailing ones; leading dots hide a file). */
const EDGES = /^[.\s]+|[.\s]+$/gu;

/**
 * Device names Windows reserves whatever the case and extension ("con.csv" opens the console).
 * The superscript digits count too; "CONIN$" and "CONOUT$" are reserved since Windows 8.
 */
const RESERVED = /^(?:con|prn|aux|nul|com[1-9¹²³]|lpt[1-9¹²³]|conin\$|conout\$)\s*(?:\.|$)/iu;

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * The longest start of `text` within `maxBytes` UTF-8 bytes, cut between user-perceived
 * characters where one fits (an accent stays with its letter, a flag stays whole), else between
 * code points: never inside a surrogate pair.
 */
function cutToBytes(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  let kept = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)) {
    const size = utf8Bytes(segment);
    if (used + size <= maxBytes) {
      kept += segment;
      used += size;
      continue;
    }
    // A single cluster larger than what is left (a letter under hundreds of combining marks).
    for (const codePoint of segment) {
      const pointSize = utf8Bytes(codePoint);
      if (used + pointSize > maxBytes) break;
      kept += codePoint;
      used += pointSize;
    }
    break;
  }
  return kept;
}

/**
 * The file name for a report on the batch `defaultName`: NFC, nothing invisible, nothing Windows
 * refuses or reserves, at most MAX_REPORT_STEM_BYTES before ".csv", never empty.
 */
export function safeReportName(defaultName: string): string {
  const cleaned = defaultName
    .normalize('NFC')
    .replace(INVISIBLE, '')
    .replace(REFUSED, '_')
    .replace(EDGES, '');
  const stem = cleaned.replace(/\.csv$/iu, '').replace(EDGES, '');
  const named = cutToBytes(RESERVED.test(stem) ? `_${stem}` : stem, MAX_REPORT_STEM_BYTES).replace(EDGES, '');
  return `${named === '' ? FALLBACK_STEM : named}.csv`;
}
