/**
 * Manifest import (PRODUCT.md "Manifest format (CSV)"): reads a CSV exported by Excel or written
 * by hand, one row per participant, and turns it into documents with their recipients and
 * options — or into a list of every problem, each with its line and column, all at once.
 */
import { isUtf8 } from 'node:buffer';
import { basename, dirname, posix, resolve, win32 } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse as parseStream } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import type { CsvError, InfoRecord } from 'csv-parse/sync';
import type { SigningOptions } from '../../shared/domain/batch';
import { signingOptionsSchema } from '../../shared/domain/batch';
import { normalizeFilename } from '../../shared/service/filename';
import { localeSchema, participantSchema } from '../../shared/service/wire';
import type { Participant } from '../../shared/service/wire';
import type { z } from 'zod';
import {
  checkPdfFile,
  notPdfKind,
  readProblem,
  type PdfCheckResult,
  type PdfProblem,
} from '../files/pdf-check';
import type { Translator } from '../../shared/i18n/translator';
import { speaking, words } from '../base/words';
import { unreadableReason, userFiles, type UserFiles } from '../files/user-files';

/**
 * One problem in a manifest. `row` is the line where the record starts, as a text editor or
 * Excel shows it (the header is line 1); 0 means the problem concerns the whole file.
 */
export interface ManifestIssue {
  readonly row: number;
  readonly column: string | undefined;
  readonly message: string;
}

export interface ManifestDocument {
  /** Absolute path, resolved relative to the manifest's folder. */
  readonly pdfPath: string;
  /** The `document` value as written in the manifest. */
  readonly documentColumn: string;
  readonly externalReference: string;
  readonly transactionType: string | undefined;
  /** From the per-document columns. */
  readonly options: SigningOptions;
  /** One per row, in file order. */
  readonly recipients: Participant[];
  /** Line numbers of its rows. */
  readonly rows: readonly number[];
  /** The name the service will store (spec §4.2). */
  readonly storedFilename: string;
  /** Set by `checkManifestFile` when the PDF passed the service's upload rules. */
  readonly pdf?: { sha256: string; sizeBytes: number };
  /** The manifest's folder: its PDFs must stay inside it once their symbolic links are resolved. */
  readonly folder: string;
}

export interface ManifestCheck {
  readonly documents: ManifestDocument[];
  /**
   * The problems, sorted by line: at most {@link MAX_LISTED_ISSUES}, then one more (line 0) saying
   * how many are not listed.
   */
  readonly issues: ManifestIssue[];
  /** Every problem found, listed or not. */
  readonly problemCount: number;
}

// Caps on what a manifest may hold: each far above what an office batch needs (10,000 documents
// of three people each), each with its own message, so that a wrong or hostile file is refused
// quickly and in bounded memory rather than read to the end.
/** A manifest is a CSV export: any other file is refused before it is read (its lines would be quoted back). */
const MANIFEST_FILE_NAME = /\.(csv|txt)$/i;

/** True when `path` names a file that may be a manifest (.csv, or .txt as some spreadsheets save CSV). */
export function isManifestFileName(path: string): boolean {
  return MANIFEST_FILE_NAME.test(path);
}

/** Participant rows, for 10,000 documents of up to five people. */
export const MAX_MANIFEST_ROWS = 50_000;
/** 50,000 rows of a few hundred characters; a bigger file is the wrong file, not read into memory. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
/** Documents (distinct file and reference): twice the 10,000-document goal of one batch. */
export const MAX_MANIFEST_DOCUMENTS = 20_000;
/** Blank rows between the filled ones (those after the last filled row are not even read). */
const MAX_BLANK_ROWS = MAX_MANIFEST_ROWS;
/** Columns in the header line: 15 are known, the rest is room for a spreadsheet's own columns. */
export const MAX_MANIFEST_COLUMNS = 100;
/** One value: a path or an e-mail address is far shorter; a longer value is a lost quote. */
export const MAX_FIELD_CHARS = 4_096;
/** One record, quotes included: beyond this the parser stops, since a lost quote swallowed the rest. */
export const MAX_LINE_CHARS = 65_536;
/** Values in one record: the header's width is capped far lower, this bounds a line of bare delimiters. */
export const MAX_LINE_VALUES = 1_000;
/** Problems listed one by one; the others are counted ("and 9,900 more problems"). */
export const MAX_LISTED_ISSUES = 100;
/** Problems kept in memory while checking, from which the first ones are listed. */
const MAX_KEPT_ISSUES = 2_000;
/** Rows checked between two turns of the event loop, so the desk stays responsive during a large check. */
const ROWS_PER_SLICE = 500;
/** Characters scanned for an oversized record between two turns of the event loop. */
const CHARS_PER_SCAN_SLICE = 1024 * 1024;
/** Characters handed to the CSV parser at a time, between two turns of the event loop. */
const CHARS_PER_SLICE = 256 * 1024;

const REQUIRED_COLUMNS = [
  'document',
  'external_reference',
  'participant_type',
  'role',
  'name',
  'email',
] as const;
const DOCUMENT_COLUMNS = [
  'transaction_type',
  'enforce_order',
  'owner_must_sign',
  'ceremony_mode',
  'meeting_provider',
  'evidence_level',
  'locale',
] as const;
const KNOWN_COLUMNS: readonly string[] = [
  'document',
  'external_reference',
  'transaction_type',
  'participant_type',
  'role',
  'name',
  'email',
  'signing_order',
  'is_internal',
  'enforce_order',
  'owner_must_sign',
  'ceremony_mode',
  'meeting_provider',
  'evidence_level',
  'locale',
];

type DocumentColumn = (typeof DOCUMENT_COLUMNS)[number];

