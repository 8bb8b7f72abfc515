import { performance } from 'node:perf_hooks';
import { addPdfDocuments } from '../../main/batch/batch-preparation';
import { sendProblems } from '../../main/batch/send-readiness';
import { openDataDir } from '../../main/desk-core';
import type { BatchDefaults } from '../../shared/domain/batch';
import type { Participant } from '../../shared/service/wire';
import { writePdf, type TempFolder } from '../../test/support/pdf-files';

/** What preparing the renderer benchmark's batch took, step by step. */
export interface PreparedLargeBatch {
  readonly batchId: string;
  readonly documents: number;
  /** Documents with two recipients (the others have one). */
  readonly twoRecipients: number;
  /** Documents with an extra observer as well. */
  readonly withObserver: number;
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
 * Writes `count` distinct one-page PDFs (pdf-lib, a title of their own, so every SHA-256
 * differs) and prepares them as one unsent batch of `dataDir`, through the app's own core: the
 * batch store, `addPdfDocuments` (checked and copied into the data folder), then one
 * `document_edited` per document with a unique reference and one or two recipients (every
 * third has a second signer, every fifth an extra observer). No network; the data folder is
 * closed again, ready for the browser host.
 */
export async function prepareLargeBatch(
  dataDir: string,
  sources: TempFolder,
  count: number,
  name: string,
): Promise<PreparedLargeBatch> {
  const started = performance.now();
  const paths: string[] = [];
  for (let index = 1; index <= count; index += 1) {
    const padded = String(index).padStart(4, '0');
    paths.push(await writePdf(sources, `contract-${padded}.pdf`, `Employment contract ${padded}`));
  }
  const pdfsWritten = performance.now();

  const opened = await openDataDir(dataDir);
  if (!opened.ok) throw new Error(opened.message);
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

    let twoRecipients = 0;
    let withObserver = 0;
    const edits = added.map((draft, position) => {
      const index = position + 1;
      const two = index % 3 === 0;
      const observer = index % 5 === 0;
      if (two) twoRecipients += 1;
      if (observer) withObserver += 1;
      const document = {
        ...draft,
        externalReference: `HR-2026-${String(index).padStart(4, '0')}`,
        recipients: two
          ? [person('signer', index, '', 1), person('signer', index, 'B', 2)]
          : [person('signer', index, '', 1)],
        extraParticipants: observer ? [person('observer', index, '', undefined)] : [],
      };
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
      twoRecipients,
      withObserver,
      writePdfsMs: pdfsWritten - started,
      addPdfsMs: pdfsAdded - pdfsWritten,
      editMs: edited - pdfsAdded,
      totalMs: edited - started,
    };
  } finally {
    await opened.value.close();
  }
}
