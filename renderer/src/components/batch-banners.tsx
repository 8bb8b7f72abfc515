import type { ClassCounts } from '../../../shared/domain/document-counts';
import type { BatchDetail } from '../../../shared/ipc/views';
import { useT, useTranslator } from '../i18n';
import { connectionProblemId } from '../state/connection-status';
import { useDesk } from '../state/store';

/**
 * What a batch's sending waits for, or why it stopped, each with its way out (README
 * "Using the app", Send batch): a service that is slow to answer (Pause sending), a service that
 * cannot be reached or asked to wait (Try now), a pause, a connection that cannot be used, a
 * stop; documents no longer at their service (what that means, and Check again); and a ceremony
 * window that is opening, or could not open (the reason, Try again).
 */
export function BatchBanners({
  detail,
  counts,
}: {
  readonly detail: BatchDetail;
  /** The batch's one count (`countDocuments`): "N documents will continue" is its documents on their way. */
  readonly counts: ClassCounts;
}) {
  const t = useT();
  const { locale } = useTranslator();
  const ceremony = useDesk((state) =>
    state.ceremonyAttempt?.batchId === detail.id ? state.ceremonyAttempt : undefined,
  );
  const { actions } = useDesk.getState();
  const { engine } = detail;
  const unfinished = counts.sending;
  const time = (epochMs: number) => new Intl.DateTimeFormat(locale, { timeStyle: 'medium' }).format(epochMs);
  // A pause waiting for the answers to calls already sent: the run still runs, and main's reason
  // says what it waits for (no other running state carries a reason).
  const draining = engine.state === 'running' ? engine.reason : undefined;

  return (
    <>
      {/* One at a time: while sending waits for its service, the wait says why (its calls may
          still be unanswered); the slowness is said again when sending tries again. While a
          pause waits for its calls' answers, that is said: nothing more is tried. */}
      {draining !== undefined && (
        <p className="banner" role="status">
          {draining}
        </p>
      )}
      {engine.state === 'running' && draining === undefined && engine.slow && (
        <div className="banner banner-with-action" role="status">
          <p>
            {t('waits.serviceSlow')} {t('waits.serviceSlowHelp')}
          </p>
          <button type="button" onClick={() => void actions.sending.pause(detail.id)}>
            {t('waits.pauseSending')}
          </button>
        </div>
      )}
      {engine.state === 'waiting' && (
        <div className="banner banner-with-action" role="status">
          <p>
            {engine.reason ?? t('waits.waitingForService')}
            {engine.resumesAt ? ` ${t('waits.nextTry', { time: time(engine.resumesAt) })}` : ''}{' '}
            {t('waits.nothingLost')}
          </p>
          <button type="button" onClick={() => void actions.sending.tryNow(detail.id)}>
            {t('waits.tryNow')}
          </button>
        </div>
      )}
      {engine.state === 'paused' && unfinished > 0 && (
        <p className="banner" role="status">
          {t('waits.paused', { count: unfinished })}
        </p>
      )}
      {counts.gone > 0 && (
        <p className="banner" role="status">
          {t('batch.goneHelp', { count: counts.gone })}
        </p>
      )}
      {detail.connectionProblem && (
        <p id={connectionProblemId(detail.id)} className="banner banner-error" role="alert">
          {detail.connectionProblem}
        </p>
      )}
      {engine.state === 'stopped' && engine.reason && (
        <p className="banner banner-error" role="alert">
          {t('waits.stopped', { reason: engine.reason })}
        </p>
      )}
      {ceremony?.state === 'opening' && (
        <p className="banner" role="status">
          {t('waits.ceremonyOpening', { reference: ceremony.reference })}
        </p>
      )}
      {ceremony?.state === 'failed' && (
        <div className="banner banner-error banner-with-action" role="alert">
          <p>
            <strong>{t('waits.ceremonyFailed', { reference: ceremony.reference })}</strong> {ceremony.message}
          </p>
          <button
            type="button"
            onClick={() => void actions.ceremony.open(ceremony.batchId, ceremony.documentId)}
          >
            {t('common.tryAgain')}
          </button>
          <button type="button" onClick={actions.ceremony.dismissProblem}>
            {t('common.dismiss')}
          </button>
        </div>
      )}
    </>
  );
}
