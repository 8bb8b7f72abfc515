import { vi } from 'vitest';
import type { BatchStore } from '../../main/store/batch-store';

/**
 * Runs `send` as a version before batches were bound to their connection did: `store` records
 * no binding meanwhile (the batch stays unbound, as that version left it).
 */
export async function sendingAsEarlierVersion<T>(store: BatchStore, send: () => Promise<T>): Promise<T> {
  const unrecorded = vi
    .spyOn(store, 'bindConnection')
    .mockImplementation((_batchId, address) => Promise.resolve(address));
  try {
    return await send();
  } finally {
    unrecorded.mockRestore();
  }
}