const OPTION_KEYS: Readonly<Record<DocumentColumn, keyof SigningOptions>> = {
  transaction_type: 'transactionType',
  enforce_order: 'enforceOrder',
  owner_must_sign: 'ownerMustSign',
  ceremony_mode: 'ceremonyMode',
  meeting_provider: 'meetingProvider',
  evidence_level: 'evidenceLevel',
  locale: 'locale',
};

const BOOLEAN_COLUMNS: ReadonlySet<string> = new Set(['is_internal', 'enforce_order', 'owner_must_sign']);

/**
 * Excel writes a boolean cell in the workbook's language (VRAI/FAUX in French, WAHR/FALSCH in
 * German), so those are accepted next to the spellings people type by hand.
 */
const BOOLEAN_WORDS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['yes', true],
  ['1', true],
  ['vrai', true],
  ['wahr', true],
  ['false', false],
  ['no', false],
  ['0', false],
  ['faux', false],
  ['falsch', false],
]);

const VALUE_PREVIEW_LENGTH = 60;
const PDF_CHECK_CONCURRENCY = 4;

/** The language of the check in progress (the person's in the app, English on the command line). */
const say = words;

const MESSAGES = {
  get notUtf8() {
    return say()('manifest.notUtf8');
  },
  get empty() {
    return say()('manifest.empty');
  },
  get noHeader() {
    return say()('manifest.noHeader', { columns: REQUIRED_COLUMNS.join(', ') });
  },
  get noRows() {
    return say()('manifest.noRows');
  },
  get tooManyRows() {
    return say()('manifest.tooManyRows', { max: MAX_MANIFEST_ROWS });
  },
  get otherDelimiter() {
    return say()('manifest.otherDelimiter');
  },
  get spreadsheet() {
    return say()('manifest.spreadsheet');
  },
  get tooManyDocuments() {
    return say()('manifest.tooManyDocuments', { max: MAX_MANIFEST_DOCUMENTS });
  },
  get tooManyColumns() {
    return say()('manifest.tooManyColumns', { max: MAX_MANIFEST_COLUMNS });
  },
  fieldTooLong: (length: number) => say()('manifest.fieldTooLong', { max: MAX_FIELD_CHARS, length }),
  get lineTooLong() {
    return say()('manifest.lineTooLong', { max: MAX_LINE_CHARS });
  },
  get lineTooWide() {
    return say()('manifest.lineTooWide', { max: MAX_LINE_VALUES });
  },
  moreProblems: (count: number) => say()('manifest.moreProblems', { count }),
  get missingColumn() {
    return say()('manifest.missingColumn');
  },
  duplicateColumn: (first: number, second: number) =>
    say()('manifest.duplicateColumn', { first: String(first), second: String(second) }),
  unknownColumn: (suggestion: string | undefined) =>
    suggestion === undefined
      ? say()('manifest.unknownColumn', { columns: KNOWN_COLUMNS.join(', ') })
      : say()('manifest.unknownColumnSuggestion', { suggestion }),
  unnamedColumnValue: (position: number) =>
    say()('manifest.unnamedColumnValue', { position: String(position) }),
  tooManyFields: (count: number, expected: number, delimiter: string) =>
    say()('manifest.tooManyFields', { count, expected: String(expected), delimiter }),
  tooFewFields: (count: number, expected: number) =>
    say()('manifest.tooFewFields', { count, expected: String(expected) }),
  get quoteNotClosed() {
    return say()('manifest.quoteNotClosed');
  },
  get unreadableRecord() {
    return say()('manifest.unreadableRecord');
  },
  get unreadableFile() {
    return say()('manifest.unreadableFile');
  },
  get required() {
    return say()('manifest.required');
  },
  get participantType() {
    return say()('manifest.participantType');
  },
  get signingOrder() {
    return say()('manifest.signingOrder');
  },
  get boolean() {
    return say()('manifest.boolean');
  },
  get absolutePath() {
    return say()('manifest.absolutePath');
  },
  get escapingPath() {
    return say()('manifest.escapingPath');
  },
  disagreement: (firstLine: number, firstValue: string, value: string) =>
    say()('manifest.disagreement', {
      firstLine: String(firstLine),
      firstValue: quote(firstValue),
      value: quote(value),
    }),
  duplicateEmail: (email: string, line: number) =>
    say()('manifest.duplicateEmail', { email: quote(email), line: String(line) }),
  reusedReference: (reference: string, line: number, document: string) =>
    say()('manifest.reusedReference', {
      reference: quote(reference),
      line: String(line),
      document: quote(document),
    }),
  manifestUnreadable: (reason: string) => say()('manifest.unreadable', { reason }),
  get manifestTooLarge() {
    return say()('manifest.tooLarge');
  },
  /** The schema's rules (shared/service/wire.ts), in words for office staff. */
  atMost: (maximum: number) => say()('manifest.atMost', { maximum: String(maximum) }),
  get email() {
    return say()('manifest.email');
  },
  get locale() {
    return say()('manifest.locale');
  },
  get invalid() {
    return say()('manifest.invalid');
  },
};

/** A value as shown in a message: on one line, and shortened so that the message stays readable. */
function quote(value: string): string {
  return `"${shortened(value)}"`;
}

/** A value or a column name as shown: on one line, at most {@link VALUE_PREVIEW_LENGTH} characters. */
function shortened(value: string): string {
  const oneLine = value.replace(/\s*\n\s*/g, ' ');
  return oneLine.length > VALUE_PREVIEW_LENGTH ? `${oneLine.slice(0, VALUE_PREVIEW_LENGTH - 1)}…` : oneLine;
}

function withValue(message: string, value: string): string {
  return say()('manifest.withValue', { message, value: quote(value) });
}

/**
 * Renders an issue as the user sees it, e.g.
 * `line 4, column "email": must be a valid e-mail address (got "anne@")`.
 */
