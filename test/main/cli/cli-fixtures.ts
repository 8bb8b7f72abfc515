import { writeFileSync } from 'node:fs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { expect } from 'vitest';
import { phaseOf } from '../../../main/domain/batch-state';
import { BatchStore } from '../../../main/store/batch-store';
import { createSeededRandom } from '../../../simulator/seeded-random';
import type { Simulator } from '../../../simulator/simulator';
import { FIXED_PDF_DATE, makePdfBytes, type TempFolder } from '../../support/pdf-files';

/**
 * A seed for one service variant: `base` mixed with the variant's name (FNV-1a), so that a
 * variant run alone (`SIM_VARIANTS=<name>`) replays exactly as it ran in the whole suite.
 */
export function variantSeed(base: number, variant: { readonly name: string }): number {
  let hash = 0x811c9dc5;
  for (const char of variant.name) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return ((base ^ hash) >>> 0) % 1_000_000;
}

/** The references the service holds more than one request for, with their counts: duplicates. */
export function duplicateReferences(sim: Simulator): [string, number][] {
  return Object.entries(sim.state.countByExternalReference()).filter(([, count]) => count > 1);
}

/**
 * Pages covered with random text, which compresses poorly: about 10 KB each. Drawing text with
 * pdf-lib is slow, so documents copy their pages from this pool instead of drawing their own.
 */
export async function makePagePool(pages: number, random: () => number): Promise<PDFDocument> {
  const pool = await PDFDocument.create();
  const font = await pool.embedFont(StandardFonts.Courier);
  for (let pageNumber = 1; pageNumber <= pages; pageNumber += 1) {
    const page = pool.addPage([595, 842]);
    const lines: string[] = [];
    for (let line = 0; line < 110; line += 1) {
      let text = '';
      while (text.length < 100) text += `${Math.floor(random() * 36 ** 6).toString(36)} `;
      lines.push(text.slice(0, 100));
    }
    page.drawText(lines.join('\n'), { x: 20, y: 820, size: 5.5, font, lineHeight: 7.4 });
  }
  // Loaded back from its bytes, its pages hold compressed streams that copies reuse as they are.
  return PDFDocument.load(await pool.save());
}

/**
 * A real multi-page PDF made with pdf-lib: a cover page naming `title`, then `pages` pages of
 * the pool in a random order, so every document has its own content and weighs about
 * 10 KB per page.
 */
export async function makeLargePdfBytes(
  title: string,
  pool: PDFDocument,
  pages: number,
  random: () => number,
): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.HelveticaBold);
  document.setTitle(title);
  const cover = document.addPage([595, 842]);
  cover.drawText(title, { x: 72, y: 760, size: 18, font });
  cover.drawText(`Reference of this copy: ${Math.floor(random() * 36 ** 8).toString(36)}`, {
    x: 72,
    y: 730,
    size: 10,
    font,
  });
  // Distinct pages of the pool in a random order (a page copied twice would be stored once).
  const indices = pool.getPageIndices();
  for (let index = indices.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [indices[index], indices[other]] = [indices[other] as number, indices[index] as number];
  }
  indices.length = Math.min(pages, indices.length);
  for (const page of await document.copyPages(pool, indices)) document.addPage(page);
  document.setCreationDate(FIXED_PDF_DATE);
  document.setModificationDate(FIXED_PDF_DATE);
  return document.save();
}

/** One recipient as written in a manifest row. */
export interface ManifestRecipient {
  readonly participantType: 'signer' | 'observer';
  readonly role: string;
  readonly name: string;
  readonly email: string;
  readonly signingOrder: number | undefined;
  readonly isInternal: boolean;
}

export interface ManifestDocumentSpec {
  readonly reference: string;
  readonly filename: string;
  readonly sizeBytes: number;
  readonly recipients: readonly ManifestRecipient[];
}

export interface ContractManifest {
  readonly path: string;
  readonly documents: readonly ManifestDocumentSpec[];
}

export interface ContractManifestOptions {
  readonly count: number;
  /** Pages of random text per PDF (about 10 KB each), between these bounds; 0 gives a small one-page PDF. */
  readonly pages: number | { readonly min: number; readonly max: number };
  readonly seed: number;
  /** Prefix of the external references, e.g. `HR-2026-`. */
  readonly referencePrefix?: string;
}

