import type { DocumentDraft, TrackedStatus } from '../../../shared/domain/batch';
import type { BatchEvent } from '../../../main/domain/batch-events';
import type { BatchStore } from '../../../main/store/batch-store';

/** The documents and events the store's folding tests record: one signer each, no PDF on disk. */

export function draft(index: number): DocumentDraft {
  return {
    id: `doc-${index}`,
    externalReference: `REF-${index}`,
    pdf: {
      originalName: `contract-${index}.pdf`,
      storedFilename: `contract-${index}.pdf`,
      sizeBytes: 1000,
      sha256: index.toString(16).padStart(64, '0'),
    },
    recipients: [
      {
        participant_type: 'signer',
        role: 'Employee',
        name: `Signer ${index}`,
        email: `s${index}@example.com`,
      },
    ],
    extraParticipants: [],
    options: {},
  };
}

/** A status read: opened at second `n` of a minute, final (signed, evidence ready) or not. */
export function trackedStatus(n: number, final: boolean): TrackedStatus {
  return {
    status: final ? 'completed' : 'sent',
    documentStatus: final ? 'finalized' : 'ready',
    evidenceReady: final,
    preparedAt: '2026-01-05T09:00:00.000Z',
    openedAt: `2026-01-05T10:00:${String(n % 60).padStart(2, '0')}.000Z`,
    finalizedAt: final ? '2026-01-05T11:00:00.000Z' : undefined,
    readAt: '2026-01-05T11:01:00.000Z',
    final,
  };
}

/** Signed by everyone: the status that brings a document to rest. */
export const signed = trackedStatus(0, true);

/** The events that take a document from queued to prepared at the service. */
export function sent(documentId: string): BatchEvent[] {
  return [
    {
      type: 'upload_completed',
      documentId,
      uploadId: `u-${documentId}`,
      filename: 'c.pdf',
      sha256: 'a'.repeat(64),
      sizeBytes: 1000,
    },
    { type: 'request_created', documentId, requestId: `r-${documentId}`, replayed: false },
    { type: 'request_prepared', documentId, revision: 1, sha256: undefined, alreadyPrepared: false },
  ];
}

/**
 * A batch of `count` documents (doc-1…doc-n), each prepared at the service and none read yet:
 * the documents added in one record, the send in one, then each document's events in one.
 */
export async function preparedBatch(store: BatchStore, count: number): Promise<string> {
  const ids = Array.from({ length: count }, (_, index) => `doc-${index + 1}`);
  const batch = await store.create('Contracts', { defaultRecipients: [] });
  await store.record(
    batch.id,
    ids.map((_, index) => ({ type: 'document_added', document: draft(index + 1) })),
  );
  await store.record(batch.id, [{ type: 'send_requested', documentIds: ids }]);
  for (const id of ids) await store.record(batch.id, sent(id));
  return batch.id;
}
