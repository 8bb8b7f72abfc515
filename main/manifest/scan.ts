/**
 * The text scanned once before it is parsed, so that the parser never builds what a cap refuses:
 * the blank rows at its end are dropped unread, and reading stops at the first record too long or
 * too wide (a lost quote, a line of delimiters) or past the row cap. The same pass notes the line
 * where each record starts, so that every problem can name its spreadsheet row.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  CHARS_PER_SCAN_SLICE,
  MAX_BLANK_ROWS,
  MAX_LINE_CHARS,
  MAX_LINE_VALUES,
  MAX_MANIFEST_ROWS,
} from './caps';
import { problemMessage } from './messages';
import type { Delimiter } from './records';

const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * The characters the parser's `ltrim` skips before a value (every kind of space, NBSP and the
 * BOM among them): a quote after them still opens a quoted value, so the pre-scan skips them too.
 */
function isTrimmable(code: number): boolean {
  if (code === 0x20 || code === 0x09 || (code >= 0x0b && code <= 0x0d)) return true;
  return code >= 0x80 && /\s/.test(String.fromCharCode(code));
}

/**
 * Where the last line that holds more than delimiters and spaces ends: the blank rows after it
 * (Excel exports its whole "used range", up to a million rows of `,,,,,`) are dropped unread.
 */
export async function endOfLastFilledLine(text: string, delimiter: number): Promise<number> {
  let end = text.length;
  for (let index = text.length - 1; index >= 0; index -= 1) {
    const code = text.charCodeAt(index);
    if (code === NEWLINE) {
      end = index + 1;
      if (index % CHARS_PER_SCAN_SLICE === 0) await nextTurn();
      continue;
    }
    if (code !== delimiter && !isTrimmable(code)) return end;
  }
  return 0;
}

/** Where the text stops being read: the start of the first record over a cap, and why. */
export interface Oversized {
  readonly index: number;
  readonly line: number;
  readonly message: string;
  /** The problem is the file's, not one line's: nothing else is reported. */
  readonly wholeFile?: boolean;
}

/** What one pass over the text found: where its records start, and the first one over a cap. */
export interface RecordScan {
  /** The line (1-based) where each record starts, blank records included, in file order. */
  readonly starts: readonly number[];
  /** Where reading stops, when a record is over a cap. */
  readonly oversized?: Oversized;
}

/**
 * Where each record starts, and the first record longer than {@link MAX_LINE_CHARS} characters
 * or with more than {@link MAX_LINE_VALUES} values, found in one pass before parsing, so that a
 * lost quote or a line of a million delimiters is never built into a record in memory. Follows
 * the CSV quoting the parser uses: a quote opens a value only at its start (after spaces), `""`
 * inside quotes is a quote, and a line break inside quotes belongs to the value.
 */
export async function scanRecords(text: string, delimiter: Delimiter): Promise<RecordScan> {
  const separator = delimiter.charCodeAt(0);
  const starts = [1];
  let recordStart = 0;
  let recordLine = 1;
  let line = 1;
  let values = 1;
  let quoted = false;
  let atValueStart = true;
  // Rows are counted here too, so that a file of too many rows is refused before it is parsed.
  let filled = false;
  let filledRecords = 0;
  let blankRecords = 0;
  for (let index = 0; index < text.length; index += 1) {
    if (index % CHARS_PER_SCAN_SLICE === 0 && index > 0) await nextTurn();
    const code = text.charCodeAt(index);
    if (code === NEWLINE) line += 1;
    if (quoted) {
      if (code === QUOTE) {
        if (text.charCodeAt(index + 1) === QUOTE) index += 1;
        else quoted = false;
      }
    } else if (code === separator) {
      values += 1;
      atValueStart = true;
    } else if (code === NEWLINE) {
      if (filled) filledRecords += 1;
      else blankRecords += 1;
      // The header and the rows, or the blank rows between them: one more than allowed is enough.
      if (filledRecords > MAX_MANIFEST_ROWS + 1 || blankRecords > MAX_BLANK_ROWS)
        return {
          starts,
          oversized: { index, line, message: problemMessage('tooManyRows'), wholeFile: true },
        };
      recordStart = index + 1;
      recordLine = line;
      starts.push(line);
      values = 1;
      atValueStart = true;
      filled = false;
      continue;
    } else if (code === QUOTE && atValueStart) {
      quoted = true;
      atValueStart = false;
      filled = true;
    } else if (!isTrimmable(code)) {
      atValueStart = false;
      filled = true;
    }
    if (values > MAX_LINE_VALUES)
      return {
        starts,
        oversized: { index: recordStart, line: recordLine, message: problemMessage('lineTooWide') },
      };
    if (index - recordStart >= MAX_LINE_CHARS)
      return {
        starts,
        oversized: { index: recordStart, line: recordLine, message: problemMessage('lineTooLong') },
      };
  }
  return { starts };
}
