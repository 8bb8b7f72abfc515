import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { BatchEvent } from '../../../main/domain/batch-events';
import { applyBatchEvent, emptyBatch } from '../../../main/domain/apply-batch-event';
import type { BatchState } from '../../../main/domain/batch-state';
import { batchReportCsv, listSeparatorOf } from '../../../main/report/report-csv';
import type { DocumentDraft, TrackedStatus } from '../../../shared/domain/batch';
import { createTranslator } from '../../../shared/i18n/translator';
import type { Participant } from '../../../shared/service/wire';

/** The CSV report, read back as a spreadsheet would, from batches built by folding real journal events. */
const person = (name: string, email: string, overrides: Partial<Participant> = {}): Participant => ({
  participant_type: 'signer',
  role: 'Salariée',
  name,
  email,
  ...overrides,
});

function draft(id: string, externalReference: string, recipients: Participant[]): DocumentDraft {
  return {
    id,
    externalReference,
    pdf: { originalName: `${id}.pdf`, storedFilename: `${id}.pdf`, sizeBytes: 10, sha256: 'a'.repeat(64) },
    recipients,
    extraParticipants: [],
    options: {},
  };
}

const FINAL: TrackedStatus = {
  status: 'completed',
  documentStatus: 'finalized',
  evidenceReady: true,
  preparedAt: '2026-11-23T10:00:00.000Z',
  openedAt: '2026-11-23T10:05:00.000Z',
  finalizedAt: '2026-11-23T10:30:00.000Z',
  readAt: '2026-11-23T10:31:00.000Z',
  final: true,
};

/**
 * A batch with a default observer: one document signed and final, one using only the defaults,
 * one a signer has opened.
 */
function batch(): BatchState {
  const events: BatchEvent[] = [
    {
      type: 'batch_created',
      batchId: 'b',
      name: 'Contrats été',
      defaults: {
        defaultRecipients: [
          person('Service paie', 'paie@example.com', { participant_type: 'observer', role: 'Paie' }),
        ],
      },
    },
    {
      type: 'document_added',
      document: draft('done', 'RH-1', [person('Zoé Lefèvre', 'zoe@example.com', { signing_order: 1 })]),
    },
    { type: 'document_added', document: draft('defaults', 'RH-2', []) },
    {
      type: 'document_added',
      document: draft('signing', 'RH-3', [person('Anne Dupré', 'anne@example.com')]),
    },
    { type: 'send_requested', documentIds: ['signing'] },
    { type: 'request_created', documentId: 'signing', requestId: 'sr_2', replayed: false },
    {
      type: 'request_prepared',
      documentId: 'signing',
      revision: 1,
      sha256: 'c'.repeat(64),
      alreadyPrepared: false,
    },
    {
      type: 'status_read',
      documentId: 'signing',
      status: { ...FINAL, status: 'in_progress', evidenceReady: false, finalizedAt: undefined, final: false },
    },
    { type: 'send_requested', documentIds: ['done'] },
    { type: 'request_created', documentId: 'done', requestId: 'sr_1', replayed: false },
    {
      type: 'request_prepared',
      documentId: 'done',
      revision: 1,
      sha256: 'b'.repeat(64),
      alreadyPrepared: false,
    },
    { type: 'status_read', documentId: 'done', status: FINAL },
  ];
  return events.reduce(
    (state, event, index) =>
      applyBatchEvent(state, { seq: index + 1, at: '2026-11-23T10:00:00.000Z', event }),
    emptyBatch('b'),
  );
}

/** The time zone the reports below are written in, as if this computer were set to it. */
const ZONE = 'Europe/Paris';

function read(csv: string, delimiter: string): Record<string, string>[] {
  return parse(csv, { bom: true, columns: true, delimiter }) as Record<string, string>[];
}

