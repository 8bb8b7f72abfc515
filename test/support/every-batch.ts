import type { BatchState } from '../../main/domain/batch-state';
import type { BatchStore } from '../../main/store/batch-store';

/**
 * Every batch of a store, oldest first, each read back from its snapshot if it is at rest: the
 * whole data folder, as a test checks it (the app itself reads a batch at rest only when opened).
 */
export async function everyBatch(store: BatchStore): Promise<BatchState[]> {
  const batches: BatchState[] = [];
  for (const outline of store.outlines()) {
    const batch = await store.open(outline.id);
    if (batch) batches.push(batch);
  }
  return batches;
}
