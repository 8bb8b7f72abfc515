import type { DeskHandlers } from '../../../shared/ipc/contract';
import { ceremonyRefusal } from '../../domain/document-class';
import { serviceFailureWords } from '../../domain/service-failure';
import { DeskError } from '../desk-error';
import type { DeskContext } from '../desk-context';
import { CeremonyWindowFailure } from '../ceremony-window-failure';
import type { CeremonyRequest } from '../ports';

/**
 * Opens the ceremony's window; one that cannot open says why in the person's language (the page
 * shows it with "Try again"), rather than nothing visible happening.
 */
async function openWindow(ctx: DeskContext, request: CeremonyRequest): Promise<void> {
  try {
    await ctx.deps.ceremony.open(request);
  } catch (error) {
    if (!(error instanceof CeremonyWindowFailure)) throw error;
    const { t } = ctx.translator();
    const { problem } = error;
    throw new DeskError(
      error.code,
      problem.kind === 'no_display'
        ? t('waits.ceremonyNoDisplay')
        : problem.kind === 'load_failed'
          ? t('waits.ceremonyLoadFailed', { code: problem.code })
          : problem.code === null
            ? t('waits.ceremonyStopped')
            : t('waits.ceremonyExited', { code: String(problem.code) }),
    );
  }
}

export function ceremonyHandlers(ctx: DeskContext): Pick<DeskHandlers, 'ceremony.open'> {
  return {
    'ceremony.open': async (batchId, documentId) => {
      const current = await ctx.connectionForBatch(batchId);
      const document = (await ctx.openBatch(batchId)).documents.find(
        (candidate) => candidate.draft.id === documentId,
      );
      const requestId = document?.send.requestId;
      if (!document || !requestId) {
        throw new DeskError('not_prepared', ctx.translator().t('errors.notPrepared'));
      }
      const refusal = ceremonyRefusal(document);
      if (refusal) throw new DeskError('ceremony_unavailable', ctx.translator().t(refusal));
      const key = `${batchId}/${documentId}`;
      // Already open (Electron): bring it forward rather than create a second session. The
      // browser host replaces the window instead, closing the first (its onClosed runs first).
      if (ctx.deps.ceremony.focus?.(key)) return { alreadyOpen: true as const };
      const session = await current.client.createWidgetSession(requestId);
      const { t } = ctx.translator();
      if (!session.ok) throw new DeskError(session.error.code, serviceFailureWords(session.error, t));
      await openWindow(ctx, {
        key,
        title: t('shell.ceremonyTitle', { reference: document.draft.externalReference }),
        session: session.value,
        renew: () => current.client.createWidgetSession(requestId),
        onClosed: () => {
          current.poller.unwatch(batchId, documentId);
          ctx.deps.emit('ceremony.closed', { batchId, documentId });
        },
      });
      // Read quickly while someone signs: after the window opened, so that a window it replaced
      // (closing, and unwatching) cannot end the quick reading of this one.
      current.poller.watch(batchId, documentId);
      return { alreadyOpen: false as const, expiresInSeconds: session.value.expiresInSeconds };
    },
  };
}
