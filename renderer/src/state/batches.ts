/** The `batches.*` channels: the list of batches and each batch's detail, mirrored from main. */
import type { BatchDefaults } from '../../../shared/domain/batch';
import { BridgeError, desk, unwrap } from '../bridge';
import { attempt, failureText } from './call-failures';
import type { StoreKit } from './store-shape';
import { withBatchDetail, withBatchList, withBatchSummary, withLoadError, withoutBatch } from './transitions';

export interface BatchesActions {
  list(): Promise<void>;
  /** Reads a batch's detail; when it cannot be read, its screen says why instead of waiting. */
  get(batchId: string): Promise<void>;
  /** Creates a batch, and opens it if the person is still where they asked for it. */
  create(name: string): Promise<void>;
  rename(batchId: string, name: string): Promise<void>;
  setDefaults(batchId: string, defaults: BatchDefaults): Promise<void>;
  delete(batchId: string): Promise<void>;
}

export function batchesActions(kit: StoreKit): BatchesActions {
  const { set, get, t } = kit;
  return {
    async list() {
      const batches = await attempt(kit, () => unwrap(desk().batches.list()));
      if (batches) set((state) => withBatchList(state, batches));
    },
    async get(batchId) {
      try {
        const detail = await unwrap(desk().batches.get(batchId));
        set((state) => withBatchDetail(state, detail));
      } catch (error) {
        const text =
          error instanceof BridgeError ? failureText(error, get().translator) : t('batches.loadFailed');
        set((state) => withLoadError(state, batchId, text));
      }
    },
    async create(name) {
      const from = get().screen;
      const batch = await attempt(kit, () => unwrap(desk().batches.create(name)));
      if (batch) {
        set((state) => withBatchSummary(state, batch));
        // Opened only if the person is still where they asked for it: one who went elsewhere
        // meanwhile, or clicked Batches again (a new screen object, by `navigate`), is not taken
        // away; the new batch is in the list.
        if (get().screen === from) get().actions.page.navigate({ name: 'batch', batchId: batch.id });
      }
    },
    async rename(batchId, name) {
      const batch = await attempt(kit, () => unwrap(desk().batches.rename(batchId, name)));
      if (batch) set((state) => withBatchSummary(state, batch));
    },
    async setDefaults(batchId, defaults) {
      const batch = await attempt(kit, () => unwrap(desk().batches.setDefaults(batchId, defaults)));
      if (batch) await get().actions.batches.get(batchId);
    },
    async delete(batchId) {
      const done = await attempt(kit, () => unwrap(desk().batches.delete(batchId)));
      if (done === null) set((state) => withoutBatch(state, batchId));
    },
  };
}