function csvField(value: string): string {
  return /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * Writes `count` real PDFs and a manifest (CSV, comma-separated) describing them into `folder`:
 * every document has one signer, every other one also an observer.
 */
export async function writeContractManifest(
  folder: TempFolder,
  options: ContractManifestOptions,
): Promise<ContractManifest> {
  const random = createSeededRandom(options.seed);
  const prefix = options.referencePrefix ?? 'HR-2026-';
  const header = [
    'document',
    'external_reference',
    'transaction_type',
    'participant_type',
    'role',
    'name',
    'email',
    'signing_order',
    'is_internal',
    'locale',
  ];
  const pageRange =
    typeof options.pages === 'number' ? { min: options.pages, max: options.pages } : options.pages;
  const pool = pageRange.max > 0 ? await makePagePool(pageRange.max, random) : undefined;
  const rows: string[] = [header.join(',')];
  const documents: ManifestDocumentSpec[] = [];
  for (let index = 1; index <= options.count; index += 1) {
    const number = String(index).padStart(3, '0');
    const reference = `${prefix}${number}`;
    const filename = `contract-${number}.pdf`;
    const title = `Employment contract ${reference}`;
    const pages = pageRange.min + Math.floor(random() * (pageRange.max - pageRange.min + 1));
    const bytes =
      pool && pages > 0
        ? await makeLargePdfBytes(title, pool, pages, random)
        : await makePdfBytes(title, `Reference of this copy: ${Math.floor(random() * 36 ** 8).toString(36)}`);
    writeFileSync(folder.file(filename), bytes);
    const recipients: ManifestRecipient[] = [
      {
        participantType: 'signer',
        role: 'Employee',
        name: `Employee ${number}`,
        email: `employee.${number}@example.com`,
        signingOrder: 1,
        isInternal: false,
      },
    ];
    if (index % 2 === 0) {
      recipients.push({
        participantType: 'observer',
        role: 'Payroll, HR',
        name: `Payroll officer ${number}`,
        email: `payroll.${number}@example.com`,
        signingOrder: undefined,
        isInternal: true,
      });
    }
    for (const recipient of recipients) {
      rows.push(
        [
          filename,
          reference,
          'employment_contract',
          recipient.participantType,
          recipient.role,
          recipient.name,
          recipient.email,
          recipient.signingOrder === undefined ? '' : String(recipient.signingOrder),
          String(recipient.isInternal),
          'fr-FR',
        ]
          .map(csvField)
          .join(','),
      );
    }
    documents.push({ reference, filename, sizeBytes: bytes.length, recipients });
  }
  const path = folder.file('manifest.csv');
  writeFileSync(path, `${rows.join('\n')}\n`);
  return { path, documents };
}

/** What the local data folder says about each document, read without writing anything. */
export interface LocalDocument {
  readonly reference: string;
  readonly phase: string;
  readonly requestId: string | undefined;
  readonly uploadId: string | undefined;
  /** True once the create call's Idempotency-Key is stored (the call may have been sent). */
  readonly createAttempted: boolean;
  /** True while a creation attempt under the stored key may be on its way (marked before it left, not settled since). */
  readonly createInFlight: boolean;
  /** True once some creation attempt's outcome is unknown: the key is never released by itself. */
  readonly createUnknown: boolean;
  readonly error: string | undefined;
}

export async function readLocalDocuments(dataDir: string): Promise<LocalDocument[]> {
  const store = await BatchStore.open(dataDir, { readOnly: true });
  try {
    // A torn last line (a kill mid-write) is set aside by design; anything else is damage.
    const { damaged } = store.loadReport;
    if (damaged.length > 0) throw new Error(`damaged batches in ${dataDir}: ${JSON.stringify(damaged)}`);
    // A read-only store holds every batch in memory.
    return store.loaded().flatMap((batch) =>
      batch.documents.map((document) => ({
        reference: document.draft.externalReference,
        phase: phaseOf(document),
        requestId: document.send.requestId,
        uploadId: document.send.upload?.uploadId,
        createAttempted: document.send.create !== undefined,
        createInFlight: document.send.create?.inFlight === true,
        createUnknown: document.send.create?.unknown === true,
        error: document.send.error?.message,
      })),
    );
  } finally {
    await store.close();
  }
}

/**
 * The check a user cares about most: the service holds exactly one signing request per
 * document, prepared, with the manifest's recipients; and the local data folder knows each
 * one, prepared, under the same id.
 */
export async function expectExactlyOnePreparedRequestEach(
  sim: Simulator,
  manifest: ContractManifest,
  dataDir: string,
): Promise<void> {
  const references = manifest.documents.map((document) => document.reference);
  expect(sim.state.countByExternalReference()).toEqual(
    Object.fromEntries(references.map((reference) => [reference, 1])),
  );
  const requests = sim.state.requests();
  const local = await readLocalDocuments(dataDir);
  expect(local.map((document) => document.reference).sort()).toEqual([...references].sort());
  for (const expected of manifest.documents) {
    const remote = requests.find((request) => request.externalReference === expected.reference);
    expect(remote?.status, expected.reference).toBe('prepared');
    expect(remote?.filename, expected.reference).toBe(expected.filename);
    expect(
      remote?.participants.map((participant) => ({
        participantType: participant.participantType,
        role: participant.role,
        name: participant.name,
        email: participant.email,
        signingOrder: participant.signingOrder ?? undefined,
        isInternal: participant.isInternal,
      })),
      expected.reference,
    ).toEqual(expected.recipients);
    const mine = local.find((document) => document.reference === expected.reference);
    expect(mine?.phase, expected.reference).toBe('prepared');
    expect(mine?.requestId, expected.reference).toBe(remote?.id);
  }
}
