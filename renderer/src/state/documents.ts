/** The `documents.*` channels: adding PDFs to a batch, editing and removing its documents. */
import { ADD_PATHS_MAX } from '../../../shared/ipc/contract';
import type { AddDocumentsResult, DocumentEdit } from '../../../shared/ipc/views';
import { desk, unwrap } from '../bridge';
import { attempt, checkAnswer } from './call-failures';
import type { StoreKit } from './store-shape';
import { withBatchDetail, withNotAddedNotice, withNotice } from './transitions';

export interface DocumentsActions {
  /**
   * Adds files by path, in calls of at most ADD_PATHS_MAX files (so no pick is refused for its
   * count); with `folder` (the one they were listed from), each must stay inside it. Says in one
   * notice what was added and in one why any files were not.
   */
  addPaths(batchId: string, paths: readonly string[], folder?: string): Promise<void>;
  /** Files dropped on the batch: PDFs are added (`documents.addPaths`), anything else is named and left out. */
  addDroppedFiles(batchId: string, files: readonly File[]): Promise<void>;
  /** Saves a document's edit; main's refusal comes back in words for the editor (not a notice behind it), undefined once saved. */
  update(batchId: string, documentId: string, edit: DocumentEdit): Promise<string | undefined>;
  remove(batchId: string, documentId: string): Promise<void>;
}

export function documentsActions(kit: StoreKit): DocumentsActions {
  const { set, get, t } = kit;
  return {
    async addPaths(batchId, paths, folder) {
      if (paths.length === 0) return;
      let added = 0;
      const rejected: AddDocumentsResult['rejected'][number][] = [];
      for (let start = 0; start < paths.length; start += ADD_PATHS_MAX) {
        const chunk = paths.slice(start, start + ADD_PATHS_MAX);
        const result = await attempt(kit, () =>
          unwrap(desk().documents.addPaths(batchId, chunk, ...(folder === undefined ? [] : [folder]))),
        );
        if (!result) {
          if (start === 0) return; // nothing happened: the notice says why
          break;
        }
        added += result.added;
        rejected.push(...result.rejected);
      }
      if (added > 0) set((state) => withNotice(state, 'success', t('batches.added', { count: added })));
      set((state) => withNotAddedNotice(state, rejected));
      await get().actions.batches.get(batchId);
    },
    async addDroppedFiles(batchId, files) {
      const api = desk();
      const paths: string[] = [];
      const skipped: string[] = [];
      for (const file of files) {
        const path = /\.pdf$/i.test(file.name) ? api.pathForFile(file) : undefined;
        if (path) paths.push(path);
        else skipped.push(file.name);
      }
      if (skipped.length > 0) {
        const browserCannotRead =
          api.host === 'browser' && paths.length === 0 && files.some((file) => /\.pdf$/i.test(file.name));
        const names = skipped.join(', ');
        set((state) =>
          withNotice(
            state,
            'error',
            browserCannotRead ? t('host.dropNotReadable', { names }) : t('batches.dropOnlyPdfs', { names }),
          ),
        );
      }
      await get().actions.documents.addPaths(batchId, paths);
    },
    async update(batchId, documentId, edit) {
      const answer = await checkAnswer(kit, async () => {
        const detail = await unwrap(desk().documents.update(batchId, documentId, edit));
        set((state) => withBatchDetail(state, detail));
      });
      return answer.ok ? undefined : answer.error.message;
    },
    async remove(batchId, documentId) {
      const detail = await attempt(kit, () => unwrap(desk().documents.remove(batchId, documentId)));
      if (detail) set((state) => withBatchDetail(state, detail));
    },
  };
}
