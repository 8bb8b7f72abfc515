/**
 * The bad-input table: every bad input the desk knows how to refuse, each with the exact words
 * (English) it is refused with through every entry point it can reach: the command line, and the
 * app's entry point (the desk service's channels, as the renderer calls them). Format and builders:
 * case-kit.ts; files: case-files.ts; run by case-runner.ts. `{dir}` stands for the case's temporary
 * folder.
 *
 * A new case is one line, for instance (files: see `FileSpec`; `…`: the exact words):
 *   manifestCase('manifest-fifo', 'a FIFO named as the manifest', [{ path: MANIFEST, fifo: true }], ['…']),
 *   manifestCase('manifest-device', 'a device as the manifest', [{ path: MANIFEST, symlink: ZERO_DEVICE }], ['…']),
 *   pdfCase('pdf-socket', 'a unix socket named as a PDF', { path: 'doc.pdf', socket: true }, '…', { code: '…', message: '…' }),
 *   pdfCase('pdf-1.9', 'a PDF header of a version that does not exist', { path: 'doc.pdf', text: '%PDF-1.9\n' }, '…', { code: '…', message: '…' }),
 *   manifestCase('pdf-symlink-out', 'a link to a PDF outside the folder', [
 *     { path: 'batch/manifest.csv', text: oneRow(row({ document: 'innocent.pdf' })) },
 *     { path: 'private.pdf', pdf: 'Private' }, { path: 'batch/innocent.pdf', symlink: '../private.pdf' },
 *   ], ['…'], 'batch/manifest.csv'),
 * A case whose child gives no answer within 20 s is stopped (SIGKILL) and fails with that reason.
 */
import { USAGE } from '../../main/cli/cli-args';
import { ZERO_DEVICE, type FileSpec } from './case-files';
import {
  GOOD_PDF,
  GOOD_ROW,
  HEADER,
  MANIFEST,
  addressCase,
  appManifestRun,
  commandLineCase,
  invalidImport,
  manifestCase,
  oneRow,
  pdfCase,
  validateRun,
  type BadInputCase,
} from './case-kit';

const SEND = [
  'send',
  `{dir}/${MANIFEST}`,
  '--base-url',
  'https://sign.example.com',
  '--data-dir',
  '{dir}/cli-data',
];
const MIB = 1024 * 1024;
/** A row of the good document with one value changed. */
const row = (
  change: Partial<Record<'document' | 'reference' | 'type' | 'role' | 'name' | 'email', string>>,
) =>
  [
    change.document ?? 'a.pdf',
    change.reference ?? 'REF-1',
    change.type ?? 'signer',
    change.role ?? 'Employee',
    change.name ?? 'Ann Smith',
    change.email ?? 'ann@example.com',
  ].join(',');
/** The good row with an extra column `name` holding `value`. */
const withColumn = (name: string, value: string) => oneRow(`${GOOD_ROW},${value}`, `${HEADER},${name}`);
const tooManyRows = `${HEADER}\n${Array.from({ length: 50_001 }, (_, index) => row({ email: `p${index}@example.com` })).join('\n')}\n`;
/** The first 100 of 5,000 bad e-mail addresses, then how many more there are. */
const manyProblems = [
  ...Array.from(
    { length: 100 },
    (_, index) => `row ${index + 2}, column F (email): must be a valid e-mail address (got "p${index}@")`,
  ),
  'and 4,900 more problems, not listed here: fix these, then check again',
];
const fourFifos = [1, 2, 3, 4].map(
  (index) =>
    `row ${index + 1}, column A (document): cannot read "pipe${index}.pdf": it is a named pipe (FIFO), not a file`,
);
const linkOut = (document: string) =>
  `row 2, column A (document): cannot read "${document}": it is outside its folder (a symbolic link leads out of it); only files inside the folder are taken`;
const NOT_A_PDF =
  '"doc.pdf" is not a PDF: it does not start with the header of a PDF version that exists (%PDF-1.0 to %PDF-1.7, or %PDF-2.0)';
const NOT_A_PDF_BY_HAND =
  'The file is not a PDF: it does not start with the header of a PDF version that exists (%PDF-1.0 to %PDF-1.7, or %PDF-2.0).';
const HTTP_REMOTE =
  'The base URL must use https:// so the client secret is encrypted on the way; http:// is accepted only for this computer (localhost, 127.0.0.1 to 127.255.255.255, or [::1]).';
