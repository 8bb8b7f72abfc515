import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  checkManifest,
  formatIssue,
  MAX_FIELD_CHARS,
  MAX_LINE_CHARS,
  MAX_LINE_VALUES,
  MAX_LISTED_ISSUES,
  MAX_MANIFEST_COLUMNS,
  MAX_MANIFEST_DOCUMENTS,
  MAX_MANIFEST_ROWS,
  parseManifest,
  type ManifestCheck,
} from '../../../main/manifest/manifest';
import { MAX_PDF_BYTES } from '../../../shared/service/limits';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';

const SAMPLES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../samples');
const HEADER = 'document,external_reference,participant_type,role,name,email,signing_order';
const ROW = 'a.pdf,REF-1,signer,Employee,Anne Dupré,anne@example.com,1';

/** A manifest as written by hand: one line per argument, LF endings. */
function csv(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

function messages(check: ManifestCheck): string[] {
  return check.issues.map((issue) => formatIssue(issue));
}

describe('the sample manifest (samples/manifest.csv)', () => {
  const manifestPath = join(SAMPLES_DIR, 'manifest.csv');
  const bytes = readFileSync(manifestPath);

  it('is what Excel exports in a French locale: BOM, semicolons, CRLF', () => {
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8');
    expect(text.split('\n')[0]).toMatch(/^\uFEFFdocument;external_reference;.*\r$/);
    expect(text.endsWith('\r\n')).toBe(true);
  });

  it('parses with no issue into 3 documents with their recipients and options', async () => {
    const check = await parseManifest(bytes, SAMPLES_DIR);
    expect(check.issues).toEqual([]);
    expect(check.documents.map((document) => document.externalReference)).toEqual([
      'RH-2026-0142',
      'NDA-2026-017',
      'RH-2026-0143',
    ]);
    const [contract, nda, amendment] = check.documents;

    expect(contract).toMatchObject({
      pdfPath: join(SAMPLES_DIR, 'pdfs', 'Contrat de travail - Anne Dupré.pdf'),
      documentColumn: 'pdfs/Contrat de travail - Anne Dupré.pdf',
      transactionType: 'Contrat de travail',
      options: { transactionType: 'Contrat de travail', enforceOrder: true, locale: 'fr-FR' },
      rows: [2, 3, 4],
      storedFilename: 'Contrat_de_travail_-_Anne_Dupre.pdf',
    });
    expect(contract?.recipients).toEqual([
      {
        participant_type: 'signer',
        is_internal: true,
        role: 'Direction; Ressources humaines',
        name: 'Jürgen Müller',
        email: 'juergen.mueller@example.com',
        signing_order: 1,
      },
      {
        participant_type: 'signer',
        role: 'Salariée',
        name: 'Anne Dupré',
        email: 'anne.dupre@example.com',
        signing_order: 2,
      },
      {
        participant_type: 'observer',
        is_internal: true,
        role: 'Service paie',
        name: 'Zoë Lefèvre',
        email: 'zoe.lefevre@example.com',
      },
    ]);

    // The quoted role spans lines 5 and 6 of the text but is one row (5), as in Excel: the next
    // document starts on row 6.
    expect(nda).toMatchObject({
      options: { transactionType: 'Accord de confidentialité', enforceOrder: false, locale: 'fr-FR' },
      rows: [5],
      storedFilename: 'Accord_de_confidentialite_-_Berenice_Chateau.pdf',
    });
    expect(nda?.recipients[0]?.role).toBe('Gérante\n(signature sociale)');
    expect(nda?.recipients[0]?.name).toBe('Bérénice Château');

    // Blank per-document cells on the second row mean "the same as above".
    expect(amendment).toMatchObject({
      transactionType: 'Avenant',
      options: { transactionType: 'Avenant', enforceOrder: true, locale: 'fr-FR' },
      rows: [6, 7],
    });
    expect(amendment?.recipients.map((recipient) => [recipient.name, recipient.is_internal])).toEqual([
      ['Jürgen Müller', undefined],
      ['Hélène Dubois-Marchand', true],
    ]);
  });

  it('references real PDFs under 5 KB, whose digest checkManifest records', async () => {
    const check = await checkManifest(manifestPath);
    expect(check.issues).toEqual([]);
    expect(check.documents).toHaveLength(3);
    for (const document of check.documents) {
      const pdf = readFileSync(document.pdfPath);
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(pdf.length).toBeLessThan(5 * 1024);
      expect(document.pdf).toEqual({
        sha256: createHash('sha256').update(pdf).digest('hex'),
        sizeBytes: pdf.length,
      });
    }
  });

  it('has a companion with typical mistakes, each named with its row and column', async () => {
    const check = await checkManifest(join(SAMPLES_DIR, 'manifest-with-errors.csv'));
    expect(messages(check)).toEqual([
      'row 3, column G (email): must be a valid e-mail address (got "anne.dupre@example")',
      'row 4, column E (role): must be at most 100 characters (this one has 115)',
      'row 5, column F (name): is required',
      'row 6, column H (signing_order): must be at least 1 (got "0")',
      'row 7, column K (locale): must be the same on every row of this document: row 6 has "fr-FR", this row has "de-DE"',
      'row 8, column A (document): cannot read "pdfs/Contrat de travail - Marc Perrin.pdf": the file does not exist',
    ]);
    expect(check.documents).toEqual([]);
  });
});

describe('CSV dialects', () => {
  const lines = [
    'document;external_reference;participant_type;role;name;email;signing_order;locale',
    'a.pdf;REF-1;signer;Employee;Anne Dupré;anne@example.com;1;fr-FR',
    'a.pdf;REF-1;observer;"HR; payroll";Zoë Lefèvre;zoe@example.com;;',
    'b.pdf;REF-2;signer;"Manager',
    'on site";Jürgen Müller;jurgen@example.com;1;de-DE',
  ];
  const semicolonLf = `${lines.join('\n')}\n`;
  let baseline: ManifestCheck;
  beforeAll(async () => {
    baseline = await parseManifest(semicolonLf, '/manifests');
  });

  it('reads a semicolon-delimited file, keeping embedded delimiters and line breaks', () => {
    expect(baseline.issues).toEqual([]);
    expect(
      baseline.documents.map((document) => document.recipients.map((recipient) => recipient.role)),
    ).toEqual([['Employee', 'HR; payroll'], ['Manager\non site']]);
    expect(baseline.documents.map((document) => document.rows)).toEqual([[2, 3], [4]]);
    expect(baseline.documents[0]?.pdfPath).toBe(resolve('/manifests', 'a.pdf'));
  });

  it('detects a comma delimiter and gives the same result', async () => {
    const comma = csv(
      'document,external_reference,participant_type,role,name,email,signing_order,locale',
      'a.pdf,REF-1,signer,Employee,Anne Dupré,anne@example.com,1,fr-FR',
      'a.pdf,REF-1,observer,"HR; payroll",Zoë Lefèvre,zoe@example.com,,',
      'b.pdf,REF-2,signer,"Manager',
      'on site",Jürgen Müller,jurgen@example.com,1,de-DE',
    );
    expect(await parseManifest(comma, '/manifests')).toEqual(baseline);
  });

  it('ignores delimiters inside quoted header names when detecting', async () => {
    const quotedHeader = csv(
      '"document","external_reference","participant_type","role","name","email","signing_order","locale"',
      'a.pdf,REF-1,signer,"a;b;c;d;e;f;g;h;i",Anne Dupré,anne@example.com,1,fr-FR',
    );
    expect((await parseManifest(quotedHeader, '/manifests')).documents[0]?.recipients[0]?.role).toBe(
      'a;b;c;d;e;f;g;h;i',
    );
  });

  it('reads UTF-8 with or without BOM, as bytes or text', async () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(semicolonLf, 'utf8')]);
    expect(await parseManifest(withBom, '/manifests')).toEqual(baseline);
    expect(await parseManifest(Buffer.from(semicolonLf, 'utf8'), '/manifests')).toEqual(baseline);
    expect(await parseManifest(`\uFEFF${semicolonLf}`, '/manifests')).toEqual(baseline);
  });

  it('reads CRLF like LF, including line breaks inside quoted values', async () => {
    expect(await parseManifest(semicolonLf.replace(/\n/g, '\r\n'), '/manifests')).toEqual(baseline);
  });

  it('reads a file without a final line break', async () => {
    expect(await parseManifest(semicolonLf.trimEnd(), '/manifests')).toEqual(baseline);
  });

  it('unescapes doubled quotes', async () => {
    const check = await parseManifest(
      csv(HEADER, 'a.pdf,REF-1,signer,"Directeur ""commercial"", Lyon",Anne Dupré,anne@example.com,1'),
      '/m',
    );
    expect(check.issues).toEqual([]);
    expect(check.documents[0]?.recipients[0]?.role).toBe('Directeur "commercial", Lyon');
  });

  it('reads hand-written files: spaces after delimiters, quotes inside unquoted values', async () => {
    const check = await parseManifest(
      csv(HEADER, 'a.pdf, REF-1, signer, "Head of sales, Lyon", Jean "JJ" Dupont, jj@example.com, 1'),
      '/m',
    );
    expect(check.issues).toEqual([]);
    expect(check.documents[0]?.recipients[0]).toMatchObject({
      role: 'Head of sales, Lyon',
      name: 'Jean "JJ" Dupont',
    });
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ])('counts a record with multi-line values as one row, as a spreadsheet does (%s)', async (_, newline) => {
    const text = [
      HEADER,
      'a.pdf,REF-1,signer,"Line one',
      'line two',
      'line three",Anne Dupré,anne@example.com,1',
      '',
      'a.pdf,REF-1,signer,Employee,Bob,bob@,1',
      'a.pdf,REF-1,signer,"Two',
      'lines",Carl,,2',
    ].join(newline);
    expect(messages(await parseManifest(text, '/m'))).toEqual([
      'row 4, column F (email): must be a valid e-mail address (got "bob@")',
      'row 5, column F (email): is required',
    ]);
  });

  it('skips empty lines and the blank rows Excel exports as a line of delimiters', async () => {
    const check = await parseManifest(
      `\n${HEADER}\n\n${ROW}\n,,,,,,\n  \n , ,\nb.pdf,REF-2,signer,Employee,Bob,bob@example.com,x\nb.pdf\n`,
      '/m',
    );
    expect(messages(check)).toEqual([
      'row 8, column G (signing_order): must be a whole number, 1 or more, written in digits (got "x")',
      'row 9: has 1 value but the header row has 7 columns',
    ]);
    expect(check.documents.map((document) => document.rows)).toEqual([[4]]);
  });

  it('matches header names case-insensitively after trimming, in any order', async () => {
    const check = await parseManifest(
      csv(
        ' EMAIL ,Name,Role,Participant_Type,External_Reference,DOCUMENT',
        'anne@example.com,Anne,Boss,Signer,R-1,a.pdf',
      ),
      '/m',
    );
    expect(check.issues).toEqual([]);
    expect(check.documents[0]?.recipients).toEqual([
      { participant_type: 'signer', role: 'Boss', name: 'Anne', email: 'anne@example.com' },
    ]);
  });

  it('trims values and accepts the usual spellings of booleans, including Excel French and German', async () => {
    const check = await parseManifest(
      csv(
        'document,external_reference,participant_type,role,name,email,is_internal,enforce_order,owner_must_sign',
        ' a.pdf , REF-1 , signer ,  Boss , Anne , anne@example.com ,YES,VRAI,falsch',
        'a.pdf,REF-1,signer,Clerk,Bob,bob@example.com,0,,',
        'b.pdf,REF-2,signer,Clerk,Carl,carl@example.com,False,no,WAHR',
      ),
      '/m',
    );
    expect(check.issues).toEqual([]);
    expect(
      check.documents.map((document) => [document.options, document.recipients.map((r) => r.is_internal)]),
    ).toEqual([
      [{ enforceOrder: true, ownerMustSign: false }, [true, false]],
      [{ enforceOrder: false, ownerMustSign: true }, [false]],
    ]);
  });

  it('takes every per-document column, and Windows-style relative paths', async () => {
    const check = await parseManifest(
      csv(
        'document,external_reference,transaction_type,participant_type,role,name,email,enforce_order,owner_must_sign,ceremony_mode,meeting_provider,evidence_level,locale',
        'contracts\\2026\\offer.pdf,R-1,employment,signer,Boss,Anne,anne@example.com,true,false,video,teams,advanced,de-DE',
        './contracts/2026/offer.pdf,R-1,,signer,Clerk,Bob,bob@example.com,,,,,,',
      ),
      '/m',
    );
    expect(check.issues).toEqual([]);
    expect(check.documents).toEqual([
      expect.objectContaining({
        pdfPath: resolve('/m', 'contracts', '2026', 'offer.pdf'),
        transactionType: 'employment',
        options: {
          transactionType: 'employment',
          enforceOrder: true,
          ownerMustSign: false,
          ceremonyMode: 'video',
          meetingProvider: 'teams',
          evidenceLevel: 'advanced',
          locale: 'de-DE',
        },
        rows: [2, 3],
        storedFilename: 'offer.pdf',
      }),
    ]);
  });

  it('keeps the same PDF under two references as two documents', async () => {
    const check = await parseManifest(
      csv(HEADER, ROW, 'a.pdf,REF-2,signer,Employee,Anne Dupré,anne@example.com,1'),
      '/m',
    );
    expect(check.issues).toEqual([]);
    expect(check.documents.map((document) => document.externalReference)).toEqual(['REF-1', 'REF-2']);
  });
});

