import { useEffect, useId, useRef, useState } from 'react';
import { create } from 'zustand';
import type { DocumentView, EngineStateView, SendReview } from '../../../shared/ipc/views';
import { sentCount } from '../../../shared/domain/document-counts';
import { useT } from '../i18n';
import { countDocuments } from '../state/document-status';
import { useDesk } from '../state/store';
import { useModalDialog } from '../components/modal-dialog';

/**
 * The documents each batch's last confirmed review sent, until the person dismisses its summary.
 * Kept per batch, so the summary never follows the person to another batch.
 */
const useSentBatches = create<{
  readonly sent: Readonly<Record<string, readonly string[]>>;
  remember(batchId: string, documentIds: readonly string[]): void;
  forget(batchId: string): void;
}>((set) => ({
  sent: {},
  remember: (batchId, documentIds) => set((state) => ({ sent: { ...state.sent, [batchId]: documentIds } })),
  forget: (batchId) =>
    set((state) => {
      const { [batchId]: _forgotten, ...rest } = state.sent;
      return { sent: rest };
    }),
}));

type Loaded =
  | { readonly kind: 'loading' }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'ready'; readonly review: SendReview };

/** The service's host as a person reads it in "Send 12 documents to sign.example.com". */
function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

/**
 * The review before "Send batch" (README "Using the app", Send batch): main's account of what goes
 * (`actions.sending.review`) — how many documents, to how many people, with which connection,
 * and which documents stay behind and why. Confirming sends exactly that (`actions.sending.start`);
 * cancelling (or Escape) sends nothing; when main refuses because the batch changed since (`review_outdated`), the dialog
 * says so and offers to review again. A native modal dialog: the page behind is inert, the focus starts on the summary,
 * with the confirmation one Tab away (Cancel when nothing can go), and returns to "Send batch" when the dialog closes. A batch whose
 * connection cannot be used, or with nothing ready, cannot be confirmed; errors show in the dialog.
 */
export function ReviewDialog({
  batchId,
  batchName,
  onClose,
}: {
  batchId: string;
  batchName: string;
  /** `sent`: the review was confirmed and the batch is on its way. */
  onClose: (sent: boolean) => void;
}) {
  const t = useT();
  const id = useId();
  const dialog = useModalDialog();
  const confirmButton = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const againButton = useRef<HTMLButtonElement>(null);
  const summary = useRef<HTMLParagraphElement>(null);
  const remember = useSentBatches((state) => state.remember);
  const { actions } = useDesk.getState();
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  const [sending, setSending] = useState(false);
  const [sendError, setSendError] = useState<string | undefined>();
  /** Main refused the confirmation: the batch changed since this review (or is being sent). */
  const [outdated, setOutdated] = useState(false);
  /** Bumped by "Review again": main is asked for a fresh review. */
  const [round, setRound] = useState(0);

  useEffect(() => {
    let current = true;
    void actions.sending.review(batchId).then((answer) => {
      if (current)
        setLoaded(
          answer.ok ? { kind: 'ready', review: answer.value } : { kind: 'failed', message: answer.error },
        );
    });
    return () => {
      current = false;
    };
    // Read anew in another language (`t` changed): main words the review's problems in it.
  }, [actions, batchId, t, round]);

  const review = loaded.kind === 'ready' ? loaded.review : undefined;
  const connection = review?.connection;
  const canSend =
    review?.reviewed !== undefined && connection !== undefined && review.documentIds.length > 0 && !outdated;

  // Once main answered, the focus goes to what it says: the summary, read first, with the
  // confirmation one Tab away (never on it: a second Enter would send what nobody read);
  // "Review again" when main refused; Cancel when nothing can go.
  useEffect(() => {
    if (loaded.kind === 'loading') return;
    (outdated ? againButton : canSend ? summary : cancelButton).current?.focus();
  }, [loaded.kind, canSend, outdated]);

  async function confirm() {
    if (!review?.reviewed || sending) return;
    setSending(true);
    setSendError(undefined);
    // Exactly what this review showed goes, or main refuses: never what changed since.
    const answer = await actions.sending.start(batchId, review.reviewed);
    if (answer.ok) {
      remember(batchId, review.documentIds);
      onClose(true);
      return;
    }
    setOutdated(answer.error.outdated);
    setSendError(answer.error.message);
    setSending(false);
  }

  function reviewAgain() {
    setOutdated(false);
    setSendError(undefined);
    setLoaded({ kind: 'loading' });
    setRound((value) => value + 1);
  }

  return (
    <dialog
      ref={dialog}
      className="editor review-dialog"
      aria-labelledby={`${id}-title`}
      aria-busy={loaded.kind === 'loading' || sending}
      onCancel={(event) => {
        event.preventDefault();
        if (!sending) onClose(false);
      }}
    >
      <h3 id={`${id}-title`}>{t('review.title', { name: batchName })}</h3>
      {loaded.kind === 'loading' && <p role="status">{t('review.loading')}</p>}
      {loaded.kind === 'failed' && <p role="alert">{loaded.message}</p>}
      {review && (
        <>
          <p ref={summary} tabIndex={-1} className="review-summary">
            {t('review.summary', { documents: review.documentIds.length, people: review.people })}
          </p>
          <section aria-labelledby={`${id}-connection`}>
            <h4 id={`${id}-connection`}>{t('review.connectionHeading')}</h4>
            {connection ? (
              <>
                <dl className="review-connection">
                  <dt>{t('review.connectionName')}</dt>
                  <dd>{connection.name ?? t('review.unnamed')}</dd>
                  <dt>{t('review.serviceAddress')}</dt>
                  <dd className="mono">{connection.baseUrl}</dd>
                  <dt>{t('review.clientId')}</dt>
                  <dd className="mono">{connection.clientId}</dd>
                </dl>
                <p className="hint">{t(connection.bound ? 'review.bound' : 'review.active')}</p>
              </>
            ) : (
              <p className="problem" role="alert">
                {t('review.connectionProblem', { problem: review.connectionProblem ?? '' })}
              </p>
            )}
          </section>
          {review.blocked.length > 0 && (
            <section aria-labelledby={`${id}-blocked`}>
              <h4 id={`${id}-blocked`}>{t('review.blockedHeading', { count: review.blocked.length })}</h4>
              <p className="hint">{t('review.blockedHint', { count: review.blocked.length })}</p>
              <ul className="review-blocked">
                {review.blocked.map((document) => (
                  <li key={document.id}>
                    {/* One message: each language puts its own space before the colon (French a non-breaking one). */}
                    {t('review.blockedDocument', {
                      reference: document.externalReference,
                      problems: document.problems.join(' '),
                    })}
                  </li>
                ))}
              </ul>
            </section>
          )}
          {review.documentIds.length === 0 && (
            <p className="problem" role="alert">
              {t('review.nothingToSend')}
            </p>
          )}
        </>
      )}
      {sendError && (
        <p className="problem" role="alert">
          {sendError}
        </p>
      )}
      <div className="row">
        {outdated && (
          <button ref={againButton} type="button" className="primary" onClick={reviewAgain}>
            {t('review.reviewAgain')}
          </button>
        )}
        {canSend && connection && (
          <button
            ref={confirmButton}
            type="button"
            className="primary"
            disabled={sending}
            onClick={() => void confirm()}
          >
            {sending
              ? t('review.starting')
              : t('review.confirm', { count: review.documentIds.length, host: hostOf(connection.baseUrl) })}
          </button>
        )}
        <button ref={cancelButton} type="button" disabled={sending} onClick={() => onClose(false)}>
          {t('common.cancel')}
        </button>
      </div>
    </dialog>
  );
}