export function formatIssue(issue: ManifestIssue, t: Translator['t'] = say()): string {
  if (issue.row === 0) return issue.message;
  const values = { row: String(issue.row), message: issue.message };
  return issue.column === undefined
    ? t('manifest.issueAtLine', values)
    : t('manifest.issueAtColumn', { ...values, column: issue.column });
}

/** The problems found: kept up to a cap, in the order found (mostly line order), and counted beyond it. */
class IssueList {
  readonly kept: ManifestIssue[] = [];
  count = 0;

  push(...issues: readonly ManifestIssue[]): void {
    for (const issue of issues) {
      this.count += 1;
      if (this.kept.length < MAX_KEPT_ISSUES) this.kept.push(issue);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Reading the CSV

type SourceEntry =
  | {
      readonly kind: 'record';
      readonly line: number;
      /** How many values the record has. */
      readonly width: number;
      /**
       * Its values: all of them for the header; for a data row only those under a known or an
       * unnamed column, in header order (see {@link usedPositions}), so that a wide spreadsheet's
       * own columns take no memory.
       */
      readonly fields: readonly string[];
    }
  | { readonly kind: 'unreadable'; readonly line: number; readonly message: string };

type Delimiter = ',' | ';';

interface Decoded {
  readonly text: string;
  readonly issue?: ManifestIssue;
}

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

/**
 * Where the last line that holds more than delimiters and spaces ends: the blank rows after it
 * (Excel exports its whole "used range", up to a million rows of `,,,,,`) are dropped unread.
 */
async function endOfLastFilledLine(text: string, delimiter: number): Promise<number> {
  let end = text.length;
  for (let index = text.length - 1; index >= 0; index -= 1) {
    const code = text.charCodeAt(index);
    if (code === LF) {
      end = index + 1;
      if (index % CHARS_PER_SCAN_SLICE === 0) await nextTurn();
      continue;
    }
    if (code !== delimiter && !isTrimmable(code)) return end;
  }
  return 0;
}

async function decode(content: Buffer | string): Promise<Decoded> {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  if (notPdfKind(bytes.subarray(0, 8)) === 'office')
    return { text: '', issue: { row: 0, column: undefined, message: MESSAGES.spreadsheet } };
  if (!isUtf8(bytes)) {
    return {
      text: '',
      issue: { row: firstNonUtf8Line(bytes), column: undefined, message: MESSAGES.notUtf8 },
    };
  }
  return { text: (await withLineFeeds(bytes)).toString('utf8') };
}

function parseOptions(delimiter: Delimiter) {
  return {
    delimiter,
    relax_column_count: true,
    // Hand-edited files hold values like `Jean "JJ" Dupont`; a quote inside an unquoted value is kept.
    relax_quotes: true,
    // Hand-written files put a space after the delimiter (`a, "Dupré, Anne"`); the quotes must still count.
    // Only the left side: csv-parse's right trim turns `"x"y` into an error that loses the rest of the file.
    ltrim: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
  };
}

/**
 * Comma or semicolon, whichever splits the header line into more columns (quotes respected),
 * and how many columns that makes. Only the file's first {@link MAX_LINE_CHARS} characters are
 * read for it, so a header of a million columns costs no more than a normal one.
 */
function sniffHeader(
  text: string,
  named?: Delimiter,
): { readonly delimiter: Delimiter; readonly width: number; readonly tabs: boolean } {
  const start = text.slice(0, MAX_LINE_CHARS);
  const firstLine = start.replace(/^\n+/, '').split('\n', 1)[0] ?? '';
  const countFields = (delimiter: Delimiter): number => {
    try {
      const [first] = parse(start, { ...parseOptions(delimiter), to: 1 });
      return first?.length ?? 0;
    } catch {
      return 0;
    }
  };
  const semicolons = countFields(';');
  const commas = countFields(',');
  const found: { delimiter: Delimiter; width: number } =
    named === ';' || (named === undefined && semicolons > commas)
      ? { delimiter: ';', width: semicolons }
      : { delimiter: ',', width: commas };
  // One column by commas and semicolons, several by tabs: Excel's "Text (Tab delimited)".
  return { ...found, tabs: found.width <= 1 && firstLine.split('\t').length > 1 };
}

function countLineBreaks(fields: readonly string[]): number {
  return fields.reduce((sum, field) => sum + (field.match(/\n/g)?.length ?? 0), 0);
}

/** Where the text stops being read: the start of the first record over a cap, and why. */
interface Oversized {
  readonly index: number;
  readonly line: number;
  readonly message: string;
  /** The problem is the file's, not one line's: nothing else is reported. */
  readonly wholeFile?: boolean;
}

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
 * The first record longer than {@link MAX_LINE_CHARS} characters or with more than
 * {@link MAX_LINE_VALUES} values, found in one pass before parsing, so that a lost quote or a
 * line of a million delimiters is never built into a record in memory. Follows the CSV quoting
 * the parser uses: a quote opens a value only at its start (after spaces), `""` inside quotes is
 * a quote, and a line break inside quotes belongs to the value.
 */
async function findOversizedRecord(text: string, delimiter: Delimiter): Promise<Oversized | undefined> {
  const separator = delimiter.charCodeAt(0);
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
        return { index, line, message: MESSAGES.tooManyRows, wholeFile: true };
      recordStart = index + 1;
      recordLine = line;
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
      return { index: recordStart, line: recordLine, message: MESSAGES.lineTooWide };
    if (index - recordStart >= MAX_LINE_CHARS)
      return { index: recordStart, line: recordLine, message: MESSAGES.lineTooLong };
  }
  return undefined;
}

function unreadableMessage(error: CsvError): string {
  return error.code === 'CSV_QUOTE_NOT_CLOSED' ? MESSAGES.quoteNotClosed : MESSAGES.unreadableRecord;
}

function isBlankFields(fields: readonly string[]): boolean {
  return fields.every((field) => field.trim() === '');
}

interface Entries {
  /** The header and data records that are not blank, and the records that could not be read. */
  readonly entries: SourceEntry[];
  /** More than {@link MAX_MANIFEST_ROWS} data rows: reading stopped there. */
  readonly tooManyRows: boolean;
}

/**
 * Every record with the line where it starts, and the records csv-parse could not read in their
 * place. csv-parse reports the line where a record ends; a record spans one line more for each
 * line break inside its quoted values. The text is parsed in slices, with a turn of the event
 * loop between them, and reading stops past the row cap or at a record over the length cap.
 */
async function readEntries(text: string, delimiter: Delimiter): Promise<Entries | undefined> {
  const entries: SourceEntry[] = [];
  let lastEndLine = 0;
  let records = 0;
  let blankRecords = 0;
  /** The header's positions whose values are read, once the header is known. */
  let used: readonly number[] | undefined;
  let stop = false;
  // Where line `cursorLine` starts in the text; lines only move forward, so the scan is linear.
  let cursorLine = 1;
  let cursorStart = 0;
  /** The first line after `after` (1-based) that is not empty: where an unreadable record starts. */
  const nextNonEmptyLine = (after: number): number => {
    while (cursorLine <= after) {
      const end = text.indexOf('\n', cursorStart);
      if (end === -1) return after + 1;
      cursorStart = end + 1;
      cursorLine += 1;
    }
    let line = cursorLine;
    for (let index = cursorStart; text[index] === '\n'; index += 1) line += 1;
    return line;
  };
  const parser = parseStream({
    ...parseOptions(delimiter),
    on_record: (record: string[], context: InfoRecord) => {
      lastEndLine = context.lines;
      if (stop) return null;
      // Blank rows count too, more loosely: a file of millions of them is not a manifest.
      blankRecords += 1;
      if (blankRecords > MAX_BLANK_ROWS) stop = true;
      if (isBlankFields(record)) return null;
      blankRecords -= 1;
      records += 1;
      // The header, then one row more than allowed: enough to say there are too many.
      if (records > MAX_MANIFEST_ROWS + 1) {
        stop = true;
        return null;
      }
      const line = context.lines - countLineBreaks(record);
      if (used === undefined) {
        used = usedPositions(record);
        entries.push({ kind: 'record', line, width: record.length, fields: record });
      } else {
        const kept = used.map((position) => record[position] ?? '');
        entries.push({ kind: 'record', line, width: record.length, fields: kept });
      }
      return null;
    },
    on_skip: (error: CsvError | undefined) => {
      if (error === undefined || stop) return undefined;
      entries.push({
        kind: 'unreadable',
        line: nextNonEmptyLine(lastEndLine),
        message: unreadableMessage(error),
      });
      lastEndLine = typeof error['lines'] === 'number' ? error['lines'] : lastEndLine + 1;
      return undefined;
    },
  });
  let failed = false;
  parser.on('error', () => {
    failed = true;
  });
  parser.resume();
  for (let start = 0; start < text.length && !stop && !failed; start += CHARS_PER_SLICE) {
    parser.write(text.slice(start, start + CHARS_PER_SLICE));
    await nextTurn();
  }
  if (!stop && !failed) {
    parser.end();
    await new Promise<void>((resolveEnd) => {
      parser.once('end', resolveEnd);
      parser.once('error', () => resolveEnd());
    });
  } else {
    parser.destroy();
  }
  if (failed) return undefined;
  return { entries, tooManyRows: records > MAX_MANIFEST_ROWS + 1 || blankRecords > MAX_BLANK_ROWS };
}

// ---------------------------------------------------------------------------------------------
// The header

interface Header {
  readonly line: number;
  /** Known column name → position of its first occurrence. */
  readonly positions: ReadonlyMap<string, number>;
  readonly width: number;
  /** Columns with no name: their position in the header, and where a row holds their value. */
  readonly unnamed: readonly { readonly position: number; readonly at: number }[];
  /** The header's cells as written. */
  readonly cells: readonly string[];
}

function squash(name: string): string {
  return name.toLowerCase().replace(/[^a-z]/g, '');
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function suggestColumn(name: string): string | undefined {
  const squashed = squash(name);
  let best: { column: string; distance: number } | undefined;
  for (const column of KNOWN_COLUMNS) {
    const distance = editDistance(squashed, squash(column));
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { column, distance };
  }
  return best?.column;
}

/** A header cell's column name as written (without a BOM or surrounding spaces). */
function writtenName(cell: string): string {
  return cell.replace(/\uFEFF/g, '').trim();
}

/** The header positions whose values a row needs: the known columns, and unnamed ones (a value there is a problem). */
function usedPositions(headerCells: readonly string[]): number[] {
  return headerCells.flatMap((cell, index) => {
    const name = writtenName(cell).toLowerCase();
    return name === '' || KNOWN_COLUMNS.includes(name) ? [index] : [];
  });
}

/** The header with its positions counted among the used ones only, as the data rows hold them. */
function projected(header: Header): Header {
  const used = usedPositions(header.cells);
  const at = new Map(used.map((position, index) => [position, index]));
  return {
    ...header,
    positions: new Map([...header.positions].map(([name, position]) => [name, at.get(position) ?? -1])),
    unnamed: header.unnamed.map(({ position }) => ({ position, at: at.get(position) ?? -1 })),
  };
}

function readHeader(line: number, cells: readonly string[], issues: IssueList): Header | undefined {
  const positions = new Map<string, number>();
  const unnamed: { position: number; at: number }[] = [];
  const unknown: string[] = [];
  cells.forEach((cell, index) => {
    const written = writtenName(cell);
    const name = written.toLowerCase();
    if (name === '') {
      unnamed.push({ position: index, at: index });
    } else if (!KNOWN_COLUMNS.includes(name)) {
      unknown.push(written);
    } else {
      const first = positions.get(name);
      if (first === undefined) positions.set(name, index);
      else issues.push({ row: line, column: name, message: MESSAGES.duplicateColumn(first + 1, index + 1) });
    }
  });
  if (positions.size === 0) {
    issues.push({ row: line, column: undefined, message: MESSAGES.noHeader });
    return undefined;
  }
  // Each unknown name once, however often it repeats.
  for (const name of new Set(unknown)) {
    issues.push({ row: line, column: shortened(name), message: MESSAGES.unknownColumn(suggestColumn(name)) });
  }
  for (const column of REQUIRED_COLUMNS) {
    if (!positions.has(column)) issues.push({ row: line, column, message: MESSAGES.missingColumn });
  }
  return { line, positions, width: cells.length, unnamed, cells };
}

// ---------------------------------------------------------------------------------------------
// One row

interface DocumentValue {
  readonly raw: string;
  readonly value: string | boolean;
}

interface ParsedRow {
  readonly line: number;
  readonly documentColumn: string;
  readonly externalReference: string;
  readonly participant: Participant | undefined;
  readonly documentValues: ReadonlyMap<DocumentColumn, DocumentValue>;
  readonly hasIssue: boolean;
}

type Field = { readonly kind: 'blank' } | { readonly kind: 'value'; readonly value: string };

function parseBoolean(raw: string): boolean | undefined {
  return BOOLEAN_WORDS.get(raw.toLowerCase());
}

/** Why a zod issue happened, in words for office staff, naming what was received. */
function describeParticipantIssue(column: string, issue: z.core.$ZodIssue, raw: string): string {
  if (column === 'participant_type') return withValue(MESSAGES.participantType, raw);
  // A text over the limit is too long to quote usefully; its length says what to fix.
  if (issue.code === 'too_big' && issue.origin === 'string')
    return say()('manifest.tooLong', {
      message: MESSAGES.atMost(Number(issue.maximum)),
      length: String(raw.length),
    });
  const message =
    issue.code === 'too_small'
      ? issue.origin === 'number'
        ? say()('manifest.atLeast', { minimum: String(issue.minimum) })
        : MESSAGES.required
      : issue.code === 'invalid_format'
        ? MESSAGES.email
        : MESSAGES.invalid;
  return withValue(message, raw);
}

function parseRow(line: number, fields: readonly string[], header: Header, issues: IssueList): ParsedRow {
  const rowIssues: ManifestIssue[] = [];
  const flag = (column: string | undefined, message: string): void => {
    rowIssues.push({ row: line, column, message });
  };
  const read = (column: string): Field => {
    const position = header.positions.get(column);
    const value = position === undefined ? '' : (fields[position] ?? '').trim();
    return value === '' ? { kind: 'blank' } : { kind: 'value', value };
  };
  const text = (column: string): string => {
    const field = read(column);
    return field.kind === 'value' ? field.value : '';
  };

  for (const [column, position] of header.positions) {
    const length = fields[position]?.length ?? 0;
    if (length > MAX_FIELD_CHARS) flag(column, MESSAGES.fieldTooLong(length));
  }
  if (rowIssues.length > 0) {
    issues.push(...rowIssues);
    return {
      line,
      documentColumn: '',
      externalReference: '',
      participant: undefined,
      documentValues: new Map(),
      hasIssue: true,
    };
  }

  for (const { position, at } of header.unnamed) {
    if ((fields[at] ?? '').trim() !== '') flag(undefined, MESSAGES.unnamedColumnValue(position + 1));
  }
  for (const column of REQUIRED_COLUMNS) {
    if (header.positions.has(column) && read(column).kind === 'blank') flag(column, MESSAGES.required);
  }

  const candidate: Record<string, unknown> = {
    participant_type: text('participant_type').toLowerCase(),
    role: text('role'),
    name: text('name'),
    email: text('email'),
  };
  const signingOrder = read('signing_order');
  if (signingOrder.kind === 'value') {
    if (/^\d+$/.test(signingOrder.value)) candidate['signing_order'] = Number(signingOrder.value);
    else flag('signing_order', withValue(MESSAGES.signingOrder, signingOrder.value));
  }
  const isInternal = read('is_internal');
  if (isInternal.kind === 'value') {
    const value = parseBoolean(isInternal.value);
    if (value === undefined) flag('is_internal', withValue(MESSAGES.boolean, isInternal.value));
    else candidate['is_internal'] = value;
  }

  let participant: Participant | undefined;
  const result = participantSchema.safeParse(candidate);
  if (result.success) {
    participant = result.data;
  } else {
    const flagged = new Set(rowIssues.map((issue) => issue.column));
    for (const zodIssue of result.error.issues) {
      const column = String(zodIssue.path[0]);
      if (flagged.has(column) || !header.positions.has(column)) continue;
      flagged.add(column);
      flag(column, describeParticipantIssue(column, zodIssue, text(column)));
    }
  }

  const documentValues = new Map<DocumentColumn, DocumentValue>();
  for (const column of DOCUMENT_COLUMNS) {
    const field = read(column);
    if (field.kind === 'blank') continue;
    if (BOOLEAN_COLUMNS.has(column)) {
      const value = parseBoolean(field.value);
      if (value === undefined) flag(column, withValue(MESSAGES.boolean, field.value));
      else documentValues.set(column, { raw: field.value, value });
    } else if (column === 'locale') {
      const locale = localeSchema.safeParse(field.value);
      if (locale.success) documentValues.set(column, { raw: field.value, value: locale.data });
      else flag(column, withValue(MESSAGES.locale, field.value));
    } else {
      documentValues.set(column, { raw: field.value, value: field.value });
    }
  }

  issues.push(...rowIssues);
  return {
    line,
    documentColumn: text('document'),
    externalReference: text('external_reference'),
    participant,
    documentValues,
    // A participant can also be missing for want of a column, which the header's issue reports.
    hasIssue: rowIssues.length > 0 || participant === undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// Documents

type ResolvedPath =
  { readonly ok: true; readonly pdfPath: string } | { readonly ok: false; readonly message: string };

/**
 * Where a document lives. Backslashes count as separators so that a manifest written on Windows
 * works anywhere; absolute paths and `..` are refused because the manifest must stay portable.
 */
function resolveDocumentPath(written: string, manifestDir: string): ResolvedPath {
  const portable = written.replace(/\\/g, '/');
  if (win32.isAbsolute(written) || posix.isAbsolute(portable) || /^[a-zA-Z]:/.test(written)) {
    return { ok: false, message: withValue(MESSAGES.absolutePath, written) };
  }
  const normalized = posix.normalize(portable);
  if (normalized === '..' || normalized.startsWith('../')) {
    return { ok: false, message: withValue(MESSAGES.escapingPath, written) };
  }
  return { ok: true, pdfPath: resolve(manifestDir, ...normalized.split('/')) };
}

interface DocumentGroup {
  readonly documentColumn: string;
  readonly externalReference: string;
  readonly path: ResolvedPath;
  readonly rows: ParsedRow[];
  hasIssue: boolean;
}

async function groupRows(
  rows: readonly ParsedRow[],
  manifestDir: string,
  issues: IssueList,
): Promise<DocumentGroup[]> {
  const groups = new Map<string, DocumentGroup>();
  for (const [index, row] of rows.entries()) {
    if (index % ROWS_PER_SLICE === ROWS_PER_SLICE - 1) await nextTurn();
    if (row.documentColumn === '' || row.externalReference === '') continue;
    const path = resolveDocumentPath(row.documentColumn, manifestDir);
    const identity = path.ok ? `path:${path.pdfPath}` : `written:${row.documentColumn}`;
    const key = `${identity}\u0000${row.externalReference}`;
    const group = groups.get(key);
    if (group === undefined) {
      if (!path.ok) issues.push({ row: row.line, column: 'document', message: path.message });
      groups.set(key, {
        documentColumn: row.documentColumn,
        externalReference: row.externalReference,
        path,
        rows: [row],
        hasIssue: !path.ok || row.hasIssue,
      });
    } else {
      group.rows.push(row);
      group.hasIssue ||= row.hasIssue;
    }
  }
  return [...groups.values()];
}

function firstLine(group: DocumentGroup): number {
  return group.rows[0]?.line ?? 0;
}

/** Checks that need all rows: agreement of per-document columns, duplicate e-mails, reused references. */
async function checkDocuments(groups: readonly DocumentGroup[], issues: IssueList): Promise<void> {
  const references = new Map<string, DocumentGroup>();
  for (const [index, group] of groups.entries()) {
    if (index % ROWS_PER_SLICE === ROWS_PER_SLICE - 1) await nextTurn();
    const owner = references.get(group.externalReference);
    if (owner === undefined) {
      references.set(group.externalReference, group);
    } else {
      issues.push({
        row: firstLine(group),
        column: 'external_reference',
        message: MESSAGES.reusedReference(group.externalReference, firstLine(owner), owner.documentColumn),
      });
      group.hasIssue = true;
    }

    const firstValues = new Map<DocumentColumn, { line: number; value: DocumentValue }>();
    const emails = new Map<string, number>();
    for (const row of group.rows) {
      for (const [column, value] of row.documentValues) {
        const first = firstValues.get(column);
        if (first === undefined) {
          firstValues.set(column, { line: row.line, value });
        } else if (first.value.value !== value.value) {
          issues.push({
            row: row.line,
            column,
            message: MESSAGES.disagreement(first.line, first.value.raw, value.raw),
          });
          group.hasIssue = true;
        }
      }
      if (row.participant === undefined) continue;
      const email = row.participant.email.toLowerCase();
      const seenOn = emails.get(email);
      if (seenOn === undefined) {
        emails.set(email, row.line);
      } else {
        issues.push({
          row: row.line,
          column: 'email',
          message: MESSAGES.duplicateEmail(row.participant.email, seenOn),
        });
        group.hasIssue = true;
      }
    }
  }
}

function buildDocument(group: DocumentGroup, pdfPath: string, folder: string): ManifestDocument {
  const merged: Partial<Record<keyof SigningOptions, string | boolean>> = {};
  for (const row of group.rows) {
    for (const [column, { value }] of row.documentValues) merged[OPTION_KEYS[column]] ??= value;
  }
  // Every value was validated row by row; a failure here is a bug, not bad input.
  const options = signingOptionsSchema.parse(merged);
  return {
    pdfPath,
    folder,
    documentColumn: group.documentColumn,
    externalReference: group.externalReference,
    transactionType: options.transactionType,
    options,
    recipients: group.rows.flatMap((row) => (row.participant === undefined ? [] : [row.participant])),
    rows: group.rows.map((row) => row.line),
    storedFilename: normalizeFilename(group.documentColumn.replace(/\\/g, '/').split('/').pop()),
  };
}

// ---------------------------------------------------------------------------------------------
// The whole manifest

interface Analysis {
  readonly groups: readonly DocumentGroup[];
  readonly issues: IssueList;
  readonly columnOrder: ReadonlyMap<string, number>;
}

function wholeFile(message: string, row = 0): Analysis {
  const issues = new IssueList();
  issues.push({ row, column: undefined, message });
  return { groups: [], issues, columnOrder: new Map() };
}

async function analyse(content: Buffer | string, manifestDir: string): Promise<Analysis> {
  const decoded = await decode(content);
  if (decoded.issue !== undefined) return wholeFile(decoded.issue.message, decoded.issue.row);
  if (decoded.text.trim() === '') return wholeFile(MESSAGES.empty, 1);

  // Excel's hint line (`sep=;`) names the delimiter; it is kept as a blank line, so lines keep their numbers.
  const hint = /^sep=(.)\n/i.exec(decoded.text);
  if (hint && hint[1] !== ',' && hint[1] !== ';') return wholeFile(MESSAGES.otherDelimiter, 1);
  const body = hint ? `\n${decoded.text.slice(hint[0].length)}` : decoded.text;
  const { delimiter, width, tabs } = sniffHeader(body, hint?.[1] as Delimiter | undefined);
  if (tabs) return wholeFile(MESSAGES.otherDelimiter, hint ? 2 : 1);
  if (width > MAX_MANIFEST_COLUMNS) return wholeFile(MESSAGES.tooManyColumns, 1);
  const text = body.slice(0, await endOfLastFilledLine(body, delimiter.charCodeAt(0)));
  // Past an oversized record nothing can be trusted: a lost quote has swallowed the rest.
  const oversized = await findOversizedRecord(text, delimiter);
  if (oversized?.wholeFile) return wholeFile(oversized.message);
  const read = await readEntries(oversized === undefined ? text : text.slice(0, oversized.index), delimiter);
  if (read === undefined) return wholeFile(MESSAGES.unreadableFile);
  const [headerEntry, ...dataEntries] = read.entries;
  if (headerEntry === undefined) {
    return oversized === undefined
      ? wholeFile(MESSAGES.empty, 1)
      : wholeFile(oversized.message, oversized.line);
  }
  if (headerEntry.kind === 'unreadable') return wholeFile(headerEntry.message, headerEntry.line);
  if (read.tooManyRows) return wholeFile(MESSAGES.tooManyRows);

  const issues = new IssueList();
  if (oversized !== undefined)
    issues.push({ row: oversized.line, column: undefined, message: oversized.message });
  const header = readHeader(headerEntry.line, headerEntry.fields, issues);
  if (header === undefined) return { groups: [], issues, columnOrder: new Map() };
  if (dataEntries.length === 0) {
    if (oversized === undefined) issues.push({ row: 0, column: undefined, message: MESSAGES.noRows });
    return { groups: [], issues, columnOrder: header.positions };
  }

  const rows: ParsedRow[] = [];
  const rowHeader = projected(header);
  for (const [index, entry] of dataEntries.entries()) {
    if (index % ROWS_PER_SLICE === ROWS_PER_SLICE - 1) await nextTurn();
    if (entry.kind === 'unreadable') {
      issues.push({ row: entry.line, column: undefined, message: entry.message });
    } else if (entry.width > header.width) {
      issues.push({
        row: entry.line,
        column: undefined,
        message: MESSAGES.tooManyFields(entry.width, header.width, delimiter),
      });
    } else if (entry.width < header.width) {
      issues.push({
        row: entry.line,
        column: undefined,
        message: MESSAGES.tooFewFields(entry.width, header.width),
      });
    } else {
      rows.push(parseRow(entry.line, entry.fields, rowHeader, issues));
    }
  }
  const groups = await groupRows(rows, manifestDir, issues);
  if (groups.length > MAX_MANIFEST_DOCUMENTS) return wholeFile(MESSAGES.tooManyDocuments);
  await checkDocuments(groups, issues);
  return { groups, issues, columnOrder: header.positions };
}

/** Line order, and within a line the order of the columns in the header. */
function sortIssues(
  issues: readonly ManifestIssue[],
  columnOrder: ReadonlyMap<string, number>,
): ManifestIssue[] {
  const position = (issue: ManifestIssue): number =>
    issue.column === undefined ? -1 : (columnOrder.get(issue.column) ?? Number.MAX_SAFE_INTEGER);
  return [...issues].sort((a, b) => a.row - b.row || position(a) - position(b));
}

/** The first problems in line order, then how many more there are. */
function listIssues(
  issues: IssueList,
  columnOrder: ReadonlyMap<string, number>,
): Pick<ManifestCheck, 'issues' | 'problemCount'> {
  const listed = sortIssues(issues.kept, columnOrder).slice(0, MAX_LISTED_ISSUES);
  if (issues.count > listed.length) {
    listed.push({ row: 0, column: undefined, message: MESSAGES.moreProblems(issues.count - listed.length) });
  }
  return { issues: listed, problemCount: issues.count };
}

function validDocuments(groups: readonly DocumentGroup[], folder: string): ManifestDocument[] {
  return groups.flatMap((group) =>
    group.hasIssue || !group.path.ok ? [] : [buildDocument(group, group.path.pdfPath, folder)],
  );
}

/**
 * Parses a manifest without touching the disk: `content` is the file's bytes (checked to be
 * UTF-8) or its text, `manifestDir` the folder its relative paths start from. Returns every
 * problem, each with its line and column, sorted by line; a valid manifest gives `issues: []`.
 * `documents` lists only the documents none of whose rows has a problem: import only when
 * `issues` is empty. A large manifest is parsed in slices, giving the event loop turns.
 */
export function parseManifest(
  content: Buffer | string,
  manifestDir: string,
  t: Translator['t'] = say(),
): Promise<ManifestCheck> {
  return speaking(t, async () => {
    const analysis = await analyse(content, manifestDir);
    return {
      documents: validDocuments(analysis.groups, manifestDir),
      ...listIssues(analysis.issues, analysis.columnOrder),
    };
  });
}

function pdfIssueMessage(documentColumn: string, problem: PdfProblem): string {
  const file = quote(documentColumn);
  switch (problem.code) {
    case 'missing_pdf':
      return say()('manifest.pdfEmpty', { file });
    case 'pdf_too_large':
      return say()('manifest.pdfTooLarge', { file, bytes: 52_428_800 });
    case 'invalid_pdf':
      return problem.looksLike === 'office'
        ? say()('manifest.pdfInvalidOffice', { file })
        : problem.looksLike === 'image'
          ? say()('manifest.pdfInvalidImage', { file })
          : say()('manifest.pdfInvalid', { file });
    case 'unreadable_file':
      return say()('manifest.pdfUnreadable', { file, reason: unreadableReason(problem.systemCode, say()) });
  }
}

/**
 * A file next to a missing one whose name differs only in capitals or in how its accents are
 * encoded (files copied from a Mac keep accents decomposed), to say so rather than "missing".
 * `listed` keeps each folder's names for the rest of one check.
 */
async function nearName(
  path: string,
  files: UserFiles,
  listed: Map<string, Promise<readonly string[]>>,
): Promise<string | undefined> {
  const folder = dirname(path);
  let names = listed.get(folder);
  if (names === undefined) {
    names = files.list(folder).then(
      (entries) => entries.map((entry) => entry.name),
      () => [],
    );
    listed.set(folder, names);
  }
  const loose = (name: string) => name.normalize('NFC').toLowerCase();
  const wanted = loose(basename(path));
  return (await names).find((name) => loose(name) === wanted);
}

/** The manifest's bytes: a regular file of at most {@link MAX_MANIFEST_BYTES}, read within the deadline. */
async function readManifest(manifestPath: string, files: UserFiles): Promise<Buffer | ManifestIssue> {
  try {
    return await files.readWhole(manifestPath, { maxBytes: MAX_MANIFEST_BYTES });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message =
      code === 'TOO_LARGE'
        ? MESSAGES.manifestTooLarge
        : MESSAGES.manifestUnreadable(unreadableReason(typeof code === 'string' ? code : undefined, say()));
    return { row: 0, column: undefined, message };
  }
}

async function checkPdfs(
  paths: readonly string[],
  folder: string,
  files: UserFiles,
): Promise<Map<string, PdfCheckResult>> {
  const results = new Map<string, PdfCheckResult>();
  // One check per file, however many spellings lead to it (`a.pdf`, `./a.pdf`, `link/a.pdf`…).
  const byFile = new Map<string, Promise<PdfCheckResult>>();
  // The folder is resolved once; each file is opened by its resolved path, not resolved again.
  let within: string;
  try {
    within = await files.resolved(folder);
  } catch (error) {
    const problem = readProblem(error);
    return new Map(paths.map((path) => [path, { ok: false, problem }]));
  }
  const check = (file: string) =>
    checkPdfFile(
      file,
      undefined,
      (source, options) => files.chunks(source, { ...options, resolved: true }),
      within,
    );
  const queue = [...paths];
  const worker = async (): Promise<void> => {
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      let file: string;
      try {
        file = await files.resolved(path);
      } catch (error) {
        // Missing, or its path cannot be followed: said at once, without opening anything.
        results.set(path, { ok: false, problem: readProblem(error) });
        continue;
      }
      let result = byFile.get(file);
      if (result === undefined) {
        result = check(file);
        byFile.set(file, result);
      }
      results.set(path, await result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PDF_CHECK_CONCURRENCY, paths.length) }, worker));
  return results;
}

/**
 * Reads the manifest at `manifestPath`, parses it like `parseManifest`, then checks every PDF it
 * references with the service's upload rules — also for documents whose rows have other problems,
 * so that everything is reported at once. A PDF problem is reported on the first row of its
 * document, column "document". Each valid document carries its PDF's SHA-256 and size. The
 * manifest and its PDFs are read as the person's files (main/files/user-files.ts): regular
 * files only, the PDFs inside the manifest's folder, bounded in time.
 */
export function checkManifestFile(
  manifestPath: string,
  t: Translator['t'] = say(),
  files: UserFiles = userFiles,
): Promise<ManifestCheck> {
  return speaking(t, () => checkManifestFileNow(manifestPath, files));
}

async function checkManifestFileNow(manifestPath: string, files: UserFiles): Promise<ManifestCheck> {
  if (!isManifestFileName(manifestPath))
    return {
      documents: [],
      issues: [{ row: 0, column: undefined, message: say()('manifest.notAManifest') }],
      problemCount: 1,
    };
  const absolutePath = resolve(manifestPath);
  const content = await readManifest(absolutePath, files);
  if (!Buffer.isBuffer(content)) return { documents: [], issues: [content], problemCount: 1 };

  // The PDFs sit next to the manifest itself, also when it was named through a link.
  const folder = dirname(await files.resolved(absolutePath).catch(() => absolutePath));
  const analysis = await analyse(content, folder);
  const paths = [...new Set(analysis.groups.flatMap((group) => (group.path.ok ? [group.path.pdfPath] : [])))];
  const results = await checkPdfs(paths, folder, files);
  const { issues } = analysis;
  const documents: ManifestDocument[] = [];
  const listed = new Map<string, Promise<readonly string[]>>();
  for (const group of analysis.groups) {
    if (!group.path.ok) continue;
    const result = results.get(group.path.pdfPath);
    if (result === undefined) continue;
    if (!result.ok) {
      const near =
        result.problem.systemCode === 'ENOENT'
          ? await nearName(group.path.pdfPath, files, listed)
          : undefined;
      issues.push({
        row: firstLine(group),
        column: 'document',
        message:
          near === undefined
            ? pdfIssueMessage(group.documentColumn, result.problem)
            : say()('manifest.pdfNearName', { file: quote(group.documentColumn), name: quote(near) }),
      });
    } else if (!group.hasIssue) {
      documents.push({ ...buildDocument(group, group.path.pdfPath, folder), pdf: result.pdf });
    }
  }
  return { documents, ...listIssues(issues, analysis.columnOrder) };
}