describe('formatIssue', () => {
  it('names the row and, when there is one, the column by its letter and its name', () => {
    expect(formatIssue({ row: 4, column: 'email', columnIndex: 5, message: 'is required' })).toBe(
      'row 4, column F (email): is required',
    );
    expect(formatIssue({ row: 4, column: undefined, columnIndex: 27, message: 'has a value' })).toBe(
      'row 4, column AB: has a value',
    );
    expect(formatIssue({ row: 1, column: 'email', message: 'is missing' })).toBe(
      'row 1, column "email": is missing',
    );
    expect(formatIssue({ row: 4, column: undefined, message: 'broken' })).toBe('row 4: broken');
    expect(formatIssue({ row: 0, column: undefined, message: 'the manifest has no participant rows' })).toBe(
      'the manifest has no participant rows',
    );
  });
});

interface BadCase {
  readonly name: string;
  readonly manifest: string | Buffer;
  /** Creates the odd files the case needs next to the manifest. */
  readonly prepare?: (folder: TempFolder) => void | Promise<void>;
  readonly expected: readonly string[];
}

const KNOWN_COLUMNS =
  'document, external_reference, transaction_type, participant_type, role, name, email, signing_order, is_internal, enforce_order, owner_must_sign, ceremony_mode, meeting_provider, evidence_level, locale';
