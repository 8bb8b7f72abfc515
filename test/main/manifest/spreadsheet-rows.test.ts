/**
 * A manifest problem names the row and column a spreadsheet shows, whatever the file holds:
 * cells with line breaks (a role typed with Alt+Enter), CRLF or LF, a BOM, Excel's `sep=;` line,
 * blank rows, columns without a name. Each manifest is generated with one problem planted in a
 * random record; the row and column expected come from the generator's own list of records and
 * columns, never from the parser.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIssue, parseManifest } from '../../../main/manifest/manifest';

const KNOWN = [
  'document',
  'external_reference',
  'participant_type',
  'role',
  'name',
  'email',
  'signing_order',
];

/** Column letters as a spreadsheet writes them, for the first 702 columns (A … Z, AA … ZZ). */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
function spreadsheetLetter(index: number): string {
  return index < 26
    ? ALPHABET.charAt(index)
    : ALPHABET.charAt(Math.floor(index / 26) - 1) + ALPHABET.charAt(index % 26);
}

/** A byte that is not UTF-8 (é in Windows-1252), planted as this marker and turned into it last. */
const LATIN1_E = '\u0000';

type Planted =
  { readonly kind: 'email' | 'signing_order' | 'participant_type' | 'name' } | { readonly kind: 'notUtf8' };

const PLANTED_VALUES = {
  email: 'not-an-email',
  signing_order: 'first',
  participant_type: 'approver',
  name: '',
};
const NOT_UTF8 =
  'the file is not in UTF-8, so accented letters would come out wrong: save it again choosing the type "CSV UTF-8" (in Excel: Save As)';
const PLANTED_MESSAGES = {
  email: 'must be a valid e-mail address (got "not-an-email")',
  signing_order: 'must be a whole number, 1 or more, written in digits (got "first")',
  participant_type: 'must be "signer" or "observer" (got "approver")',
  name: 'is required',
};

/** A cell's text: words, some joined by line breaks (LF or CRLF), commas, semicolons or quotes. */
const cellText = fc
  .array(
    fc.tuple(
      fc.constantFrom(' ', '\n', '\r\n', ', ', '; ', ' "', '" ', '\n\n'),
      fc.constantFrom('Gérante', 'Head', 'of', 'sales', 'Lyon', '(signature sociale)', 'Zoë', 'RH'),
    ),
    { maxLength: 5 },
  )
  .map((parts) => `Anne${parts.map(([glue, word]) => glue + word).join('')}`);

/** A blank row as spreadsheets export it: an empty line, a line of delimiters, or of spaces. */
const blankLine = fc.constantFrom('', 'delimiters', '  ');

const manifestShape = fc.record({
  /** The known columns' order, and nameless columns (empty in every row) before each. */
  order: fc.shuffledSubarray(KNOWN, { minLength: KNOWN.length, maxLength: KNOWN.length }),
  nameless: fc.array(fc.nat({ max: 5 }), { minLength: KNOWN.length, maxLength: KNOWN.length }),
  delimiter: fc.constantFrom(',', ';'),
  newline: fc.constantFrom('\n', '\r\n'),
  bom: fc.boolean(),
  sepHint: fc.boolean(),
  emptyLinesBeforeHeader: fc.nat({ max: 2 }),
  /** Each data record: its role and name cells, and the blank rows before it. */
  records: fc.array(
    fc.record({
      role: cellText,
      name: cellText,
      blanksBefore: fc.array(blankLine, { maxLength: 2 }),
      quoteAll: fc.boolean(),
    }),
    { minLength: 1, maxLength: 12 },
  ),
  plantAt: fc.nat(),
  planted: fc.constantFrom<Planted>(
    { kind: 'email' },
    { kind: 'signing_order' },
    { kind: 'participant_type' },
    { kind: 'name' },
    { kind: 'notUtf8' },
  ),
});

type Shape = typeof manifestShape extends fc.Arbitrary<infer T> ? T : never;

