import { performance } from 'node:perf_hooks';
import { addPdfDocuments } from '../../main/engine/batch-preparation';
import { sendProblems } from '../../main/domain/send-readiness';
import { openDataDir } from '../../main/app/desk-core';
import type { BatchDefaults } from '../../shared/domain/batch';
import type { Participant } from '../../shared/service/wire';
import type { TempFolder } from '../../test/support/pdf-files';
import { makePaddedPdfTemplate, writePaddedPdf } from './pdf-fixtures';

/** A document's words the batch screen's search looks in. */
export interface SearchableDocument {
  readonly externalReference: string;
  readonly storedFilename: string;
  readonly people: readonly { readonly name: string; readonly email: string }[];
}

/** Size of each PDF: a one-page contract, small enough that 10,000 are written in seconds. */
const PDF_BYTES = 2 * 1024;

/** What preparing the renderer benchmark's batch took, step by step. */
export interface PreparedLargeBatch {
  readonly batchId: string;
  readonly documents: number;
  /** People on each document: two signers and an observer, the rows a manifest has for it. */
  readonly peoplePerDocument: number;
  /** What the search looks in, document by document (reference, file, names, e-mail addresses). */
  readonly searchable: readonly SearchableDocument[];
  readonly writePdfsMs: number;
  readonly addPdfsMs: number;
  readonly editMs: number;
  readonly totalMs: number;
}

function person(
  type: 'signer' | 'observer',
  index: number,
  suffix: string,
  order: number | undefined,
): Participant {
  return {
    participant_type: type,
    role: type === 'signer' ? 'Employee' : 'HR',
    name: `${type === 'signer' ? 'Signer' : 'Observer'} ${index}${suffix}`,
    email: `${type}${index}${suffix.toLowerCase()}@example.com`,
    ...(order === undefined ? {} : { signing_order: order }),
  };
}

/**
 * Writes `count` distinct one-page PDFs (pdf-lib, random filler, so every SHA-256 differs) and
 * prepares them as one unsent batch of `dataDir`, through the app's own core: the batch store,
 * `addPdfDocuments` (checked and copied into the data folder), then one `document_edited` per
 * document with a unique reference, two signers and an observer (what a manifest of three rows
 * a document gives). No network; the data folder is closed again, ready for the browser host.
 */
export async function prepareLargeBatch(
  dataDir: string,
  sources: TempFolder,
  count: number,
  name: string,
): Promise<PreparedLargeBatch> {
  const started = performance.now();
  const paths: string[] = [];
  const template = await makePaddedPdfTemplate(PDF_BYTES, 'Employment contract');
  for (let index = 1; index <= count; index += 1) {
    const path = sources.file(`contract-${String(index).padStart(5, '0')}.pdf`);
    await writePaddedPdf(path, template);
    paths.push(path);
  }
  const pdfsWritten = performance.now();

  const opened = await openDataDir(dataDir);
  if (!opened.ok) throw new Error(opened.error);
  const { store, blobs } = opened.value;
  try {
    const defaults: BatchDefaults = {
      defaultRecipients: [],
      locale: 'fr-FR',
      transactionType: 'employment_contract',
    };
    const batch = await store.create(name, defaults);
    const { added, rejected } = await addPdfDocuments(store, blobs, batch.id, paths);
    if (rejected.length > 0 || added.length !== count) {
      throw new Error(
        `benchmark PDFs rejected (${added.length} of ${count} added): ${rejected.map((file) => file.message).join('; ')}`,
      );
    }
    const pdfsAdded = performance.now();

    const searchable: SearchableDocument[] = [];
    const edits = added.map((draft, position) => {
      const index = position + 1;
      const document = {
        ...draft,
        externalReference: `HR-2026-${String(index).padStart(5, '0')}`,
        recipients: [person('signer', index, '', 1), person('signer', index, 'B', 2)],
        extraParticipants: [person('observer', index, '', undefined)],
      };
      searchable.push({
        externalReference: document.externalReference,
        storedFilename: document.pdf.storedFilename,
        people: [...document.recipients, ...document.extraParticipants],
      });
      const problems = sendProblems(defaults, document);
      if (problems.length > 0) throw new Error(`benchmark document ${index}: ${problems.join(' ')}`);
      // Recorded together, as the app does for concurrent edits: the journal commits them as a group.
      return store.record(batch.id, [{ type: 'document_edited', document }]);
    });
    await Promise.all(edits);
    const edited = performance.now();

    const prepared = store.get(batch.id);
    if (prepared?.documents.length !== count) throw new Error('the prepared batch is incomplete');
    return {
      batchId: batch.id,
      documents: count,
      peoplePerDocument: 3,
      searchable,
      writePdfsMs: pdfsWritten - started,
      addPdfsMs: pdfsAdded - pdfsWritten,
      editMs: edited - pdfsAdded,
      totalMs: edited - started,
    };
  } finally {
    await opened.value.close();
  }
}