describe('batchReportCsv', () => {
  it.each([
    ['en', 'en-GB', ','],
    ['en', 'en-US', ','],
    ['fr', 'fr-FR', ';'],
    ['de', 'de-DE', ';'],
    // Swiss German writes 1.5 with a point, yet its Excel separates lists with a semicolon.
    ['de', 'de-CH', ';'],
    ['de', 'de-LI', ';'],
    ['fr', 'fr-CH', ';'],
  ] as const)('in %s (%s): UTF-8 BOM, CRLF and the list separator %s', (language, locale, separator) => {
    expect(listSeparatorOf(locale)).toBe(separator);
    const csv = batchReportCsv(batch(), createTranslator(language, locale), ZONE);
    expect(csv.startsWith('\uFEFF')).toBe(true);
    expect(csv.endsWith('\r\n')).toBe(true);
    const [header] = csv.slice(1).split('\r\n');
    // Every header cell is quoted; the separator alone joins them.
    expect(header?.split(`"${separator}"`)).toHaveLength(14);
    expect(read(csv, separator)).toHaveLength(3);
  });

  it('has headers and one state column in the person’s language; a finished document is just “completed”', () => {
    const english = read(batchReportCsv(batch(), createTranslator('en', 'en-GB'), ZONE), ',');
    expect(Object.keys(english[0]!)).toEqual([
      'Batch',
      'External reference',
      'File',
      'Recipients',
      'State',
      'Request id',
      'Prepared (Europe/Paris)',
      'Opened (Europe/Paris)',
      'Finalized (Europe/Paris)',
      'Evidence ready',
      'Problem',
      'Prepared (UTC, ISO 8601)',
      'Opened (UTC, ISO 8601)',
      'Finalized (UTC, ISO 8601)',
    ]);
    expect(english[0]).toMatchObject({
      Batch: 'Contrats été',
      'External reference': 'RH-1',
      State: 'Completed',
      'Request id': 'sr_1',
      'Finalized (Europe/Paris)': '23/11/2026 11:30:00',
      'Finalized (UTC, ISO 8601)': '2026-11-23T10:30:00.000Z',
      'Evidence ready': 'yes',
    });
    // Nothing else says "prepared" about it.
    expect(Object.values(english[0]!)).not.toContain('prepared');
    expect(english[1]).toMatchObject({ State: 'Not sent', 'Evidence ready': '' });
    // Waiting for signatures, with the service's progress; evidence is not a question yet.
    expect(english[2]).toMatchObject({ State: 'Signing in progress', 'Evidence ready': '' });

    const french = read(batchReportCsv(batch(), createTranslator('fr', 'fr-FR'), ZONE), ';');
    expect(french[0]).toMatchObject({
      'Référence externe': 'RH-1',
      État: 'Terminé',
      'Preuve disponible': 'oui',
    });
    const german = read(batchReportCsv(batch(), createTranslator('de', 'de-DE'), ZONE), ';');
    expect(german[1]).toMatchObject({ 'Externe Referenz': 'RH-2', Status: 'Nicht gesendet' });
  });

  it("words a request that ended, or stands in a status not recognized, with the service's own word", () => {
    const sent = (id: string, status: TrackedStatus): BatchEvent[] => [
      { type: 'document_added', document: draft(id, `RH-${id}`, [person('Anne', 'anne@example.com')]) },
      { type: 'send_requested', documentIds: [id] },
      { type: 'request_created', documentId: id, requestId: `sr_${id}`, replayed: false },
      {
        type: 'request_prepared',
        documentId: id,
        revision: 1,
        sha256: 'b'.repeat(64),
        alreadyPrepared: false,
      },
      { type: 'status_read', documentId: id, status },
    ];
    const open = { ...FINAL, documentStatus: 'prepared', evidenceReady: false, finalizedAt: undefined };
    const events: BatchEvent[] = [
      { type: 'batch_created', batchId: 'b', name: 'B', defaults: { defaultRecipients: [] } },
      ...sent('7', { ...open, status: 'declined', final: true }),
      // Stored by an earlier version, which did not call it final: ended all the same.
      ...sent('8', { ...open, status: 'expired', final: false }),
      ...sent('9', { ...open, status: '=on_hold', final: false }),
    ];
    const state = events.reduce(
      (folded, event, index) =>
        applyBatchEvent(folded, { seq: index + 1, at: '2026-11-23T10:00:00.000Z', event }),
      emptyBatch('b'),
    );
    const english = read(batchReportCsv(state, createTranslator('en', 'en-GB'), ZONE), ',');
    expect(english.map((row) => row.State)).toEqual([
      'Ended at the service: declined',
      'Ended at the service: expired',
      // A service's word that looks like a formula is defused like any other cell.
      "Status not recognized: '=on_hold",
    ]);
    const german = read(batchReportCsv(state, createTranslator('de', 'de-DE'), ZONE), ';');
    expect(german[0]).toMatchObject({ Status: 'Beim Dienst beendet: declined' });
  });

  it('says in its problem column what stops a document not sent yet, as the table does', () => {
    // RH-2 goes to the batch's default observer only: nobody could sign it.
    const french = read(batchReportCsv(batch(), createTranslator('fr', 'fr-FR'), ZONE), ';');
    const noSigner = createTranslator('fr').t('batches.problemNoSigner');
    expect(french[1]).toMatchObject({ 'Référence externe': 'RH-2', Problème: noSigner });
    expect(noSigner).toMatch(/^Ajoutez au moins un signataire/);
    // Documents already sent have nothing to fix.
    expect(french[0]!['Problème']).toBe('');
    expect(french[2]!['Problème']).toBe('');
  });

  it('lists every recipient, the batch’s default ones included, in signing order with where they come from', () => {
    const [done, defaults] = read(batchReportCsv(batch(), createTranslator('en', 'en-GB'), ZONE), ',');
    expect(done?.Recipients).toBe(
      '1. Zoé Lefèvre (zoe@example.com) – Salariée, signer, this document; ' +
        'Service paie (paie@example.com) – Paie, observer, batch recipient',
    );
    expect(defaults?.Recipients).toBe('Service paie (paie@example.com) – Paie, observer, batch recipient');
    const [, french] = read(batchReportCsv(batch(), createTranslator('fr', 'fr-FR'), ZONE), ';');
    expect(french?.Destinataires).toBe(
      'Service paie (paie@example.com) – Paie, observateur, destinataire du lot',
    );
  });

  it.each(['=', '+', '-', '@', '\t', '\r'])(
    'neutralises a cell, a name and a role starting with %j',
    (start) => {
      const hostile = batch();
      const evil = `${start}HYPERLINK("http://evil.example","x")`;
      const document = hostile.documents[1]!;
      const state: BatchState = {
        ...hostile,
        name: evil,
        documents: [
          {
            ...document,
            draft: {
              ...document.draft,
              externalReference: evil,
              recipients: [person(evil, 'evil@example.com', { role: evil })],
            },
          },
        ],
      };
      for (const [language, locale, separator] of [
        ['en', 'en-GB', ','],
        ['fr', 'fr-FR', ';'],
      ] as const) {
        const [row] = read(batchReportCsv(state, createTranslator(language, locale), ZONE), separator);
        const cells = Object.values(row!);
        for (const cell of cells) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
        expect(cells[0]).toBe(`'${evil}`);
        expect(cells[1]).toBe(`'${evil}`);
        // Inside the recipients cell too: each name and role, so splitting the cell cannot make a formula.
        for (const part of cells[3]!.split(/; | \(|\) – |, /)) expect(part).not.toMatch(/^[=+\-@\t\r]/);
        expect(cells[3]).toContain(`'${evil} (evil@example.com) – '${evil}, `);
      }
    },
  );

  // Each value as the manifest gives it, and as the report must write it: an apostrophe at the
  // cell's start and right after each line break that begins a formula, nothing else changed.
  it.each([
    [
      'a line feed before =',
      '\n=HYPERLINK("http://evil.example","x")',
      `'\n'=HYPERLINK("http://evil.example","x")`,
    ],
    ['a space before =', ' =1+1', "' =1+1"],
    // The apostrophe after the tab too: the cell split at its tabs would start a formula there.
    ['a space and a tab before =', ' \t=1+1', "' \t'=1+1"],
    ['a CRLF before @', '\r\n@SUM(A1)', "'\r\n'@SUM(A1)"],
    ['a tab and a line feed before -', '\t\n-2+3', "'\t\n'-2+3"],
    [
      '= on a second line',
      'RH-1\n=HYPERLINK("http://evil.example","x")',
      `RH-1\n'=HYPERLINK("http://evil.example","x")`,
    ],
    ['+ after a CR and spaces', 'RH-1\r  +1', "RH-1\r'  +1"],
    ['= after a CRLF and a tab', 'Ann\r\n\t=1', "Ann\r\n'\t'=1"],
    ['a second line starting with a tab', 'Ann\n\tcmd', "Ann\n'\tcmd"],
  ])(
    'neutralises a formula after whitespace or a line break in a cell, a name and a role: %s',
    (_, evil, defused) => {
      const hostile = batch();
      const document = hostile.documents[1]!;
      const state: BatchState = {
        ...hostile,
        name: evil,
        documents: [
          {
            ...document,
            draft: {
              ...document.draft,
              externalReference: evil,
              recipients: [person(evil, 'evil@example.com', { role: evil })],
            },
          },
        ],
      };
      for (const [language, locale, separator] of [
        ['en', 'en-GB', ','],
        ['fr', 'fr-FR', ';'],
      ] as const) {
        const [row] = read(batchReportCsv(state, createTranslator(language, locale), ZONE), separator);
        const cells = Object.values(row!);
        expect(cells[0]).toBe(defused);
        expect(cells[1]).toBe(defused);
        expect(cells[3]).toContain(`${defused} (evil@example.com) – ${defused}, `);
        for (const cell of cells) {
          expect(cell).not.toMatch(/^(?:[\t\r]|\s*[=+\-@])/);
          // Split into lines, as an import may split a multi-line cell: no line starts a formula.
          for (const line of cell.split(/\r\n|\r|\n/)) expect(line).not.toMatch(/^(?:\t|[^\S\r\n]*[=+\-@])/);
        }
      }
    },
  );

  it('no piece of a cell starts a formula once the cell is split at its tabs (pasted into a sheet, Text to Columns’ first choice)', () => {
    const document = batch().documents[0]!;
    // A manifest accepts a tab inside a quoted value.
    const name = 'Ann\t=HYPERLINK("http://evil.example";"x")\t \t+1';
    const state: BatchState = {
      ...batch(),
      name: 'Paie\t@SUM(A1)',
      documents: [
        {
          ...document,
          draft: {
            ...document.draft,
            externalReference: 'R-1\t-2',
            recipients: [person(name, 'ann@example.com')],
          },
        },
      ],
    };
    const [row] = read(batchReportCsv(state, createTranslator('en', 'en-GB')), ',');
    const cells = Object.values(row!);
    for (const cell of cells) for (const piece of cell.split('\t')) expect(piece).not.toMatch(/^\s*[=+\-@]/);
    // Only an apostrophe is added: the text is otherwise as given.
    expect(cells[0]).toBe("Paie\t'@SUM(A1)");
    expect(cells[1]).toBe("R-1\t'-2");
    expect(cells[3]).toContain(`Ann\t'=HYPERLINK("http://evil.example";"x")\t \t'+1`);
  });

  it('no piece of a cell starts a formula once the cell is split on a list separator (Text to Columns)', () => {
    const document = batch().documents[0]!;
    const name = 'Ann;=HYPERLINK("http://evil.example";"x"), +1, -2;@SUM(A1)';
    const state: BatchState = {
      ...batch(),
      documents: [
        {
          ...document,
          draft: {
            ...document.draft,
            externalReference: 'R-1; =1+1',
            recipients: [person(name, 'ann@example.com')],
          },
        },
      ],
    };
    for (const [language, locale, separator] of [
      ['fr', 'fr-FR', ';'],
      ['en', 'en-GB', ','],
    ] as const) {
      const [row] = read(batchReportCsv(state, createTranslator(language, locale), ZONE), separator);
      const cells = Object.values(row!);
      for (const cell of cells)
        for (const piece of cell.split(/[;,]\s*/)) expect(piece).not.toMatch(/^[=+\-@\t\r]/);
      // Only an apostrophe is added: the name is otherwise as the manifest gave it.
      expect(cells[3]).toContain(`Ann;'=HYPERLINK("http://evil.example";"x"), '+1, '-2;'@SUM(A1)`);
      expect(cells[1]).toBe("R-1; '=1+1");
    }
  });
});