function cell(value: string, delimiter: string, quoteAll: boolean): string {
  const needsQuotes = /[\r\n",;]/.test(value) || value !== value.trim();
  return quoteAll || needsQuotes ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * The manifest's bytes, and where its planted problem is: the row a spreadsheet shows (counted
 * from the generator's records: every record and blank row is one row; the `sep=` line is none)
 * and the column's letter (its place among the header's cells).
 */
interface Built {
  readonly bytes: Buffer;
  /** The planted problem's row, its column's letter (none for a problem of the whole row) and its words. */
  readonly row: number;
  readonly letter: string | undefined;
  readonly message: string;
  /** Each data record's row, in order. */
  readonly recordRows: readonly number[];
}

function build(shape: Shape): Built {
  const { delimiter, newline } = shape;
  const columns: (string | undefined)[] = [];
  shape.order.forEach((name, index) => {
    for (let count = 0; count < (shape.nameless[index] ?? 0); count += 1) columns.push(undefined);
    columns.push(name);
  });
  const plantIndex = shape.plantAt % shape.records.length;
  /** Every row a spreadsheet shows, in order: blank rows, the header, the data rows. */
  const rows: string[] = Array.from({ length: shape.emptyLinesBeforeHeader }, () => '');
  rows.push(columns.map((name) => name ?? '').join(delimiter));
  const recordRows: number[] = [];
  shape.records.forEach((record, index) => {
    for (const blank of record.blanksBefore)
      rows.push(blank === 'delimiters' ? delimiter.repeat(columns.length - 1) : blank);
    const planted = index === plantIndex ? shape.planted : undefined;
    const values: Record<string, string> = {
      document: `contract-${index}.pdf`,
      external_reference: `REF-${index}`,
      participant_type: 'signer',
      role: planted?.kind === 'notUtf8' ? `${record.role} Soci${LATIN1_E}t${LATIN1_E}` : record.role,
      name: record.name,
      email: `person${index}@example.com`,
      signing_order: '1',
      ...(planted !== undefined && planted.kind !== 'notUtf8'
        ? { [planted.kind]: PLANTED_VALUES[planted.kind] }
        : {}),
    };
    recordRows.push(rows.length + 1);
    rows.push(
      columns
        .map((name) => (name === undefined ? '' : cell(values[name] ?? '', delimiter, record.quoteAll)))
        .join(delimiter),
    );
  });
  const text = `${shape.sepHint ? `sep=${delimiter}${newline}` : ''}${rows.join(newline)}${newline}`;
  const bytes = Buffer.concat(
    text
      .split(LATIN1_E)
      .flatMap((piece, index) => [...(index > 0 ? [Buffer.from([0xe9])] : []), Buffer.from(piece, 'utf8')]),
  );
  const planted = shape.planted;
  return {
    bytes: shape.bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]) : bytes,
    row: recordRows[plantIndex] ?? 0,
    recordRows,
    ...(planted.kind === 'notUtf8'
      ? { letter: undefined, message: NOT_UTF8 }
      : {
          letter: spreadsheetLetter(columns.indexOf(planted.kind)),
          message: PLANTED_MESSAGES[planted.kind],
        }),
  };
}

describe('a manifest problem names the row and column a spreadsheet shows', () => {
  it('whatever line breaks, blank rows, BOM, line endings and nameless columns the file holds', async () => {
    await fc.assert(
      fc.asyncProperty(manifestShape, async (shape) => {
        const { bytes, row, letter, message } = build(shape);
        const check = await parseManifest(bytes, '/manifests');
        const where =
          letter === undefined ? `row ${row}` : `row ${row}, column ${letter} (${shape.planted.kind})`;
        expect(check.issues.map((issue) => formatIssue(issue))).toEqual([`${where}: ${message}`]);
      }),
      { numRuns: 300 },
    );
  });

  it('and each correct document lists the rows it was read from', async () => {
    await fc.assert(
      fc.asyncProperty(manifestShape, async (shape) => {
        const { bytes, recordRows } = build({ ...shape, planted: { kind: 'email' } });
        const plantIndex = shape.plantAt % shape.records.length;
        const check = await parseManifest(bytes, '/manifests');
        // One document a record; the planted one has a problem, so it is left out.
        expect(check.documents.map((document) => [document.externalReference, document.rows])).toEqual(
          recordRows.flatMap((row, index) => (index === plantIndex ? [] : [[`REF-${index}`, [row]]])),
        );
      }),
      { numRuns: 100 },
    );
  });
});

describe('a file in UTF-16, such as Excel’s "Unicode Text" (tab-separated)', () => {
  const rows = [
    'document\texternal_reference\tparticipant_type\trole\tname\temail',
    'a.pdf\tRH-1\tsigner\tSalariée\tZoé Dupré\tzoe@example.com',
  ].join('\r\n');

  it.each([
    [
      'little-endian, as Excel saves it',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(rows, 'utf16le')]),
    ],
    ['big-endian', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(rows, 'utf16le').swap16()])],
  ])('%s: is named for what it is, not blamed on accents, with the way to save it', async (_what, bytes) => {
    const { issues } = await parseManifest(bytes, '/tmp');
    expect(issues.map((issue) => formatIssue(issue))).toEqual([
      'the file is in UTF-16 (Excel\'s "Unicode Text"), not a CSV in UTF-8: save it again choosing the type "CSV UTF-8" (in Excel: Save As)',
    ]);
  });
});

describe('a sheet whose used range runs far to the right of its columns', () => {
  it('is not called the wrong file: the empty columns after the last named one are named, with what to do', async () => {
    // Six named columns, then 150 empty ones: Excel saves every column ever used or formatted.
    const empty = ';'.repeat(150);
    const manifest = [
      `document;external_reference;participant_type;role;name;email${empty}`,
      `a.pdf;RH-1;signer;Salariée;Zoé Dupré;zoe@example.com${empty}`,
    ].join('\r\n');
    const { issues } = await parseManifest(manifest, '/tmp');
    expect(issues.map((issue) => formatIssue(issue))).toEqual([
      'row 1: the header row has 156 columns, more than 100, but its names end at column F (email): delete the empty columns after it in your spreadsheet (it saves every column ever used), save, then check again',
    ]);
  });
});
