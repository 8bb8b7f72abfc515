/**
 * The batch a send works on, read from the data folder as it is now: every step reads it afresh,
 * since the batch changes under a run (answers recorded by other workers, a document edited, a
 * check answered).
 */
import type { BatchState, DocumentState } from '../domain/batch-state';
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
