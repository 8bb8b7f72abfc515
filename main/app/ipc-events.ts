import { engineReasonText } from '../domain/send-messages';
import type { SendEngineEvent } from '../engine/send-events';
import type { PollerEvent } from '../tracking/status-poller';
import { documentViewOf } from './batch-views';
import type { DeskContext } from './desk-context';

/**
 * The one place where what the engines and pollers of every connection report becomes IPC
 * events for the page (and notifications for the user).
 */
export function ipcEvents(ctx: DeskContext): {
  onEngineEvent(event: SendEngineEvent): void;
  onPollerEvent(event: PollerEvent): void;
} {
  const { deps } = ctx;
  /** The batch's name as the person gave it (its id, should it be gone meanwhile). */
  const batchName = (batchId: string) => ctx.store.get(batchId)?.name ?? batchId;
  return {
    onEngineEvent(event) {
      switch (event.type) {
        case 'item-progress':
          deps.emit('sending.progress', {
            batchId: event.batchId,
            documentId: event.documentId,
            phase: event.phase,
            ...(event.sentBytes === undefined
              ? {}
              : { sentBytes: event.sentBytes, totalBytes: event.totalBytes }),
            ...(event.upload === undefined ? {} : { upload: event.upload }),
          });
          return;
        case 'engine-state':
          ctx.engineStates.set(event.batchId, {
            state: event.state,
            // Worded here, in the person's language: the engine's English is for the command line.
            // A service that cannot be reached, or is unavailable for a while, is waited out by
            // itself: said so (a document's own words would also ask the person to try later).
            ...(event.unreachable
              ? { reason: ctx.translator().t('waits.unreachable') }
              : event.state === 'waiting' && event.cause?.code === 'upstream_unavailable'
                ? { reason: ctx.translator().t('waits.unavailable') }
                : event.cause
                  ? { reason: engineReasonText(event.cause, ctx.translator().t) }
                  : event.reason
                    ? { reason: event.reason }
                    : {}),
            ...(event.resumesAt ? { resumesAt: event.resumesAt } : {}),
            // Slowness is the calls' own: it ends when they do, whatever the queue's state.
            ...(ctx.engineState(event.batchId).slow ? { slow: true } : {}),
          });
          deps.emit('sending.state', { batchId: event.batchId, engine: ctx.engineState(event.batchId) });
          ctx.announce(event.batchId);
          return;
        case 'draining':
          // A pause or a quit: nothing more leaves; the calls on their way are being answered.
          ctx.engineStates.set(event.batchId, {
            ...ctx.engineState(event.batchId),
            state: 'running',
            reason: ctx.translator().t('waits.draining', { calls: event.calls }),
          });
          deps.emit('sending.state', { batchId: event.batchId, engine: ctx.engineState(event.batchId) });
          ctx.announce(event.batchId);
          return;
        case 'trying-again': {
          // The wait and its "next try at" are over; the slowness of the new tries is said as it is.
          const { slow } = ctx.engineState(event.batchId);
          ctx.engineStates.set(event.batchId, { state: 'running', ...(slow ? { slow: true } : {}) });
          deps.emit('sending.state', { batchId: event.batchId, engine: ctx.engineState(event.batchId) });
          ctx.announce(event.batchId);
          return;
        }
        case 'service-slow': {
          const { slow: _wasSlow, ...engine } = ctx.engineState(event.batchId);
          ctx.engineStates.set(event.batchId, { ...engine, ...(event.slow ? { slow: true } : {}) });
          deps.emit('sending.state', { batchId: event.batchId, engine: ctx.engineState(event.batchId) });
          ctx.announce(event.batchId);
          return;
        }
        default:
          return;
      }
    },
    onPollerEvent(event) {
      if (event.type === 'checked') {
        deps.emit('tracking.checked', { batchId: event.batchId, documentId: event.documentId, at: event.at });
      } else if (event.type === 'status-changed') {
        const batch = ctx.store.get(event.batchId);
        const document = batch?.documents.find((candidate) => candidate.draft.id === event.documentId);
        if (batch && document)
          deps.emit('tracking.status', {
            batchId: event.batchId,
            documentId: event.documentId,
            document: documentViewOf(batch, document, ctx.translator().t),
          });
      } else if (event.type === 'completed') {
        deps.emit('tracking.completed', event);
        // In the person's language, like every word the desk shows, and naming its batch: the
        // same reference can be in several, and the desk may be in the tray.
        const { t } = ctx.translator();
        deps.notifier.notify(
          t('common.fullySignedTitle'),
          t('common.fullySigned', { reference: event.externalReference, batch: batchName(event.batchId) }),
        );
      } else if (event.type === 'ended') {
        // Nobody can sign it any more: the person hears of it as of a completion.
        const { t } = ctx.translator();
        deps.notifier.notify(
          t('common.endedTitle'),
          t('common.ended', {
            reference: event.externalReference,
            batch: batchName(event.batchId),
            status: event.status,
          }),
        );
      }
    },
  };
}