const ADDRESS_TOO_LONG =
  'The base URL is too long: 3,025 characters, at most 2,048 are accepted. A service address is much shorter, e.g. https://sign.example.com.';
const KNOWN_COLUMNS =
  'document, external_reference, transaction_type, participant_type, role, name, email, signing_order, is_internal, enforce_order, owner_must_sign, ceremony_mode, meeting_provider, evidence_level, locale';

export const CASES: readonly BadInputCase[] = [
  // The manifest file itself
  manifestCase(
    'manifest-missing',
    'the manifest does not exist',
    [],
    ['the manifest cannot be read: the file does not exist'],
  ),
  manifestCase(
    'manifest-folder',
    'the manifest is a folder',
    [{ path: MANIFEST, folder: true }],
    ['the manifest cannot be read: it is a folder, not a file'],
  ),
  manifestCase('manifest-empty', 'the manifest is an empty file', '', [
    'row 1: the manifest is empty: its first row must name the columns, then one row per participant',
  ]),
  manifestCase('manifest-blank', 'the manifest holds blank lines only', '\n  \n\n', [
    'row 1: the manifest is empty: its first row must name the columns, then one row per participant',
  ]),
  manifestCase(
    'manifest-not-utf8',
    'the manifest is saved in Latin-1 (an accented name in row 2)',
    [
      {
        path: MANIFEST,
        bytes: [
          ...Buffer.from(`${HEADER}\na.pdf,REF-1,signer,Employee,Ann Dupr\xe9,ann@example.com\n`, 'latin1'),
        ],
      },
      GOOD_PDF,
    ],
    [
      'row 2: the file is not in UTF-8, so accented letters would come out wrong: save it again choosing the type "CSV UTF-8" (in Excel: Save As)',
    ],
  ),
  {
    id: 'manifest-is-pdf',
    description: 'a PDF is given as the manifest',
    files: [GOOD_PDF],
    runs: [
      {
        entry: 'cli',
        argv: ['validate', '{dir}/a.pdf'],
        expect: {
          exitCode: 2,
          stdout: ['Invalid: 1 problem. Fix it and run validate again; nothing was sent.'],
          stderr: [
            'A manifest is a CSV file (.csv, or .txt): choose the CSV exported from your spreadsheet.',
          ],
        },
      },
      {
        entry: 'app.manifest',
        path: '{dir}/a.pdf',
        expect: {
          preview: {
            error: {
              code: 'not_a_manifest',
              message:
                'A manifest is a CSV file (.csv, or .txt): choose the CSV exported from your spreadsheet.',
            },
          },
          import: {
            error: {
              code: 'not_a_manifest',
              message:
                'A manifest is a CSV file (.csv, or .txt): choose the CSV exported from your spreadsheet.',
            },
          },
          batchUnchanged: true,
        },
      },
    ],
  },
  manifestCase(
    'manifest-too-large',
    'the manifest is over 16 MiB (a sparse file)',
    [{ path: MANIFEST, sparse: 16 * MIB + 1, start: `${HEADER}\n` }],
    ['the file is too large to be a manifest (over 16 MiB): is it the right file?'],
  ),
  manifestCase(
    'manifest-32-mib',
    'a 32 MiB manifest (it crashed the process out of memory)',
    [{ path: MANIFEST, sparse: 32 * MIB, start: `${HEADER}\n` }],
    ['the file is too large to be a manifest (over 16 MiB): is it the right file?'],
  ),
  manifestCase(
    'manifest-is-xlsx',
    'an Excel workbook renamed .csv',
    [{ path: MANIFEST, bytes: [...Buffer.from('PK\u0003\u0004xl/workbook.xml')] }, GOOD_PDF],
    [
      'the file is a spreadsheet workbook (such as .xlsx), not a CSV: in Excel, use Save As and choose "CSV UTF-8"',
    ],
  ),
  manifestCase(
    'manifest-tabs',
    'a manifest whose columns are separated by tabs',
    oneRow(GOOD_ROW.replaceAll(',', '\t'), HEADER.replaceAll(',', '\t')),
    [
      'row 1: the columns are separated by tabs or another character, but a manifest separates them with commas or semicolons: save it again choosing "CSV UTF-8" (in Excel: Save As)',
    ],
  ),
  manifestCase(
    'manifest-environ',
    "a manifest that is a link to a process's environment (/proc/self/environ, secrets inside)",
    [{ path: MANIFEST, symlink: '/proc/self/environ' }],
    ['the manifest cannot be read: it is a file of the operating system, not a document'],
  ),
  manifestCase(
    'carriage-return-flood',
    '16 MiB of carriage returns after a row with a bad e-mail (it took 2 s and 700 MiB)',
    [
      {
        path: MANIFEST,
        bytes: [
          ...Buffer.from(`${HEADER}\n${row({ email: 'ann@' })}\n`),
          ...Buffer.alloc(16 * MIB - 200, 0x0d),
        ],
      },
      GOOD_PDF,
    ],
    ['row 2, column F (email): must be a valid e-mail address (got "ann@")'],
  ),
  manifestCase(
    'blank-rows-between',
    'two million blank rows between two filled ones',
    `${HEADER}\n${GOOD_ROW}\n${',,,,,\n'.repeat(2_000_000)}${row({ reference: 'REF-2' })}\n`,
    [
      'the manifest has more than 50,000 participant rows, more than can be imported at once: split it into several files',
    ],
  ),
  manifestCase(
    'too-many-documents',
    '20,001 documents',
    `${HEADER}\n${Array.from({ length: 20_001 }, (_, index) => row({ reference: `REF-${index}` })).join('\n')}\n`,
    [
      'the manifest names more than 20,000 documents, more than one batch should hold: split it into several files',
    ],
  ),
  manifestCase(
    'no-break-space-quote',
    'a quote after a no-break space that swallows the rest of the file',
    `${HEADER}\n${row({ role: '\u00a0"Employee' })}\n${Array.from({ length: 2_100 }, (_, index) => row({ reference: `REF-${index + 2}` })).join('\n')}\n`,
    [
      'row 2: this row is longer than 65,536 characters, so it and the rest of the file were not read: is a closing quote (") missing?',
    ],
  ),
  manifestCase(
    'header-line-too-long',
    'a header line of more than 65,536 characters',
    oneRow(GOOD_ROW, `${HEADER},"${'x'.repeat(70_000)}"`),
    [
      'row 1: this row is longer than 65,536 characters, so it and the rest of the file were not read: is a closing quote (") missing?',
    ],
  ),
  manifestCase(
    'manifest-fifo',
    'a FIFO named as the manifest (it hung validate, which then ignored SIGTERM)',
    [{ path: MANIFEST, fifo: true }],
    ['the manifest cannot be read: it is a named pipe (FIFO), not a file'],
  ),
  manifestCase(
    'manifest-device',
    'the manifest is a link to a device that never ends (/dev/zero)',
    [{ path: MANIFEST, symlink: ZERO_DEVICE }],
    ['the manifest cannot be read: it is a file of the operating system, not a document'],
  ),
  manifestCase(
    'manifest-socket',
    'a unix socket named as the manifest',
    [{ path: MANIFEST, socket: true }],
    ['the manifest cannot be read: it is a socket, not a file'],
  ),
  manifestCase(
    'manifest-16-mib-line',
    'a 16 MiB manifest that is one line of delimiters after a value',
    [{ path: MANIFEST, text: `${HEADER}\na.pdf${','.repeat(16 * MIB - 100)}\n` }],
    [
      'row 2: this row has more than 1,000 values, so it and the rest of the file were not read: is it the right file?',
    ],
  ),

  // The header line
  manifestCase('no-header', 'the first line is a participant, not the header', oneRow(GOOD_ROW, GOOD_ROW), [
    'row 1: the first row must name the columns (document, external_reference, participant_type, role, name, email, …), but none of its values is a known column name',
  ]),
  manifestCase('header-only', 'the header line and no participant', `${HEADER}\n`, [
    'the manifest has no participant rows',
  ]),
  manifestCase(
    'missing-column',
    'the email column is missing',
    oneRow('a.pdf,REF-1,signer,Employee,Ann Smith', 'document,external_reference,participant_type,role,name'),
    ['row 1, column "email": this required column is missing from the header row'],
  ),
  manifestCase('duplicate-column', 'the email column appears twice', withColumn('email', 'ann@example.com'), [
    'row 1, column G (email): this column appears twice in the header row (also in column F)',
  ]),
  manifestCase(
    'unknown-column-typo',
    'a misspelt column, close to a known one',
    withColumn('signing_ordr', '1'),
    ['row 1, column G (signing_ordr): unknown column; did you mean "signing_order"?'],
  ),
  manifestCase('unknown-column', 'a column the desk does not know', withColumn('colour', 'blue'), [
    `row 1, column G (colour): unknown column (a typo?); the known columns are ${KNOWN_COLUMNS}`,
  ]),
  manifestCase(
    'header-101-columns',
    'a header line of 101 columns',
    oneRow(GOOD_ROW, [HEADER, ...Array.from({ length: 95 }, (_, index) => `extra${index}`)].join(',')),
    ['row 1: the header row has more than 100 columns: is it the right file?'],
  ),
  manifestCase(
    'header-million-columns',
    'a header of a million unknown columns (2 MB; it took 21 s and 1.4 GB)',
    oneRow(GOOD_ROW, Array.from({ length: 1_000_000 }, () => 'x').join(',')),
    ['row 1: the header row has more than 100 columns: is it the right file?'],
  ),

  // The shape of the rows
  manifestCase('too-many-rows', '50,001 participant rows', tooManyRows, [
    'the manifest has more than 50,000 participant rows, more than can be imported at once: split it into several files',
  ]),
  manifestCase('value-too-long', 'a value of 4,097 characters', oneRow(row({ name: 'n'.repeat(4_097) })), [
    'row 2, column E (name): is longer than 4,096 characters (this one has 4,097): is a closing quote (") missing?',
  ]),
  manifestCase(
    'lost-quote',
    'a lost quote that swallows more than 65,536 characters',
    `${HEADER}\n${row({ role: '"Employee' })}\n${Array.from({ length: 2_100 }, (_, index) => row({ reference: `REF-${index + 2}` })).join('\n')}\n`,
    [
      'row 2: this row is longer than 65,536 characters, so it and the rest of the file were not read: is a closing quote (") missing?',
    ],
  ),
  {
    id: 'many-problems',
    description: '5,000 rows with a bad e-mail each: the first 100 listed, the others counted',
    files: [
      {
        path: MANIFEST,
        text: `${HEADER}\n${Array.from({ length: 5_000 }, (_, index) => row({ reference: `REF-${index}`, email: `p${index}@` })).join('\n')}\n`,
      },
      GOOD_PDF,
    ],
    runs: [
      {
        entry: 'cli',
        argv: ['validate', `{dir}/${MANIFEST}`],
        expect: {
          exitCode: 2,
          stdout: ['Invalid: 5,000 problems. Fix them and run validate again; nothing was sent.'],
          stderr: manyProblems,
        },
      },
      {
        entry: 'app.manifest',
        path: `{dir}/${MANIFEST}`,
        expect: {
          preview: { issues: manyProblems },
          import: { error: invalidImport(5_000) },
          batchUnchanged: true,
        },
      },
    ],
  },
  manifestCase(
    'quote-not-closed',
    'a quoted value whose closing quote is missing',
    oneRow('a.pdf,REF-1,signer,"Employee,Ann Smith,ann@example.com'),
    [
      'row 2: a quoted value starts in this row but its closing quote (") is missing, so the rest of the file was read as one value',
    ],
  ),
  manifestCase('too-many-fields', 'a row with one value more than the header', oneRow(`${GOOD_ROW},extra`), [
    'row 2: has 7 values but the header row has 6 columns (a value that contains "," must be put in quotes)',
  ]),
  manifestCase(
    'too-few-fields',
    'a row with one value less than the header',
    oneRow('a.pdf,REF-1,signer,Employee,Ann Smith'),
    ['row 2: has 5 values but the header row has 6 columns'],
  ),
  manifestCase(
    'unnamed-column-value',
    'a value under a column with no name',
    oneRow(`${GOOD_ROW},extra`, `${HEADER},`),
    ['row 2, column G: has a value, but this column has no name in the header row'],
  ),

  // One participant's values
  manifestCase('required-blank', 'a participant without a name', oneRow(row({ name: '' })), [
    'row 2, column E (name): is required',
  ]),
  manifestCase('email', 'an e-mail address without its domain', oneRow(row({ email: 'anne@' })), [
    'row 2, column F (email): must be a valid e-mail address (got "anne@")',
  ]),
  manifestCase(
    'participant-type',
    'a participant type that is neither signer nor observer',
    oneRow(row({ type: 'approver' })),
    ['row 2, column C (participant_type): must be "signer" or "observer" (got "approver")'],
  ),
  manifestCase(
    'signing-order-word',
    'a signing order written in words',
    withColumn('signing_order', 'first'),
    ['row 2, column G (signing_order): must be a whole number, 1 or more, written in digits (got "first")'],
  ),
  manifestCase('signing-order-zero', 'a signing order of 0', withColumn('signing_order', '0'), [
    'row 2, column G (signing_order): must be at least 1 (got "0")',
  ]),
  manifestCase('role-too-long', 'a role of 101 characters', oneRow(row({ role: 'r'.repeat(101) })), [
    'row 2, column D (role): must be at most 100 characters (this one has 101)',
  ]),
  manifestCase('name-too-long', 'a name of 256 characters', oneRow(row({ name: 'n'.repeat(256) })), [
    'row 2, column E (name): must be at most 255 characters (this one has 256)',
  ]),
  manifestCase('locale', 'a locale that is not language-REGION', withColumn('locale', 'french'), [
    'row 2, column G (locale): must look like language-REGION, e.g. fr-FR (got "french")',
  ]),
  manifestCase('boolean', 'a yes/no column holding "maybe"', withColumn('is_internal', 'maybe'), [
    'row 2, column G (is_internal): must be true or false (yes/no and 1/0 are accepted too) (got "maybe")',
  ]),

  // Rows that must agree
  manifestCase(
    'document-disagreement',
    'two rows of one document with different locales',
    `${HEADER},locale\n${GOOD_ROW},fr-FR\n${row({ name: 'Bob Jones', email: 'bob@example.com' })},de-DE\n`,
    [
      'row 3, column G (locale): must be the same on every row of this document: row 2 has "fr-FR", this row has "de-DE"',
    ],
  ),
  manifestCase(
    'duplicate-email',
    'the same e-mail address twice on one document',
    `${HEADER}\n${GOOD_ROW}\n${row({ name: 'Ann Again' })}\n`,
    [
      'row 3, column F (email): "ann@example.com" is already a recipient of this document in row 2; the service refuses the same e-mail address twice',
    ],
  ),
  manifestCase(
    'reused-reference',
    'one reference for two documents',
    [
      { path: MANIFEST, text: `${HEADER}\n${GOOD_ROW}\n${row({ document: 'b.pdf' })}\n` },
      GOOD_PDF,
      { path: 'b.pdf', pdf: 'Contract B' },
    ],
    [
      'row 3, column B (external_reference): the reference "REF-1" is already used in row 2 for another document ("a.pdf"); each document needs its own reference',
    ],
  ),
  manifestCase(
    'absolute-path',
    'a document named by an absolute path',
    oneRow(row({ document: '/etc/passwd' })),
    [
      'row 2, column A (document): must be a path relative to the manifest\'s folder, not an absolute path, so that the folder can be moved with its PDFs (got "/etc/passwd")',
    ],
  ),
  manifestCase(
    'windows-absolute-path',
    'a document named by a Windows drive path',
    oneRow(row({ document: 'C:\\contracts\\a.pdf' })),
    [
      'row 2, column A (document): must be a path relative to the manifest\'s folder, not an absolute path, so that the folder can be moved with its PDFs (got "C:\\contracts\\a.pdf")',
    ],
  ),
  manifestCase(
    'escaping-path',
    "a document outside the manifest's folder (..)",
    oneRow(row({ document: '../a.pdf' })),
    [
      'row 2, column A (document): must stay inside the manifest\'s folder (".." leads out of it), so that the folder can be moved with its PDFs (got "../a.pdf")',
    ],
  ),

  // The PDFs: named in a manifest, and added by hand
  pdfCase(
    'pdf-missing',
    'the PDF does not exist',
    undefined,
    'cannot read "doc.pdf": the file does not exist',
    {
      code: 'unreadable_file',
      message: 'Cannot read the file: the file does not exist.',
    },
  ),
  pdfCase(
    'pdf-folder',
    'the PDF is a folder',
    { path: 'doc.pdf', folder: true },
    'cannot read "doc.pdf": it is a folder, not a file',
    {
      code: 'unreadable_file',
      message: 'Cannot read the file: it is a folder, not a file.',
    },
  ),
  pdfCase('pdf-empty', 'the PDF is an empty file', { path: 'doc.pdf', text: '' }, '"doc.pdf" is empty', {
    code: 'missing_pdf',
    message: 'The file is empty.',
  }),
  pdfCase(
    'pdf-too-large',
    'the PDF is over 50 MiB (a sparse file)',
    { path: 'doc.pdf', sparse: 50 * MIB + 1, start: '%PDF-1.7\n' },
    '"doc.pdf" is larger than 50 MiB (52,428,800 bytes), the most the service accepts',
    {
      code: 'pdf_too_large',
      message: 'The PDF is larger than 50 MiB (52,428,800 bytes), the most the service accepts.',
    },
  ),
  pdfCase(
    'pdf-fifo',
    'a FIFO named as a PDF',
    { path: 'doc.pdf', fifo: true },
    'cannot read "doc.pdf": it is a named pipe (FIFO), not a file',
    { code: 'unreadable_file', message: 'Cannot read the file: it is a named pipe (FIFO), not a file.' },
  ),
  {
    id: 'pdf-four-fifos',
    description: 'four FIFOs as the PDFs of one manifest (they blocked every file-system thread)',
    files: [
      {
        path: MANIFEST,
        text: `${HEADER}\n${[1, 2, 3, 4].map((index) => row({ document: `pipe${index}.pdf`, reference: `REF-${index}` })).join('\n')}\n`,
      },
      ...[1, 2, 3, 4].map((index): FileSpec => ({ path: `pipe${index}.pdf`, fifo: true })),
    ],
    runs: [
      validateRun(fourFifos),
      appManifestRun(fourFifos),
      {
        entry: 'app.documents',
        paths: [1, 2, 3, 4].map((index) => `{dir}/pipe${index}.pdf`),
        expect: {
          added: 0,
          rejected: [1, 2, 3, 4].map((index) => ({
            path: `{dir}/pipe${index}.pdf`,
            code: 'unreadable_file',
            message: 'Cannot read the file: it is a named pipe (FIFO), not a file.',
          })),
          batchUnchanged: true,
        },
      },
    ],
  },
  pdfCase(
    'pdf-socket',
    'a unix socket named as a PDF',
    { path: 'doc.pdf', socket: true },
    'cannot read "doc.pdf": it is a socket, not a file',
    { code: 'unreadable_file', message: 'Cannot read the file: it is a socket, not a file.' },
  ),
  pdfCase(
    'pdf-device',
    'a link to a device as a PDF (/dev/zero, read forever)',
    { path: 'doc.pdf', symlink: ZERO_DEVICE },
    'cannot read "doc.pdf": it is a file of the operating system, not a document',
    {
      code: 'unreadable_file',
      message: 'Cannot read the file: it is a file of the operating system, not a document.',
    },
  ),
  {
    id: 'pdf-link-out',
    description:
      'innocent.pdf → a private PDF outside the folder, in a manifest and in a folder added in the app',
    files: [
      { path: 'batch/manifest.csv', text: oneRow(row({ document: 'innocent.pdf' })) },
      { path: 'private.pdf', pdf: 'Private' },
      { path: 'batch/innocent.pdf', symlink: '../private.pdf' },
    ],
    runs: [
      validateRun([linkOut('innocent.pdf')], 'batch/manifest.csv'),
      appManifestRun([linkOut('innocent.pdf')], 'batch/manifest.csv'),
      {
        entry: 'app.documents',
        paths: ['{dir}/batch/innocent.pdf'],
        folder: '{dir}/batch',
        expect: {
          added: 0,
          rejected: [
            {
              path: '{dir}/batch/innocent.pdf',
              code: 'unreadable_file',
              message:
                'Cannot read the file: it is outside its folder (a symbolic link leads out of it); only files inside the folder are taken.',
            },
          ],
          batchUnchanged: true,
        },
      },
    ],
  },
  manifestCase(
    'pdf-linked-folder-out',
    'a linked subfolder leading out of the manifest’s folder',
    [
      { path: 'batch/manifest.csv', text: oneRow(row({ document: 'shared/private.pdf' })) },
      { path: 'private.pdf', pdf: 'Private' },
      { path: 'batch/shared', symlink: '..' },
    ],
    [linkOut('shared/private.pdf')],
    'batch/manifest.csv',
  ),
  pdfCase(
    'pdf-1.9',
    'a PDF header of a version that does not exist (%PDF-1.9)',
    { path: 'doc.pdf', text: '%PDF-1.9\n%%EOF\n' },
    NOT_A_PDF,
    { code: 'invalid_pdf', message: NOT_A_PDF_BY_HAND },
  ),
  pdfCase(
    'pdf-3.0',
    'a PDF header of version 3.0',
    { path: 'doc.pdf', text: '%PDF-3.0\n%%EOF\n' },
    NOT_A_PDF,
    { code: 'invalid_pdf', message: NOT_A_PDF_BY_HAND },
  ),
  pdfCase(
    'pdf-is-word',
    'a Word document named .pdf',
    { path: 'doc.pdf', bytes: [...Buffer.from('PK\u0003\u0004word/document.xml')] },
    '"doc.pdf" is not a PDF: it is a Word, Excel or other office document; save or export it as PDF',
    {
      code: 'invalid_pdf',
      message:
        'The file is not a PDF: it is a Word, Excel or other office document. Save or export it as PDF, then add the PDF.',
    },
  ),
  pdfCase(
    'pdf-not-pdf',
    'a text file named .pdf',
    { path: 'doc.pdf', text: 'Minutes of the meeting\n' },
    '"doc.pdf" is not a PDF: it does not start with the header of a PDF version that exists (%PDF-1.0 to %PDF-1.7, or %PDF-2.0)',
    {
      code: 'invalid_pdf',
      message:
        'The file is not a PDF: it does not start with the header of a PDF version that exists (%PDF-1.0 to %PDF-1.7, or %PDF-2.0).',
    },
  ),

  // The command line's options
  commandLineCase(
    'concurrency-zero',
    '--concurrency 0',
    [...SEND, '--concurrency', '0'],
    ['--concurrency must be at least 1'],
  ),
  commandLineCase(
    'concurrency-too-high',
    '--concurrency 17',
    [...SEND, '--concurrency', '17'],
    ['--concurrency must be at most 16'],
  ),
  commandLineCase(
    'concurrency-word',
    '--concurrency four',
    [...SEND, '--concurrency', 'four'],
    ['--concurrency must be a whole number'],
  ),
  commandLineCase(
    'unknown-option',
    'an option the command line does not have',
    ['validate', `{dir}/${MANIFEST}`, '--colour'],
    [
      "Unknown option '--colour'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--colour\"",
      '',
      ...USAGE.split('\n'),
    ],
  ),
  commandLineCase('missing-data-dir', 'send without --data-dir', SEND.slice(0, 4), [
    'send needs --data-dir DIR.',
  ]),

  // The service's address: the command line's --base-url and the app's connection form
  addressCase('address-http-remote', 'http:// to another computer', 'http://sign.example.com', HTTP_REMOTE),
  addressCase(
    'address-credentials',
    'a user name and password in the address',
    'https://user:pass@sign.example.com',
    'The base URL cannot contain a user name or password; the client id and secret are entered separately.',
  ),
  addressCase(
    'address-query',
    'a query in the address',
    'https://sign.example.com/?tenant=1',
    'The base URL cannot contain a query (?…) or fragment (#…).',
  ),
  addressCase(
    'address-fragment',
    'a fragment in the address',
    'https://sign.example.com/#signing',
    'The base URL cannot contain a query (?…) or fragment (#…).',
  ),
  addressCase(
    'address-ftp',
    'an ftp:// address',
    'ftp://sign.example.com',
    'The base URL must start with https://, e.g. https://sign.example.com.',
  ),
  addressCase(
    'address-too-long',
    'an address of 3,000 characters',
    `https://sign.example.com/${'a'.repeat(3_000)}`,
    ADDRESS_TOO_LONG,
  ),
  addressCase(
    'address-localhost-dot',
    'http:// to "localhost." (a name the network may resolve elsewhere)',
    'http://localhost./',
    HTTP_REMOTE,
  ),
  addressCase(
    'address-no-scheme',
    'a host name without https://',
    'sign.example.com',
    'The base URL must be a full address, e.g. https://sign.example.com.',
  ),
];
