/**
 * The whole text of a manifest, read in order: decoded, its delimiter found, scanned for the
 * caps, parsed into records, the header read, each row checked, the rows grouped into documents
 * and the documents checked together. A problem of the whole file ends the reading at once; any
 * other is collected, so that every problem is reported at once. Every problem names the row a
 * spreadsheet shows (main/manifest/sheet-rows.ts), not the line of text.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_LINE_VALUES, MAX_MANIFEST_COLUMNS, MAX_MANIFEST_DOCUMENTS, ROWS_PER_SLICE } from './caps';
import { decode } from './decode';
import { checkDocuments, groupRows, type DocumentGroup } from './grouping';
import { projected, readHeader } from './header';
import { IssueList } from './issues';
import { problemMessage } from './messages';
import { readEntries, sniffHeader, type Delimiter } from './records';
import { parseRow, type ParsedRow } from './rows';
import { endOfLastFilledLine, scanRecords } from './scan';
import { SheetRows } from './sheet-rows';

export interface Analysis {
  readonly groups: readonly DocumentGroup[];
  readonly issues: IssueList;
  readonly columnOrder: ReadonlyMap<string, number>;
}

function wholeFile(message: string, row = 0): Analysis {
  const issues = new IssueList();
  issues.push({ row, column: undefined, message });
  return { groups: [], issues, columnOrder: new Map() };
}

/** Excel's hint line (`sep=;`), which names the delimiter and which Excel does not show as a row. */
const HINT = /^sep=(.)\n/i;

/**
 * The text without the hint line, kept as a blank line so that lines keep their numbers, and
 * the rows a spreadsheet does not show at its start (the hint line).
 */
function withoutHint(text: string): { body: string; hint: string | undefined; hiddenRows: number } {
  const hint = HINT.exec(text);
  return hint
    ? { body: `\n${text.slice(hint[0].length)}`, hint: hint[1], hiddenRows: 1 }
    : { body: text, hint: undefined, hiddenRows: 0 };
}

/** The row a spreadsheet shows the header on: after the empty lines before it. */
function headerRow(body: string, hiddenRows: number): number {
  return (/^\n*/.exec(body)?.[0].length ?? 0) + 1 - hiddenRows;
}

/** A file that is not UTF-8, refused on the spreadsheet row of its first wrong byte. */
async function notUtf8(standIn: string, line: number): Promise<Analysis> {
  const { body, hint, hiddenRows } = withoutHint(standIn);
  const { delimiter } = sniffHeader(body, hint === ',' || hint === ';' ? hint : undefined);
  const scan = await scanRecords(body, delimiter);
  const rows = new SheetRows(scan.starts, hiddenRows, scan.oversized?.line);
  return wholeFile(problemMessage('notUtf8'), rows.rowOf(line));
}

export async function analyse(content: Buffer | string, manifestDir: string): Promise<Analysis> {
  const decoded = await decode(content);
  if (decoded.kind === 'spreadsheet') return wholeFile(problemMessage('spreadsheet'));
  if (decoded.kind === 'unicodeText') return wholeFile(problemMessage('unicodeText'));
  if (decoded.kind === 'notUtf8') return notUtf8(decoded.text, decoded.line);
  if (decoded.text.trim() === '') return wholeFile(problemMessage('empty'), 1);

  const { body, hint, hiddenRows } = withoutHint(decoded.text);
  if (hint !== undefined && hint !== ',' && hint !== ';')
    return wholeFile(problemMessage('otherDelimiter'), 1);
  const firstRow = headerRow(body, hiddenRows);
  const { delimiter, width, tabs, lastNamed } = sniffHeader(body, hint as Delimiter | undefined);
  if (tabs) return wholeFile(problemMessage('otherDelimiter'), firstRow);
  if (width > MAX_MANIFEST_COLUMNS) {
    // A used range that runs far to the right of the named columns is the right file, too wide
    // (a line of more values than any row may hold is not counted here: lineTooWide says it).
    const emptyAfter =
      lastNamed !== undefined && lastNamed.index < MAX_MANIFEST_COLUMNS && width <= MAX_LINE_VALUES;
    return wholeFile(
      emptyAfter
        ? problemMessage('emptyColumnsAfter', width, lastNamed.index, lastNamed.name)
        : problemMessage('tooManyColumns'),
      firstRow,
    );
  }
  const text = body.slice(0, await endOfLastFilledLine(body, delimiter.charCodeAt(0)));
  // Past an oversized record nothing can be trusted: a lost quote has swallowed the rest.
  const { starts, oversized } = await scanRecords(text, delimiter);
  if (oversized?.wholeFile) return wholeFile(oversized.message);
  // Problems name rows as the spreadsheet shows them, not lines of text.
  const rows = new SheetRows(starts, hiddenRows, oversized?.line);
  const read = await readEntries(oversized === undefined ? text : text.slice(0, oversized.index), delimiter);
  if (read === undefined) return wholeFile(problemMessage('unreadableFile'));
  const [headerEntry, ...dataEntries] = read.entries;
  if (headerEntry === undefined) {
    return oversized === undefined
      ? wholeFile(problemMessage('empty'), 1)
      : wholeFile(oversized.message, rows.rowOf(oversized.line));
  }
  if (headerEntry.kind === 'unreadable') return wholeFile(headerEntry.message, rows.rowOf(headerEntry.line));
  if (read.tooManyRows) return wholeFile(problemMessage('tooManyRows'));

  const issues = new IssueList();
  if (oversized !== undefined)
    issues.push({ row: rows.rowOf(oversized.line), column: undefined, message: oversized.message });
  const header = readHeader(rows.rowOf(headerEntry.line), headerEntry.fields, issues);
  if (header === undefined) return { groups: [], issues, columnOrder: new Map() };
  if (dataEntries.length === 0) {
    if (oversized === undefined)
      issues.push({ row: 0, column: undefined, message: problemMessage('noRows') });
    return { groups: [], issues, columnOrder: header.positions };
  }

  const parsed: ParsedRow[] = [];
  const rowHeader = projected(header);
  for (const [index, entry] of dataEntries.entries()) {
    if (index % ROWS_PER_SLICE === ROWS_PER_SLICE - 1) await nextTurn();
    const row = rows.rowOf(entry.line);
    if (entry.kind === 'unreadable') {
      issues.push({ row, column: undefined, message: entry.message });
    } else if (entry.width > header.width) {
      issues.push({
        row,
        column: undefined,
        message: problemMessage('tooManyFields', entry.width, header.width, delimiter),
      });
    } else if (entry.width < header.width) {
      issues.push({
        row,
        column: undefined,
        message: problemMessage('tooFewFields', entry.width, header.width),
      });
    } else {
      parsed.push(parseRow(row, entry.fields, rowHeader, issues));
    }
  }
  const groups = await groupRows(parsed, manifestDir, issues);
  if (groups.length > MAX_MANIFEST_DOCUMENTS) return wholeFile(problemMessage('tooManyDocuments'));
  await checkDocuments(groups, issues);
  return { groups, issues, columnOrder: header.positions };
}