/**
 * The tone of what a send did: good news only when every document it took went; a failure or a
 * document that needs the person's check makes it a warning, never the success green.
 */
export function sentSummaryTone(counts: {
  readonly failed: number;
  readonly needsCheck: number;
}): 'banner-success' | 'banner-warning' {
  return counts.failed + counts.needsCheck > 0 ? 'banner-warning' : 'banner-success';
}

/**
 * What the last confirmed send did, once the batch's engine finished: how many of the documents
 * it took wait for signatures now, failed, or need the person's check — each counted from main's
 * classification of that document, never guessed. Stays until dismissed; only on its batch.
 */
export function SentSummary({
  batchId,
  documents,
  engine,
}: {
  batchId: string;
  documents: readonly DocumentView[];
  engine: EngineStateView;
}) {
  const t = useT();
  const sentIds = useSentBatches((state) => state.sent[batchId]);
  const forget = useSentBatches((state) => state.forget);
  const banner = useRef<HTMLDivElement>(null);
  const taken = new Set(sentIds);
  const mine = documents.filter((document) => taken.has(document.id));
  // The batch's one count, of the documents this send took.
  const counts = countDocuments(mine);
  const sent = sentCount(counts);
  const failed = counts.failed;
  const needsCheck = counts.needs_check;
  const shown =
    sentIds !== undefined &&
    engine.state === 'finished' &&
    // Still on their way (the finish of an earlier run, not this one's): nothing to say yet.
    counts.not_sent + counts.sending === 0 &&
    sent + failed + needsCheck > 0; // all gone meanwhile: the table says so
  // The focus the finish leaves on the page (or on "Pause sending", disabled as "Send batch" once
  // nothing is left to send) comes here rather than to the page's body.
  useEffect(() => {
    const holder = document.activeElement;
    const lost =
      holder === null || holder === document.body || (holder as HTMLButtonElement).disabled === true;
    if (shown && lost) banner.current?.focus();
  }, [shown]);
  if (!shown) return null;
  return (
    <div
      ref={banner}
      tabIndex={-1}
      className={`banner ${sentSummaryTone({ failed, needsCheck })} banner-with-action`}
      role="status"
    >
      <p>
        {sent > 0 && t('review.sent', { count: sent })}{' '}
        {failed > 0 && t('review.sentFailed', { count: failed })}{' '}
        {needsCheck > 0 && t('review.sentNeedsCheck', { count: needsCheck })}
      </p>
      <button type="button" onClick={() => forget(batchId)}>
        {t('common.dismiss')}
      </button>
    </div>
  );
}
