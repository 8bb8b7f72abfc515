import type { DeskHandlers } from '../../../shared/ipc/contract';
import type { DeskErrorCode } from '../../../shared/ipc/error-codes';
import { sameConnection } from '../../domain/batch-connection';
import type { ResolutionRefusal } from '../../domain/check-resolution';
import { classOf } from '../../domain/document-class';
import { documentsToSend, sendDigest } from '../../domain/send-readiness';
import { DeskError } from '../desk-error';
import type { DeskContext } from '../desk-context';

/** The error code the page gets for each way an answer to a check is refused. */
const RESOLUTION_REFUSAL_CODES: Readonly<Record<ResolutionRefusal, DeskErrorCode>> = {
  refused: 'check_answer_refused',
  needs_confirmation: 'link_needs_confirmation',
  service_unreachable: 'service_unreachable',
};

export function sendingHandlers(
  ctx: DeskContext,
): Pick<
  DeskHandlers,
  | 'sending.start'
  | 'sending.resume'
  | 'sending.pause'
  | 'sending.retry'
  | 'sending.tryNow'
  | 'sending.linkRequest'
  | 'sending.sendAsNew'
> {
  return {
    'sending.start': async (batchId, reviewed) => {
      const { t } = ctx.translator();
      const outdated = () => new DeskError('review_outdated', t('review.outdated'));
      // Drafts another batch already sent stay behind, as the review showed them.
      const heldBack = await ctx.heldBackOf(await ctx.openBatch(batchId));
      // What would go now is what was reviewed: the same documents, unchanged, nothing added.
      const documentsAsReviewed = async () => {
        const batch = await ctx.openBatch(batchId);
        const going = documentsToSend(batch, undefined, (document) => heldBack(document) !== undefined);
        const ids = going.map((document) => document.draft.id);
        return (
          ids.length === reviewed.documentIds.length &&
          ids.every((documentId) => reviewed.documentIds.includes(documentId)) &&
          sendDigest(batch, going) === reviewed.digest
        );
      };
      // The connection sending would use now (it may wait for the keychain), never bound by looking.
      const current = await ctx.connectionForBatch(batchId);
      // A send in progress would not take these documents (engine.send joins it): said, not dropped.
      const busy = () => new DeskError('already_sending', t('review.alreadySending'));
      if (!sameConnection(current.connection, reviewed.connection)) throw outdated();
      if (current.engine.isRunning(batchId)) throw busy();
      if (!(await documentsAsReviewed())) throw outdated();
      if (reviewed.documentIds.length === 0) return ctx.engineState(batchId);
      // Bound to the reviewed connection itself (not whichever is active by now); the first binding stands.
      const bound = await ctx.store.bindConnection(batchId, current.connection);
      if (!sameConnection(bound, reviewed.connection) || !(await documentsAsReviewed())) throw outdated();
      if (current.engine.isRunning(batchId)) throw busy(); // started while binding (another window)
      ctx.runSend(batchId, current, reviewed.documentIds);
      return ctx.engineState(batchId);
    },
    'sending.resume': async (batchId) => {
      // Only what was queued before goes on; a document never queued leaves through the review only.
      const batch = await ctx.openBatch(batchId);
      if (!batch.documents.some((document) => classOf(document) === 'sending'))
        return ctx.engineState(batchId);
      const current = await ctx.connectionForBatch(batchId);
      if (!current.engine.isRunning(batchId)) ctx.runSend(batchId, current);
      return ctx.engineState(batchId);
    },
    'sending.pause': async (batchId) => {
      ctx.sessions.openFor(ctx.outlineOrThrow(batchId))?.engine.pause(batchId);
      return ctx.engineState(batchId);
    },
    'sending.tryNow': async (batchId) => {
      ctx.sessions.openFor(ctx.outlineOrThrow(batchId))?.engine.tryNow(batchId);
      return ctx.engineState(batchId);
    },
    'sending.retry': async (batchId, documentId) => {
      const current = await ctx.connectionForBatch(batchId, { bind: true });
      await current.engine.retry(batchId, documentId);
      if (!current.engine.isRunning(batchId)) ctx.runSend(batchId, current);
      return ctx.engineState(batchId);
    },
    'sending.linkRequest': async (batchId, documentId, requestId, options) => {
      const current = await ctx.connectionForBatch(batchId, { bind: true });
      const linked = await current.engine.linkRequest(batchId, documentId, requestId, options);
      if (!linked.ok)
        throw new DeskError(RESOLUTION_REFUSAL_CODES[linked.error.refusal], linked.error.message);
      if (!current.engine.isRunning(batchId)) ctx.runSend(batchId, current);
      return ctx.engineState(batchId);
    },
    'sending.sendAsNew': async (batchId, documentId) => {
      const document = (await ctx.openBatch(batchId)).documents.find(
        (candidate) => candidate.draft.id === documentId,
      );
      if (document && !document.send.check && !document.send.queued) {
        // A draft another batch holds the reference of: it may go in the next review, on purpose.
        const looking = await ctx.connectionForBatch(batchId);
        await looking.engine.acceptReferenceReuse(batchId, documentId);
        ctx.announce(batchId);
        return ctx.engineState(batchId);
      }
      const current = await ctx.connectionForBatch(batchId, { bind: true });
      const resolved = await current.engine.sendAsNew(batchId, documentId);
      if (!resolved.ok)
        throw new DeskError(RESOLUTION_REFUSAL_CODES[resolved.error.refusal], resolved.error.message);
      if (!current.engine.isRunning(batchId)) ctx.runSend(batchId, current);
      return ctx.engineState(batchId);
    },
  };
}
