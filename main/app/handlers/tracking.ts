import type { DeskHandlers } from '../../../shared/ipc/contract';
import { needsTracking } from '../../domain/document-class';
import { DeskError } from '../desk-error';
import type { DeskContext } from '../desk-context';

export function trackingHandlers(
  ctx: DeskContext,
): Pick<DeskHandlers, 'tracking.refreshNow' | 'tracking.checkAgain' | 'tracking.setPaused'> {
  return {
    'tracking.refreshNow': async (batchId) => {
      // Every batch at its own service: a batch's connection, or every open one. While tracking
      // is paused, the pollers read these once (asked for explicitly), and tracking stays paused.
      let reading = 0;
      let unreadable = 0;
      if (batchId) reading = (await ctx.connectionForBatch(batchId)).poller.refreshNow(batchId);
      else {
        for (const connected of ctx.sessions.all()) reading += connected.poller.refreshNow();
        // Requests whose batch has no open connection (deleted, its secret missing) are not read,
        // and are counted: "nothing to check" would be untrue while they wait for signatures.
        for (const batch of ctx.store.loaded())
          if (!ctx.sessions.openFor(batch)) unreadable += batch.documents.filter(needsTracking).length;
      }
      return {
        reading,
        ...(unreadable > 0 ? { unreadable } : {}),
        ...(ctx.trackingPaused() ? { paused: true as const } : {}),
      };
    },
    'tracking.checkAgain': async (batchId, documentId) => {
      const current = await ctx.connectionForBatch(batchId);
      const outcome = await current.poller.checkAgain(batchId, documentId);
      if (!outcome.found) throw new DeskError('still_gone', outcome.message);
      return null;
    },
    'tracking.setPaused': async (paused) => {
      ctx.setTrackingPaused(paused);
      return null;
    },
  };
}