const NOT_UTF8 =
  'the file is not in UTF-8, so accented letters would come out wrong: save it again choosing the type "CSV UTF-8" (in Excel: Save As)';

function manyRows(count: number): string {
  const rows = Array.from(
    { length: count },
    (_, index) => `a.pdf,REF-${index},signer,Employee,Anne,anne@example.com,1`,
  );
  return csv(HEADER, ...rows);
}

const BAD_CASES: readonly BadCase[] = [
  {
    name: 'missing required column',
    manifest: csv(
      'document,external_reference,participant_type,role,name',
      'a.pdf,REF-1,signer,Employee,Anne',
    ),
    expected: ['row 1, column "email": this required column is missing from the header row'],
  },
  {
    name: 'unknown column that looks like a typo',
    manifest: csv(HEADER.replace('email', 'E-mail'), ROW),
    expected: [
      'row 1, column F (E-mail): unknown column; did you mean "email"?',
      'row 1, column "email": this required column is missing from the header row',
    ],
  },
  {
    name: 'unknown column',
    manifest: csv(`${HEADER},notes`, `${ROW},call first`),
    expected: [`row 1, column H (notes): unknown column (a typo?); the known columns are ${KNOWN_COLUMNS}`],
  },
  {
    name: 'column given twice',
    manifest: csv(`${HEADER},role`, `${ROW},Boss`),
    expected: ['row 1, column H (role): this column appears twice in the header row (also in column D)'],
  },
  {
    name: 'no header line',
    manifest: csv(ROW, ROW),
    expected: [
      'row 1: the first row must name the columns (document, external_reference, participant_type, role, name, email, …), but none of its values is a known column name',
    ],
  },
  {
    name: 'more fields than the header (an unquoted comma)',
    manifest: csv(HEADER, 'a.pdf,REF-1,signer,Employee,Dupré, Anne,anne@example.com,1'),
    expected: [
      'row 2: has 8 values but the header row has 7 columns (a value that contains "," must be put in quotes)',
    ],
  },
  {
    name: 'fewer fields than the header',
    manifest: csv(HEADER, 'a.pdf,REF-1,signer,Employee,Anne Dupré,anne@example.com'),
    expected: ['row 2: has 6 values but the header row has 7 columns'],
  },
  {
    name: 'value under a column with no name',
    manifest: csv(`${HEADER},`, `${ROW},oops`),
    expected: ['row 2, column H: has a value, but this column has no name in the header row'],
  },
  {
    name: 'quoted value never closed',
    manifest: csv(HEADER, ROW, 'b.pdf,REF-2,signer,"Employee,Bob,bob@example.com,1', ROW),
    expected: [
      'row 3: a quoted value starts in this row but its closing quote (") is missing, so the rest of the file was read as one value',
    ],
  },
  {
    name: 'empty e-mail',
    manifest: csv(HEADER, 'a.pdf,REF-1,signer,Employee,Anne Dupré,  ,1'),
    expected: ['row 2, column F (email): is required'],
  },
  {
    name: 'invalid e-mail',
    manifest: csv(HEADER, 'a.pdf,REF-1,signer,Employee,Anne Dupré,anne@,1'),
    expected: ['row 2, column F (email): must be a valid e-mail address (got "anne@")'],
  },
  {
    name: 'role of 101 characters',
    manifest: csv(HEADER, `a.pdf,REF-1,signer,${'r'.repeat(101)},Anne Dupré,anne@example.com,1`),
    expected: ['row 2, column D (role): must be at most 100 characters (this one has 101)'],
  },
  {
    name: 'name of 256 characters',
    manifest: csv(HEADER, `a.pdf,REF-1,signer,Employee,${'n'.repeat(256)},anne@example.com,1`),
    expected: ['row 2, column E (name): must be at most 255 characters (this one has 256)'],
  },
  {
    name: 'missing name and role',
    manifest: csv(HEADER, 'a.pdf,REF-1,signer,,,anne@example.com,1'),
    expected: ['row 2, column D (role): is required', 'row 2, column E (name): is required'],
  },
  {
    name: 'unknown participant type',
    manifest: csv(HEADER, 'a.pdf,REF-1,approver,Employee,Anne Dupré,anne@example.com,1'),
    expected: ['row 2, column C (participant_type): must be "signer" or "observer" (got "approver")'],
  },
  {
    name: 'signing_order 0',
    manifest: csv(HEADER, 'a.pdf,REF-1,signer,Employee,Anne Dupré,anne@example.com,0'),
    expected: ['row 2, column G (signing_order): must be at least 1 (got "0")'],
  },
  {
    name: 'signing_order -1',
    manifest: csv(HEADER, 'a.pdf,REF-1,signer,Employee,Anne Dupré,anne@example.com,-1'),
    expected: [
      'row 2, column G (signing_order): must be a whole number, 1 or more, written in digits (got "-1")',
    ],
  },
  {
    name: 'signing_order 1.5',
    manifest: csv(HEADER, 'a.pdf,REF-1,signer,Employee,Anne Dupré,anne@example.com,1.5'),
    expected: [
      'row 2, column G (signing_order): must be a whole number, 1 or more, written in digits (got "1.5")',
    ],
  },
  {
    name: 'signing_order in words',
    manifest: csv(HEADER, 'a.pdf,REF-1,signer,Employee,Anne Dupré,anne@example.com,first'),
    expected: [
      'row 2, column G (signing_order): must be a whole number, 1 or more, written in digits (got "first")',
    ],
  },
  {
    name: 'is_internal that is not a boolean',
    manifest: csv(`${HEADER},is_internal`, `${ROW},maybe`),
    expected: [
      'row 2, column H (is_internal): must be true or false (yes/no and 1/0 are accepted too) (got "maybe")',
    ],
  },
  {
    name: 'invalid locale',
    manifest: csv(`${HEADER},locale`, `${ROW},fr_FR`),
    expected: ['row 2, column H (locale): must look like language-REGION, e.g. fr-FR (got "fr_FR")'],
  },
  {
    name: 'per-document column that disagrees across the rows of a document',
    manifest: csv(
      `${HEADER},enforce_order`,
      `${ROW},true`,
      'a.pdf,REF-1,signer,Manager,Bob,bob@example.com,2,',
      'a.pdf,REF-1,observer,HR,Carl,carl@example.com,,no',
    ),
    expected: [
      'row 4, column H (enforce_order): must be the same on every row of this document: row 2 has "true", this row has "no"',
    ],
  },
  {
    name: 'same e-mail twice in one document',
    manifest: csv(HEADER, ROW, 'a.pdf,REF-1,observer,HR,Anne D.,Anne@Example.com,'),
    expected: [
      'row 3, column F (email): "Anne@Example.com" is already a recipient of this document in row 2; the service refuses the same e-mail address twice',
    ],
  },
  {
    name: 'external_reference reused for another document',
    manifest: csv(HEADER, ROW, 'b.pdf,REF-1,signer,Employee,Bob,bob@example.com,1'),
    expected: [
      'row 3, column B (external_reference): the reference "REF-1" is already used in row 2 for another document ("a.pdf"); each document needs its own reference',
    ],
  },
  {
    name: 'absolute path',
    manifest: csv(HEADER, ROW.replace('a.pdf', '/home/anne/a.pdf')),
    expected: [
      'row 2, column A (document): must be a path relative to the manifest\'s folder, not an absolute path, so that the folder can be moved with its PDFs (got "/home/anne/a.pdf")',
    ],
  },
  {
    name: 'absolute Windows path',
    manifest: csv(HEADER, ROW.replace('a.pdf', 'C:\\Contrats\\a.pdf')),
    expected: [
      'row 2, column A (document): must be a path relative to the manifest\'s folder, not an absolute path, so that the folder can be moved with its PDFs (got "C:\\Contrats\\a.pdf")',
    ],
  },
  {
    name: 'path escaping the manifest folder',
    manifest: csv(HEADER, ROW.replace('a.pdf', 'pdfs/../../a.pdf')),
    expected: [
      'row 2, column A (document): must stay inside the manifest\'s folder (".." leads out of it), so that the folder can be moved with its PDFs (got "pdfs/../../a.pdf")',
    ],
  },
  {
    name: 'missing PDF file',
    manifest: csv(HEADER, ROW, ROW.replace('a.pdf', 'contrat été.pdf').replace('REF-1', 'REF-2')),
    expected: ['row 3, column A (document): cannot read "contrat été.pdf": the file does not exist'],
  },
  {
    name: 'empty PDF file',
    manifest: csv(HEADER, ROW.replace('a.pdf', 'empty.pdf')),
    prepare: (folder) => writeFileSync(folder.file('empty.pdf'), ''),
    expected: ['row 2, column A (document): "empty.pdf" is empty'],
  },
  {
    name: 'not a PDF (a PNG renamed)',
    manifest: csv(HEADER, ROW.replace('a.pdf', 'scan.pdf')),
    prepare: (folder) =>
      writeFileSync(
        folder.file('scan.pdf'),
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
      ),
    expected: [
      'row 2, column A (document): "scan.pdf" is not a PDF: it is an image; print or export it to PDF',
    ],
  },
  {
    name: 'PDF over 50 MiB',
    manifest: csv(HEADER, ROW.replace('a.pdf', 'huge.pdf')),
    prepare: (folder) => {
      // A sparse file: the header is real, the rest is a hole the file system does not store.
      const descriptor = openSync(folder.file('huge.pdf'), 'w');
      writeSync(descriptor, '%PDF-1.7\n');
      ftruncateSync(descriptor, MAX_PDF_BYTES + 1);
      closeSync(descriptor);
    },
    expected: [
      'row 2, column A (document): "huge.pdf" is larger than 50 MiB (52,428,800 bytes), the most the service accepts',
    ],
  },
  {
    name: 'a folder instead of a PDF',
    manifest: csv(HEADER, ROW.replace('a.pdf', 'contracts')),
    prepare: (folder) => mkdirSync(folder.file('contracts')),
    expected: ['row 2, column A (document): cannot read "contracts": it is a folder, not a file'],
  },
  {
    name: 'Windows-1252 bytes',
    manifest: Buffer.from(csv(HEADER, ROW, ROW.replace('REF-1', 'REF-2')), 'latin1'),
    expected: [`row 2: ${NOT_UTF8}`],
  },
  {
    name: 'UTF-16 (Excel "Unicode text")',
    manifest: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(csv(HEADER, ROW), 'utf16le')]),
    expected: [
      'the file is in UTF-16 (Excel\'s "Unicode Text"), not a CSV in UTF-8: save it again choosing the type "CSV UTF-8" (in Excel: Save As)',
    ],
  },
  {
    name: 'empty manifest',
    manifest: '',
    expected: [
      'row 1: the manifest is empty: its first row must name the columns, then one row per participant',
    ],
  },
  {
    name: 'manifest of blank lines and a BOM',
    manifest: '\uFEFF\r\n\r\n',
    expected: [
      'row 1: the manifest is empty: its first row must name the columns, then one row per participant',
    ],
  },
  {
    name: 'header only',
    manifest: csv(HEADER),
    expected: ['the manifest has no participant rows'],
  },
  {
    name: 'header only, with a typo',
    manifest: csv(`${HEADER},Locale ,nom`),
    expected: [
      'the manifest has no participant rows',
      'row 1, column I (nom): unknown column; did you mean "name"?',
    ],
  },
  {
    name: 'too many rows',
    manifest: manyRows(MAX_MANIFEST_ROWS + 1),
    expected: [
      'the manifest has more than 50,000 participant rows, more than can be imported at once: split it into several files',
    ],
  },
  {
    name: 'a FIFO instead of a PDF (it would block a reader for as long as nobody writes to it)',
    manifest: csv(HEADER, ROW.replace('a.pdf', 'pipe.pdf')),
    prepare: (folder) => makeFifo(folder.file('pipe.pdf')),
    expected: ['row 2, column A (document): cannot read "pipe.pdf": it is a named pipe (FIFO), not a file'],
  },
  {
    name: 'four FIFOs instead of PDFs',
    manifest: csv(
      HEADER,
      ...[1, 2, 3, 4].map((index) =>
        ROW.replace('a.pdf', `pipe${index}.pdf`).replace('REF-1', `REF-${index}`),
      ),
    ),
    prepare: (folder) => [1, 2, 3, 4].forEach((index) => makeFifo(folder.file(`pipe${index}.pdf`))),
    expected: [1, 2, 3, 4].map(
      (index) =>
        `row ${index + 1}, column A (document): cannot read "pipe${index}.pdf": it is a named pipe (FIFO), not a file`,
    ),
  },
  {
    name: 'a socket instead of a PDF',
    manifest: csv(HEADER, ROW.replace('a.pdf', 's.pdf')),
    prepare: async (folder) => {
      await listenOn(folder.file('s.pdf'));
    },
    expected: ['row 2, column A (document): cannot read "s.pdf": it is a socket, not a file'],
  },
  {
    name: 'a symbolic link leading out of the folder (innocent.pdf → /elsewhere/private.pdf)',
    manifest: csv(HEADER, ROW.replace('a.pdf', 'innocent.pdf')),
    prepare: (folder) => {
      const elsewhere = elsewhereFolder();
      copyFileSync(folder.file('a.pdf'), join(elsewhere, 'private.pdf'));
      symlinkSync(join(elsewhere, 'private.pdf'), folder.file('innocent.pdf'));
    },
    expected: [
      'row 2, column A (document): cannot read "innocent.pdf": it is outside its folder (a symbolic link leads out of it); only files inside the folder are taken',
    ],
  },
  {
    name: 'a linked subfolder leading out of the folder',
    manifest: csv(HEADER, ROW.replace('a.pdf', 'shared/private.pdf')),
    prepare: (folder) => {
      const elsewhere = elsewhereFolder();
      copyFileSync(folder.file('a.pdf'), join(elsewhere, 'private.pdf'));
      symlinkSync(elsewhere, folder.file('shared'));
    },
    expected: [
      'row 2, column A (document): cannot read "shared/private.pdf": it is outside its folder (a symbolic link leads out of it); only files inside the folder are taken',
    ],
  },
  {
    name: 'a symbolic link to a device, which would be read forever',
    manifest: csv(HEADER, ROW.replace('a.pdf', 'zero.pdf')),
    prepare: (folder) => symlinkSync('/dev/zero', folder.file('zero.pdf')),
    expected: [
      'row 2, column A (document): cannot read "zero.pdf": it is a file of the operating system, not a document',
    ],
  },
  {
    name: 'a million blank Excel rows after the filled ones (its whole "used range")',
    manifest: Buffer.from(`${HEADER}\r\n${ROW}\r\n${',,,,,,\r\n'.repeat(1_048_000)}`),
    expected: [],
  },
  {
    name: '16 MiB of carriage returns after the rows',
    manifest: Buffer.from(`${HEADER}\n${ROW}\n${'\r'.repeat(16 * 1024 * 1024 - 200)}`),
    expected: [],
  },
  {
    name: 'millions of blank rows between filled ones',
    manifest: csv(HEADER, ROW, ',,,,,,\n'.repeat(2_000_000), ROW.replace('REF-1', 'REF-2')),
    expected: [
      'the manifest has more than 50,000 participant rows, more than can be imported at once: split it into several files',
    ],
  },
  {
    name: 'a quote after a no-break space opens a value that swallows the rest',
    manifest: csv(
      HEADER,
      ROW,
      ROW.replace('REF-1', 'REF-2').replace('Employee', '\u00a0"Employee'),
      ...Array.from({ length: MAX_LINE_CHARS / 32 }, (_, index) =>
        ROW.replace('REF-1', `REF-${index + 3}`).replace('anne@', `anne${index}@`),
      ),
    ),
    expected: [
      'row 3: this row is longer than 65,536 characters, so it and the rest of the file were not read: is a closing quote (") missing?',
    ],
  },
  {
    name: 'a header line longer than 65,536 characters',
    manifest: csv(`${HEADER},"${'x'.repeat(70_000)}"`, ROW),
    expected: [
      'row 1: this row is longer than 65,536 characters, so it and the rest of the file were not read: is a closing quote (") missing?',
    ],
  },
  {
    name: 'an unknown column repeated, and one with a very long name',
    manifest: csv(`${HEADER},notes,notes,${'n'.repeat(200)}`, `${ROW},,,`),
    expected: [
      `row 1, column H (notes): unknown column (a typo?); the known columns are ${KNOWN_COLUMNS}`,
      `row 1, column J (${'n'.repeat(59)}…): unknown column (a typo?); the known columns are ${KNOWN_COLUMNS}`,
    ],
  },
  {
    name: 'a value under an unnamed column that follows a spreadsheet’s own columns',
    manifest: csv(`${HEADER},notes,,colour`, `${ROW},call first,oops,blue`),
    expected: [
      `row 1, column H (notes): unknown column (a typo?); the known columns are ${KNOWN_COLUMNS}`,
      `row 1, column J (colour): unknown column (a typo?); the known columns are ${KNOWN_COLUMNS}`,
      'row 2, column I: has a value, but this column has no name in the header row',
    ],
  },
  {
    name: 'a Word document named .pdf',
    manifest: csv(HEADER, ROW.replace('a.pdf', 'letter.pdf')),
    prepare: (folder) =>
      writeFileSync(folder.file('letter.pdf'), Buffer.from('PK\u0003\u0004word/document.xml')),
    expected: [
      'row 2, column A (document): "letter.pdf" is not a PDF: it is a Word, Excel or other office document; save or export it as PDF',
    ],
  },
  {
    name: 'an Excel workbook named .csv',
    manifest: Buffer.from('PK\u0003\u0004xl/workbook.xml'),
    expected: [
      'the file is a spreadsheet workbook (such as .xlsx), not a CSV: in Excel, use Save As and choose "CSV UTF-8"',
    ],
  },
  {
    name: 'columns separated by tabs (Excel’s "Text (Tab delimited)")',
    manifest: csv(HEADER.replaceAll(',', '\t'), ROW.replaceAll(',', '\t')),
    expected: [
      'row 1: the columns are separated by tabs or another character, but a manifest separates them with commas or semicolons: save it again choosing "CSV UTF-8" (in Excel: Save As)',
    ],
  },
  {
    name: 'a PDF named with other capitals, and one with decomposed accents (copied from a Mac)',
    manifest: csv(
      HEADER,
      ROW.replace('a.pdf', 'Contrat.PDF'),
      ROW.replace('a.pdf', 'dupr\u00e9.pdf').replace('REF-1', 'REF-2'),
    ),
    prepare: (folder) => {
      copyFileSync(folder.file('a.pdf'), folder.file('contrat.pdf'));
      copyFileSync(folder.file('a.pdf'), folder.file('dupre\u0301.pdf'));
    },
    expected: [
      'row 2, column A (document): cannot read "Contrat.PDF": no file has exactly that name, but the folder holds "contrat.pdf", which differs only in capitals or in how its accents are written: rename the file or change the manifest so that they match',
      'row 3, column A (document): cannot read "dupr\u00e9.pdf": no file has exactly that name, but the folder holds "dupre\u0301.pdf", which differs only in capitals or in how its accents are written: rename the file or change the manifest so that they match',
    ],
  },
  {
    name: 'a header of 101 columns',
    manifest: csv(
      [HEADER, ...Array.from({ length: MAX_MANIFEST_COLUMNS - 6 }, (_, index) => `extra${index}`)].join(','),
      ROW,
    ),
    expected: ['row 1: the header row has more than 100 columns: is it the right file?'],
  },
  {
    name: 'a header of a million unknown columns (2 MB)',
    manifest: csv(Array.from({ length: 1_000_000 }, () => 'x').join(','), ROW),
    expected: ['row 1: the header row has more than 100 columns: is it the right file?'],
  },
  {
    name: 'a value longer than 4,096 characters',
    manifest: csv(HEADER, ROW.replace('Anne Dupré', 'A'.repeat(MAX_FIELD_CHARS + 1))),
    expected: [
      'row 2, column E (name): is longer than 4,096 characters (this one has 4,097): is a closing quote (") missing?',
    ],
  },
  {
    name: 'a lost quote that swallows more than 65,536 characters',
    manifest: csv(
      HEADER,
      ROW,
      ROW.replace('REF-1', 'REF-2').replace('Employee', '"Employee'),
      ...Array.from({ length: MAX_LINE_CHARS / 32 }, (_, index) =>
        ROW.replace('REF-1', `REF-${index + 3}`).replace('anne@', `anne${index}@`),
      ),
    ),
    expected: [
      'row 3: this row is longer than 65,536 characters, so it and the rest of the file were not read: is a closing quote (") missing?',
    ],
  },
  {
    name: 'a line of more than 1,000 values',
    manifest: csv(HEADER, ROW, `${ROW.replace('REF-1', 'REF-2')}${','.repeat(MAX_LINE_VALUES)}`),
    expected: [
      'row 3: this row has more than 1,000 values, so it and the rest of the file were not read: is it the right file?',
    ],
  },
  {
    name: 'a line of 16 million delimiters',
    manifest: csv(HEADER, `a.pdf${','.repeat(16 * 1024 * 1024 - 100)}`),
    expected: [
      'row 2: this row has more than 1,000 values, so it and the rest of the file were not read: is it the right file?',
    ],
  },
];

