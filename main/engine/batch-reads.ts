/**
 * The batch a send works on, read from the data folder as it is now: every step reads it afresh,
 * since the batch changes under a run (answers recorded by other workers, a document edited, a
 * check answered).
 */
import type { BatchState, DocumentState } from '../domain/batch-state';
import type { ContractInBatch } from '../domain/contract-digest';
import type { BatchStore } from '../store/batch-store';

/** The batch as the data folder holds it now; throws when it holds none of that id (deleted meanwhile). */
export function batchOf(store: BatchStore, batchId: string): BatchState {
  const batch = store.get(batchId);
  if (!batch) throw new Error(`unknown batch ${batchId}`);
  return batch;
}

/** One document of the batch as the data folder holds it now; undefined when it was removed. */
export function documentOf(
  store: BatchStore,
  batchId: string,
  documentId: string,
): DocumentState | undefined {
  return batchOf(store, batchId).documents.find((document) => document.draft.id === documentId);
}

/**
 * One document of the batch as the data folder holds it now, read back if the batch is at rest
 * (main/domain/batch-rest.ts); undefined when it, or its batch, was removed. From the batch the
 * read gave: a batch at rest may leave memory again as soon as it is read (others opened since).
 */
export async function documentNow(
  store: BatchStore,
  batchId: string,
  documentId: string,
): Promise<DocumentState | undefined> {
  const batch = await store.open(batchId);
  return batch?.documents.find((document) => document.draft.id === documentId);
}

/**
 * Every document of the data folder as its contract digest, with its batch's name: what a
 * question over the whole folder (is this request id another document's?) needs. A batch at
 * rest answers from what it keeps, without being read.
 */
export function* everyContract(store: BatchStore): Generator<ContractInBatch> {
  for (const batch of store.outlines())
    for (const contract of store.contracts(batch.id)) yield { batchName: batch.name, contract };
}
