/**
 * From the manifest's bytes to its text: a spreadsheet workbook or a file that is not UTF-8 is
 * refused (with the line of its first wrong byte), a leading BOM is dropped and every line ending
 * becomes `\n`.
 */
import { isUtf8 } from 'node:buffer';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { notPdfKind } from '../files/pdf-check';
import { CHARS_PER_SCAN_SLICE } from './caps';

export type Decoded =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'spreadsheet' }
  /** Excel's "Unicode Text": UTF-16 (with its byte order mark), columns separated by tabs. */
  | { readonly kind: 'unicodeText' }
  /**
   * Not UTF-8: `line` holds its first wrong byte, and `text` is a stand-in of the file (each byte
   * one character, line endings as `\n`), good enough to find that line's spreadsheet row.
   */
  | { readonly kind: 'notUtf8'; readonly line: number; readonly text: string };

/** The first line holding bytes that are not UTF-8; `\n` never occurs inside a multi-byte sequence. */
function firstNonUtf8Line(bytes: Buffer): number {
  let line = 1;
  let start = 0;
  while (start <= bytes.length) {
    const end = bytes.indexOf(0x0a, start);
    const stop = end === -1 ? bytes.length : end;
    if (!isUtf8(bytes.subarray(start, stop))) return line;
    if (end === -1) break;
    start = end + 1;
    line += 1;
  }
  return 1;
}

const CR = 0x0d;
const LF = 0x0a;
const BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * The bytes with one line ending, `\n`, and without a leading BOM: csv-parse counts CRLF inside
 * quoted values as two lines, and values should not depend on the system the file was saved on.
 * Done on the bytes in one pass into one buffer, so that a file of millions of line endings costs
 * no more than its size (a text-wide regular expression took seconds and hundreds of MiB).
 */
async function withLineFeeds(bytes: Buffer): Promise<Buffer> {
  const start = bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2] ? BOM.length : 0;
  if (bytes.indexOf(CR, start) === -1) return bytes.subarray(start);
  const out = Buffer.allocUnsafe(bytes.length - start);
  let length = 0;
  let from = start;
  let nextTurnAt = from + CHARS_PER_SCAN_SLICE;
  while (from < bytes.length) {
    // The text up to the next CR in one native copy, then every line ending that follows it.
    const cr = bytes.indexOf(CR, from);
    const end = cr === -1 ? bytes.length : cr;
    length += bytes.copy(out, length, from, end);
    from = end;
    while (from < bytes.length && (bytes[from] === CR || bytes[from] === LF)) {
      out[length++] = LF;
      from += bytes[from] === CR && bytes[from + 1] === LF ? 2 : 1;
    }
    if (from >= nextTurnAt) {
      nextTurnAt = from + CHARS_PER_SCAN_SLICE;
      await nextTurn();
    }
  }
  return out.subarray(0, length);
}

export async function decode(content: Buffer | string): Promise<Decoded> {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  if (notPdfKind(bytes.subarray(0, 8)) === 'office') return { kind: 'spreadsheet' };
  // UTF-16's byte order mark, little- or big-endian: never the start of a UTF-8 text.
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    return { kind: 'unicodeText' };
  const text = await withLineFeeds(bytes);
  if (!isUtf8(bytes)) {
    // Quotes, delimiters and line breaks are ASCII, the same bytes in any of Excel's encodings.
    return { kind: 'notUtf8', line: firstNonUtf8Line(text), text: text.toString('latin1') };
  }
  return { kind: 'text', text: text.toString('utf8') };
}
