/**
 * Reading the CSV: the delimiter, found from the header line, then every record with the line
 * where it starts, and the records the parser could not read in their place.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse as parseStream } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import type { CsvError, InfoRecord } from 'csv-parse/sync';
import { CHARS_PER_SLICE, MAX_BLANK_ROWS, MAX_LINE_CHARS, MAX_MANIFEST_ROWS } from './caps';
import { usedPositions } from './header';
import { problemMessage } from './messages';

export type SourceEntry =
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

export type Delimiter = ',' | ';';

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
export function sniffHeader(
  text: string,
  named?: Delimiter,
): {
  readonly delimiter: Delimiter;
  readonly width: number;
  readonly tabs: boolean;
  /** The header's cells up to its last named one (a spreadsheet's used range may run far beyond). */
  readonly lastNamed: { readonly index: number; readonly name: string } | undefined;
} {
  const start = text.slice(0, MAX_LINE_CHARS);
  const firstLine = start.replace(/^\n+/, '').split('\n', 1)[0] ?? '';
  const headerCells = (delimiter: Delimiter): readonly string[] => {
    try {
      const [first] = parse(start, { ...parseOptions(delimiter), to: 1 }) as string[][];
      return first ?? [];
    } catch {
      return [];
    }
  };
  const semicolons = headerCells(';');
  const commas = headerCells(',');
  const [delimiter, cells]: [Delimiter, readonly string[]] =
    named === ';' || (named === undefined && semicolons.length > commas.length)
      ? [';', semicolons]
      : [',', commas];
  const index = cells.findLastIndex((cell) => cell.replace(/\uFEFF/g, '').trim() !== '');
  return {
    delimiter,
    width: cells.length,
    // One column by commas and semicolons, several by tabs: Excel's "Text (Tab delimited)".
    tabs: cells.length <= 1 && firstLine.split('\t').length > 1,
    lastNamed: index === -1 ? undefined : { index, name: (cells[index] ?? '').trim() },
  };
}

function countLineBreaks(fields: readonly string[]): number {
  return fields.reduce((sum, field) => sum + (field.match(/\n/g)?.length ?? 0), 0);
}

function unreadableMessage(error: CsvError): string {
  return error.code === 'CSV_QUOTE_NOT_CLOSED'
    ? problemMessage('quoteNotClosed')
    : problemMessage('unreadableRecord');
}

function isBlankFields(fields: readonly string[]): boolean {
  return fields.every((field) => field.trim() === '');
}

export interface Entries {
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
export async function readEntries(text: string, delimiter: Delimiter): Promise<Entries | undefined> {
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
