import type { DeskHandlers } from '../../../shared/ipc/contract';
import { DeskError } from '../desk-error';
import type { DeskContext } from '../desk-context';

export function ceremonyHandlers(ctx: DeskContext): Pick<DeskHandlers, 'ceremony.open'> {
  return {
    'ceremony.open': async (batchId, documentId) => {
      const current = await ctx.connectionForBatch(batchId);
      const document = ctx
        .batchOrThrow(batchId)
        .documents.find((candidate) => candidate.draft.id === documentId);
      const requestId = document?.send.requestId;
      if (!document || !requestId || !document.send.prepared) {
        throw new DeskError('not_prepared', 'This document has not been prepared yet: send it first.');
      }
      const key = `${batchId}/${documentId}`;
      // Already open: bring it forward rather than create a second session.
      if (ctx.deps.ceremonies.focus?.(key)) return { alreadyOpen: true as const };
      const session = await current.client.createWidgetSession(requestId);
      if (!session.ok) throw new DeskError(session.error.code, session.error.message);
      // Read quickly while someone waits (undone below if the window cannot open).
      current.poller.watch(batchId, documentId);
      try {
        await ctx.deps.ceremonies.open({
          key,
          title: `Signing ceremony — ${document.draft.externalReference}`,
          session: session.value,
          renew: () => current.client.createWidgetSession(requestId),
          onClosed: () => {
            current.poller.unwatch(batchId, documentId);
            ctx.deps.emit('ceremony.closed', { batchId, documentId });
          },
        });
      } catch (error) {
        current.poller.unwatch(batchId, documentId, 0);
        throw error;
      }
      return { alreadyOpen: false as const, expiresInSeconds: session.value.expiresInSeconds };
    },
  };
}
