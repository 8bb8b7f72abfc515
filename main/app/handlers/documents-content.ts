import type { DeskHandlers } from '../../../shared/ipc/contract';
import { MAX_PDF_BYTES } from '../../../shared/service/limits';
import { DeskError } from '../desk-error';
import type { DeskContext } from '../desk-context';

/**
 * The bytes of a document for its preview, from the app's own copy in the data folder (found by
 * the document's digest): the page names a batch and a document, never a path. Base64 crosses
 * both hosts' bridges alike; the copy is bounded by the largest PDF the app takes in, so a
 * damaged store cannot send the page an endless answer.
 */
export function documentsContentHandlers(ctx: DeskContext): Pick<DeskHandlers, 'documents.content'> {
  return {
    'documents.content': async (batchId, documentId) => {
      const document = (await ctx.openBatch(batchId)).documents.find(
        (candidate) => candidate.draft.id === documentId,
      );
      if (!document) throw new DeskError('document_not_found', ctx.translator().t('errors.documentNotFound'));
      const { sha256, storedFilename } = document.draft.pdf;
      const missing = () => new DeskError('document_copy_missing', ctx.translator().t('preview.copyMissing'));
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of ctx.blobs.openRead(sha256) as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > MAX_PDF_BYTES)
            throw new DeskError('document_too_large', ctx.translator().t('preview.tooLarge'));
          chunks.push(chunk);
        }
      } catch (error) {
        if (error instanceof DeskError) throw error;
        ctx.logger.log('warn', 'preview.copy_unreadable', {
          batchId,
          error: error instanceof Error ? error.name : typeof error,
        });
        throw missing();
      }
      return { storedFilename, sha256, base64: Buffer.concat(chunks, size).toString('base64') };
    },
  };
}
