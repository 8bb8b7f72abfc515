/**
 * Every problem a manifest check can report, in one table keyed by its code: the code names the
 * catalog message (`manifest.<code>` in shared/i18n/catalog/<language>/manifest.json), and the
 * entry gives the values its words take. The words are made in the language of the check in
 * progress (the person's in the app, English on the command line: main/base/words.ts).
 */
import type { MessageValues } from '../../shared/i18n/translator';
import { MAX_PDF_BYTES } from '../../shared/service/limits';
import { words } from '../base/words';
import {
  MAX_FIELD_CHARS,
  MAX_LINE_CHARS,
  MAX_LINE_VALUES,
  MAX_MANIFEST_COLUMNS,
  MAX_MANIFEST_DOCUMENTS,
  MAX_MANIFEST_ROWS,
} from './caps';
import { KNOWN_COLUMNS, REQUIRED_COLUMNS } from './columns';
import { columnLetter } from './sheet-rows';

const VALUE_PREVIEW_LENGTH = 60;

/** A value as shown in a message: on one line, and shortened so that the message stays readable. */
export function quote(value: string): string {
  return `"${shortened(value)}"`;
}

/** A value or a column name as shown: on one line, at most {@link VALUE_PREVIEW_LENGTH} characters. */
export function shortened(value: string): string {
  const oneLine = value.replace(/\s*\n\s*/g, ' ');
  return oneLine.length > VALUE_PREVIEW_LENGTH ? `${oneLine.slice(0, VALUE_PREVIEW_LENGTH - 1)}…` : oneLine;
}

/** A message without values: asked of the catalog with none, exactly as written there. */
const plain = (): undefined => undefined;

const PROBLEMS = {
  // The file as a whole
  notAManifest: plain,
  unreadable: (reason: string) => ({ reason }),
  tooLarge: plain,
  spreadsheet: plain,
  unicodeText: plain,
  notUtf8: plain,
  empty: plain,
  otherDelimiter: plain,
  unreadableFile: plain,
  tooManyRows: () => ({ max: MAX_MANIFEST_ROWS }),
  tooManyColumns: () => ({ max: MAX_MANIFEST_COLUMNS }),
  emptyColumnsAfter: (width: number, lastIndex: number, lastName: string) => ({
    width,
    max: MAX_MANIFEST_COLUMNS,
    letter: columnLetter(lastIndex),
    column: shortened(lastName),
  }),
  tooManyDocuments: () => ({ max: MAX_MANIFEST_DOCUMENTS }),
  noRows: plain,
  moreProblems: (count: number) => ({ count }),
  // One line of the file
  lineTooLong: () => ({ max: MAX_LINE_CHARS }),
  lineTooWide: () => ({ max: MAX_LINE_VALUES }),
  quoteNotClosed: plain,
  unreadableRecord: plain,
  tooManyFields: (count: number, expected: number, delimiter: string) => ({
    count,
    expected,
    delimiter,
  }),
  tooFewFields: (count: number, expected: number) => ({ count, expected }),
  unnamedColumnValue: plain,
  // The header line
  noHeader: () => ({ columns: REQUIRED_COLUMNS.join(', ') }),
  missingColumn: plain,
  duplicateColumn: (first: number) => ({ first: columnLetter(first) }),
  unknownColumn: () => ({ columns: KNOWN_COLUMNS.join(', ') }),
  unknownColumnSuggestion: (suggestion: string) => ({ suggestion }),
  // One value; the schema's rules (shared/service/wire.ts) in words for office staff
  fieldTooLong: (length: number) => ({ max: MAX_FIELD_CHARS, length }),
  required: plain,
  participantType: plain,
  signingOrder: plain,
  boolean: plain,
  email: plain,
  locale: plain,
  invalid: plain,
  atMost: (maximum: number) => ({ maximum: String(maximum) }),
  atLeast: (minimum: number | bigint) => ({ minimum: String(minimum) }),
  tooLong: (message: string, length: number) => ({ message, length: String(length) }),
  withValue: (message: string, value: string) => ({ message, value: quote(value) }),
  absolutePath: plain,
  escapingPath: plain,
  // The rows of one document, and the documents together (rows numbered as the spreadsheet shows them)
  disagreement: (firstRow: number, firstValue: string, value: string) => ({
    firstRow: String(firstRow),
    firstValue: quote(firstValue),
    value: quote(value),
  }),
  duplicateEmail: (email: string, row: number) => ({ email: quote(email), row: String(row) }),
  reusedReference: (reference: string, row: number, document: string) => ({
    reference: quote(reference),
    row: String(row),
    document: quote(document),
  }),
  // A document's PDF, named as the manifest writes it
  pdfEmpty: (file: string) => ({ file: quote(file) }),
  pdfTooLarge: (file: string) => ({ file: quote(file), bytes: MAX_PDF_BYTES }),
  pdfInvalid: (file: string) => ({ file: quote(file) }),
  pdfInvalidOffice: (file: string) => ({ file: quote(file) }),
  pdfInvalidImage: (file: string) => ({ file: quote(file) }),
  pdfUnreadable: (file: string, reason: string) => ({ file: quote(file), reason }),
  pdfNearName: (file: string, name: string) => ({ file: quote(file), name: quote(name) }),
} satisfies Record<string, (...args: never[]) => MessageValues | undefined>;

/** The code of a problem a manifest can have. */
export type ManifestProblem = keyof typeof PROBLEMS;

type ValuesOf<P extends ManifestProblem> = Parameters<(typeof PROBLEMS)[P]>;

/** The words of problem `code`, with what it names, in the language of the check in progress. */
export function problemMessage<P extends ManifestProblem>(code: P, ...values: ValuesOf<P>): string {
  const valuesOf = PROBLEMS[code] as (...given: ValuesOf<P>) => MessageValues | undefined;
  return words()(`manifest.${code}`, valuesOf(...values));
}
