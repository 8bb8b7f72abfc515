import type { DeskHandlers } from '../../../shared/ipc/contract';
import type { DocumentDraft } from '../../../shared/domain/batch';
import { addPdfDocuments, notAddedWords } from '../../engine/batch-preparation';
import { isLocked } from '../../domain/batch-state';
import { detailOf } from '../batch-views';
import { DeskError } from '../desk-error';
import type { DeskContext } from '../desk-context';

export function documentsHandlers(
  ctx: DeskContext,
): Pick<DeskHandlers, 'documents.addPaths' | 'documents.update' | 'documents.remove'> {
  /** A document of the batch that may still be changed: not sent yet. */
  async function editableDocument(batchId: string, documentId: string) {
    const document = (await ctx.openBatch(batchId)).documents.find(
      (candidate) => candidate.draft.id === documentId,
    );
    if (!document) throw new DeskError('document_not_found', ctx.translator().t('errors.documentNotFound'));
    if (isLocked(document)) {
      throw new DeskError('document_locked', ctx.translator().t('errors.documentLocked'));
    }
    return document;
  }

  return {
    'documents.addPaths': async (batchId, paths, folder) => {
      ctx.outlineOrThrow(batchId);
      const { added, rejected } = await addPdfDocuments(ctx.store, ctx.blobs, batchId, paths, folder);
      const { t } = ctx.translator();
      return {
        added: added.length,
        rejected: rejected.map((file) => ({
          path: file.path,
          code: file.code,
          message: notAddedWords(file, t),
        })),
      };
    },
    'documents.update': async (batchId, documentId, edit) => {
      const document = await editableDocument(batchId, documentId);
      const draft: DocumentDraft = {
        ...document.draft,
        ...edit,
        options: edit.options ?? document.draft.options,
      };
      const batch = await ctx.store.record(batchId, [{ type: 'document_edited', document: draft }]);
      return detailOf(batch, ctx.engineState(batchId), ctx.sessions.problemOf(batchId), ctx.translator().t);
    },
    'documents.remove': async (batchId, documentId) => {
      await editableDocument(batchId, documentId);
      const batch = await ctx.store.record(batchId, [{ type: 'document_removed', documentId }]);
      return detailOf(batch, ctx.engineState(batchId), ctx.sessions.problemOf(batchId), ctx.translator().t);
    },
  };
}