/** A named pipe at `path`: opening it for reading blocks until someone writes, unless opened without blocking. */
function makeFifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

const servers: Server[] = [];
/** A unix socket listening at `path`. */
function listenOn(path: string): Promise<void> {
  const server = createServer();
  servers.push(server);
  return new Promise((resolveListen) => server.listen(path, resolveListen));
}

const elsewhereFolders: string[] = [];
/** A folder outside the manifest's, like another user's files. */
function elsewhereFolder(): string {
  const path = mkdtempSync(join(tmpdir(), 'elsewhere-'));
  elsewhereFolders.push(path);
  return path;
}

describe('bad input: each problem is named the way the user sees it', () => {
  let folder: TempFolder;
  beforeEach(async () => {
    folder = makeTempFolder('manifest-test-');
    await writePdf(folder, 'a.pdf', 'Contract A');
    await writePdf(folder, 'b.pdf', 'Contract B');
  });
  afterEach(() => {
    folder.remove();
    for (const server of servers.splice(0)) server.close();
    for (const path of elsewhereFolders.splice(0)) rmSync(path, { recursive: true, force: true });
  });

  it.each(BAD_CASES.map((badCase) => [badCase.name, badCase] as const))('%s', async (_, badCase) => {
    await badCase.prepare?.(folder);
    const manifestPath = folder.file('manifest.csv');
    writeFileSync(manifestPath, badCase.manifest);
    const check = await checkManifest(manifestPath);
    expect(messages(check)).toEqual(badCase.expected);
  });

  it('takes a symbolic link that stays inside the folder', async () => {
    mkdirSync(folder.file('signed'));
    symlinkSync(folder.file('a.pdf'), folder.file('signed/link.pdf'));
    writeFileSync(folder.file('manifest.csv'), csv(HEADER, ROW.replace('a.pdf', 'signed/link.pdf')));
    const check = await checkManifest(folder.file('manifest.csv'));
    expect(messages(check)).toEqual([]);
    expect(check.documents.map((document) => document.pdf?.sizeBytes)).toEqual([
      readFileSync(folder.file('a.pdf')).length,
    ]);
  });

  it(`lists the first ${MAX_LISTED_ISSUES} problems, then says how many more there are`, async () => {
    const rows = Array.from({ length: 300 }, (_, index) =>
      ROW.replace('REF-1', `REF-${index}`).replace('anne@example.com', `anne${index}@`),
    );
    const check = await parseManifest(csv(HEADER, ...rows), folder.path);
    expect(check.problemCount).toBe(300);
    expect(check.issues).toHaveLength(MAX_LISTED_ISSUES + 1);
    expect(messages(check)[0]).toBe('row 2, column F (email): must be a valid e-mail address (got "anne0@")');
    expect(messages(check).at(-1)).toBe(
      'and 200 more problems, not listed here: fix these, then check again',
    );
  });

  it('refuses a FIFO, a device or a socket named as the manifest, at once', async () => {
    makeFifo(folder.file('manifest.csv'));
    expect(messages(await checkManifest(folder.file('manifest.csv')))).toEqual([
      'the manifest cannot be read: it is a named pipe (FIFO), not a file',
    ]);
    symlinkSync('/dev/zero', folder.file('zero.csv'));
    expect(messages(await checkManifest(folder.file('zero.csv')))).toEqual([
      'the manifest cannot be read: it is a file of the operating system, not a document',
    ]);
    await listenOn(folder.file('socket.csv'));
    expect(messages(await checkManifest(folder.file('socket.csv')))).toEqual([
      'the manifest cannot be read: it is a socket, not a file',
    ]);
  });

  it('accepts exactly the largest number of rows, and of documents', async () => {
    const rows = Array.from(
      { length: MAX_MANIFEST_ROWS },
      (_, index) =>
        `a.pdf,REF-${index % MAX_MANIFEST_DOCUMENTS},signer,Employee,Anne,anne${index}@example.com,${Math.floor(index / MAX_MANIFEST_DOCUMENTS) + 1}`,
    );
    const check = await parseManifest(csv(HEADER, ...rows), folder.path);
    expect(check.issues).toEqual([]);
    expect(check.documents).toHaveLength(MAX_MANIFEST_DOCUMENTS);
  });

  it('refuses one document more, at once', async () => {
    const check = await parseManifest(manyRows(MAX_MANIFEST_DOCUMENTS + 1), folder.path);
    expect(messages(check)).toEqual([
      'the manifest names more than 20,000 documents, more than one batch should hold: split it into several files',
    ]);
  });

  it('reports a manifest that cannot be read', async () => {
    expect(messages(await checkManifest(folder.file('absent.csv')))).toEqual([
      'the manifest cannot be read: the file does not exist',
    ]);
    mkdirSync(folder.file('folder.csv'));
    expect(messages(await checkManifest(folder.file('folder.csv')))).toEqual([
      'the manifest cannot be read: it is a folder, not a file',
    ]);
  });

  it('shortens long values to 60 characters on one line', async () => {
    const check = await parseManifest(
      csv(HEADER, `a.pdf,REF-1,signer,Employee,Anne,"${'x'.repeat(40)}\n${'y'.repeat(40)}@",1`),
      '/m',
    );
    expect(messages(check)).toEqual([
      `row 2, column F (email): must be a valid e-mail address (got "${'x'.repeat(40)} ${'y'.repeat(18)}…")`,
    ]);
  });

  it('reports every problem of a file together, in row order, and keeps only clean documents', async () => {
    writeFileSync(folder.file('empty.pdf'), '');
    const manifestPath = folder.file('manifest.csv');
    writeFileSync(
      manifestPath,
      csv(
        'document;external_reference;participant_type;role;name;email;signing_order;locale;emial',
        'a.pdf;REF-1;signer;Employee;Anne;anne@;1;fr-FR;',
        'a.pdf;REF-1;signer;Manager;;bob@example.com;first;de-DE;',
        'b.pdf;REF-2;signer;Employee;Carl;carl@example.com;1;;',
        'missing.pdf;REF-3;observer;HR;Dora;dora@example.com;;;',
        'empty.pdf;REF-4;approver;HR;Emil;emil@example.com;0;fr_FR;',
        '../escape.pdf;REF-5;signer;HR;Fay;fay@example.com;;;',
        'c.pdf;REF-6;signer;Employee;Gus;gus@example.com;2',
      ),
    );
    const check = await checkManifest(manifestPath);
    expect(messages(check)).toEqual([
      'row 1, column I (emial): unknown column; did you mean "email"?',
      'row 2, column F (email): must be a valid e-mail address (got "anne@")',
      'row 3, column E (name): is required',
      'row 3, column G (signing_order): must be a whole number, 1 or more, written in digits (got "first")',
      'row 3, column H (locale): must be the same on every row of this document: row 2 has "fr-FR", this row has "de-DE"',
      'row 5, column A (document): cannot read "missing.pdf": the file does not exist',
      'row 6, column A (document): "empty.pdf" is empty',
      'row 6, column C (participant_type): must be "signer" or "observer" (got "approver")',
      'row 6, column G (signing_order): must be at least 1 (got "0")',
      'row 6, column H (locale): must look like language-REGION, e.g. fr-FR (got "fr_FR")',
      'row 7, column A (document): must stay inside the manifest\'s folder (".." leads out of it), so that the folder can be moved with its PDFs (got "../escape.pdf")',
      'row 8: has 7 values but the header row has 9 columns',
    ]);
    expect(check.documents.map((document) => document.externalReference)).toEqual(['REF-2']);
    expect(check.documents[0]?.pdf?.sizeBytes).toBeGreaterThan(0);
  });
});

describe('where a manifest is read from', () => {
  let folder: TempFolder;
  beforeEach(async () => {
    folder = makeTempFolder('manifest-where-');
    mkdirSync(folder.file('project'));
    await writePdf(folder, 'project/a.pdf', 'Contract A');
  });
  afterEach(() => folder.remove());

  it('looks for the PDFs next to the manifest itself when it is named through a link', async () => {
    writeFileSync(folder.file('project/manifest.csv'), csv(HEADER, ROW));
    symlinkSync(folder.file('project/manifest.csv'), folder.file('shortcut.csv'));
    const check = await checkManifest(folder.file('shortcut.csv'));
    expect(messages(check)).toEqual([]);
    expect(check.documents.map((document) => document.pdfPath)).toEqual([folder.file('project/a.pdf')]);
  });

  it('takes Excel’s "sep=;" first line as the delimiter, a line Excel does not show as a row', async () => {
    const check = await parseManifest(
      `sep=;\n${HEADER.replaceAll(',', ';')}\n${ROW.replaceAll(',', ';').replace('anne@example.com', 'anne@')}\n`,
      folder.file('project'),
    );
    expect(messages(check)).toEqual([
      'row 2, column F (email): must be a valid e-mail address (got "anne@")',
    ]);
  });
});
