import { addPdfDocuments } from '../../main/engine/batch-preparation';
import type { BatchState } from '../../main/domain/batch-state';
import type { Desk } from '../../main/app/desk-core';
import type { Participant } from '../../shared/service/wire';

/** One document to prepare: its PDF and its participants. */
export interface BenchDocument {
  readonly path: string;
  readonly externalReference: string;
  /** Sent with the create call. */
  readonly recipients: readonly Participant[];
  /** Added one by one after creation. */
  readonly extraParticipants: readonly Participant[];
}

/**
 * Prepares a batch the way the app does (and `makeBatch` in the test harness does): the PDFs
 * are checked and copied into the data folder by `addPdfDocuments`, then each document gets
 * its reference and participants. Nothing is sent. Imports no test code, so a child process
 * bundled from it carries only the app.
 */
export async function prepareBatch(
  desk: Desk,
  name: string,
  documents: readonly BenchDocument[],
): Promise<BatchState> {
  const batch = await desk.store.create(name, {
    defaultRecipients: [],
    locale: 'fr-FR',
    transactionType: 'employment_contract',
  });
  const { added, rejected } = await addPdfDocuments(
    desk.store,
    desk.blobs,
    batch.id,
    documents.map((document) => document.path),
  );
  if (rejected.length > 0) {
    throw new Error(`benchmark PDFs rejected: ${rejected.map((file) => file.message).join('; ')}`);
  }
  for (const [index, draft] of added.entries()) {
    const document = documents[index];
    if (!document) continue;
    await desk.store.record(batch.id, [
      {
        type: 'document_edited',
        document: {
          ...draft,
          externalReference: document.externalReference,
          recipients: [...document.recipients],
          extraParticipants: [...document.extraParticipants],
        },
      },
    ]);
  }
  const prepared = desk.store.get(batch.id);
  if (!prepared) throw new Error('the prepared batch vanished');
  return prepared;
}
