/**
 * The whole text of a manifest, read in order: decoded, its delimiter found, scanned for the
 * caps, parsed into records, the header read, each row checked, the rows grouped into documents
 * and the documents checked together. A problem of the whole file ends the reading at once; any
 * other is collected, so that every problem is reported at once.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_MANIFEST_COLUMNS, MAX_MANIFEST_DOCUMENTS, ROWS_PER_SLICE } from './caps';
import { decode } from './decode';
import { checkDocuments, groupRows, type DocumentGroup } from './grouping';
import { projected, readHeader } from './header';
import { IssueList } from './issues';
import { problemMessage } from './messages';
import { readEntries, sniffHeader, type Delimiter } from './records';
import { parseRow, type ParsedRow } from './rows';
import { endOfLastFilledLine, findOversizedRecord } from './scan';

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

export async function analyse(content: Buffer | string, manifestDir: string): Promise<Analysis> {
  const decoded = await decode(content);
  if (decoded.issue !== undefined) return wholeFile(decoded.issue.message, decoded.issue.row);
  if (decoded.text.trim() === '') return wholeFile(problemMessage('empty'), 1);

  // Excel's hint line (`sep=;`) names the delimiter; it is kept as a blank line, so lines keep their numbers.
  const hint = /^sep=(.)\n/i.exec(decoded.text);
  if (hint && hint[1] !== ',' && hint[1] !== ';') return wholeFile(problemMessage('otherDelimiter'), 1);
  const body = hint ? `\n${decoded.text.slice(hint[0].length)}` : decoded.text;
  const { delimiter, width, tabs } = sniffHeader(body, hint?.[1] as Delimiter | undefined);
  if (tabs) return wholeFile(problemMessage('otherDelimiter'), hint ? 2 : 1);
  if (width > MAX_MANIFEST_COLUMNS) return wholeFile(problemMessage('tooManyColumns'), 1);
  const text = body.slice(0, await endOfLastFilledLine(body, delimiter.charCodeAt(0)));
  // Past an oversized record nothing can be trusted: a lost quote has swallowed the rest.
  const oversized = await findOversizedRecord(text, delimiter);
  if (oversized?.wholeFile) return wholeFile(oversized.message);
  const read = await readEntries(oversized === undefined ? text : text.slice(0, oversized.index), delimiter);
  if (read === undefined) return wholeFile(problemMessage('unreadableFile'));
  const [headerEntry, ...dataEntries] = read.entries;
  if (headerEntry === undefined) {
    return oversized === undefined
      ? wholeFile(problemMessage('empty'), 1)
      : wholeFile(oversized.message, oversized.line);
  }
  if (headerEntry.kind === 'unreadable') return wholeFile(headerEntry.message, headerEntry.line);
  if (read.tooManyRows) return wholeFile(problemMessage('tooManyRows'));

  const issues = new IssueList();
  if (oversized !== undefined)
    issues.push({ row: oversized.line, column: undefined, message: oversized.message });
  const header = readHeader(headerEntry.line, headerEntry.fields, issues);
  if (header === undefined) return { groups: [], issues, columnOrder: new Map() };
  if (dataEntries.length === 0) {
    if (oversized === undefined)
      issues.push({ row: 0, column: undefined, message: problemMessage('noRows') });
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
        message: problemMessage('tooManyFields', entry.width, header.width, delimiter),
      });
    } else if (entry.width < header.width) {
      issues.push({
        row: entry.line,
        column: undefined,
        message: problemMessage('tooFewFields', entry.width, header.width),
      });
    } else {
      rows.push(parseRow(entry.line, entry.fields, rowHeader, issues));
    }
  }
  const groups = await groupRows(rows, manifestDir, issues);
  if (groups.length > MAX_MANIFEST_DOCUMENTS) return wholeFile(problemMessage('tooManyDocuments'));
  await checkDocuments(groups, issues);
  return { groups, issues, columnOrder: header.positions };
}
