import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { ProfileDependents, ProfileView } from '../../../shared/ipc/views';
import { useT } from '../i18n';
import { connectionLabel } from '../../../shared/i18n/connection-label';
import { useDesk } from '../state/store';
import { useModalDialog } from '../components/modal-dialog';

/** How many of the batches that use the connection are named; the others are counted. */
const BATCHES_NAMED = 5;

type Loaded =
  | { readonly kind: 'loading' }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'ready'; readonly dependents: ProfileDependents };

/**
 * Deleting a connection (README "Using the app", Connections), said as it is: main counts what
 * uses it (`profiles.dependents`) — its batches' requests still waiting for signatures and their
 * documents not finished sending — and the dialog says what becomes of them: nothing is cancelled
 * at the service, the app stops reading them and cannot open their ceremonies, what was on its way
 * waits, the secret leaves the keychain, and a connection to the same service and client id added
 * again carries everything on. When anything depends on it, the person types its name to delete
 * it, and main refuses if more depends on it by then than was shown. A native modal dialog: the
 * focus starts on the name to type, or on Cancel, never on Delete.
 */
export function DeleteConnectionDialog({
  profile,
  onClose,
}: {
  profile: ProfileView;
  /** `deleted`: the connection is gone (its row with it). */
  onClose: (deleted: boolean) => void;
}) {
  const t = useT();
  const id = useId();
  const dialog = useModalDialog();
  const typedField = useRef<HTMLInputElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const refusalText = useRef<HTMLParagraphElement>(null);
  const { actions } = useDesk.getState();
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  const [typed, setTyped] = useState('');
  const [attempted, setAttempted] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [refusal, setRefusal] = useState<string | undefined>();
  /** Bumped when main refused because more depends on it now: counted again. */
  const [round, setRound] = useState(0);

  useEffect(() => {
    let current = true;
    void actions.profiles.dependents(profile.name).then((answer) => {
      if (current)
        setLoaded(
          answer.ok ? { kind: 'ready', dependents: answer.value } : { kind: 'failed', message: answer.error },
        );
    });
    return () => {
      current = false;
    };
  }, [actions, profile.name, t, round]);

  const dependents = loaded.kind === 'ready' ? loaded.dependents : undefined;
  const count = dependents ? dependents.openRequests + dependents.unfinished : 0;
  const needsName = count > 0;
  // The name as the dialog shows it (the demo connection's in the person's language).
  const shownName = connectionLabel(profile, t);
  const nameMatches = typed.trim() === shownName;

  // Once counted, the focus goes where the decision is: the name to type, or Cancel.
  useEffect(() => {
    if (loaded.kind === 'loading') return;
    if (refusal !== undefined) refusalText.current?.focus();
    else (needsName ? typedField : cancelButton).current?.focus();
  }, [loaded.kind, needsName, refusal]);

  async function confirm(event: FormEvent) {
    event.preventDefault();
    if (!dependents || deleting) return;
    if (needsName && !nameMatches) {
      setAttempted(true);
      typedField.current?.focus();
      return;
    }
    setDeleting(true);
    setRefusal(undefined);
    const answer = await actions.profiles.delete(profile.name, count);
    setDeleting(false);
    if (answer.ok) {
      onClose(true);
      return;
    }
    setRefusal(answer.error.message);
    if (answer.error.inUse) {
      // Shown again as it is now; the name is typed again for what is shown.
      setTyped('');
      setAttempted(false);
      setLoaded({ kind: 'loading' });
      setRound((value) => value + 1);
    }
  }

  const mismatch = attempted && needsName && !nameMatches;
  const shownBatches = dependents?.batches.slice(0, BATCHES_NAMED) ?? [];
  const moreBatches = (dependents?.batches.length ?? 0) - shownBatches.length;

  return (
    <dialog
      ref={dialog}
      className="editor delete-connection-dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-summary`}
      aria-busy={loaded.kind === 'loading' || deleting}
      onCancel={(event) => {
        event.preventDefault();
        if (!deleting) onClose(false);
      }}
    >
      <form onSubmit={(event) => void confirm(event)} noValidate>
        <h3 id={`${id}-title`}>{t('connections.deleteTitle', { name: shownName })}</h3>
        <div id={`${id}-summary`}>
          {loaded.kind === 'loading' && <p role="status">{t('connections.deleteLoading')}</p>}
          {loaded.kind === 'failed' && <p role="alert">{loaded.message}</p>}
          {dependents?.servedBy !== undefined && (
            <p>{t('connections.deleteServedBy', { other: dependents.servedBy })}</p>
          )}
          {dependents && dependents.servedBy === undefined && count === 0 && (
            <p>{t('connections.deleteNothingDepends')}</p>
          )}
          {dependents && count > 0 && (
            <p className="problem">
              <strong>
                {t('connections.deleteInUse', {
                  batches: dependents.batches.length,
                  openRequests: dependents.openRequests,
                  unfinished: dependents.unfinished,
                })}
              </strong>
            </p>
          )}
        </div>
        {dependents && count > 0 && (
          <>
            <ul className="review-blocked" aria-label={t('connections.deleteBatchesLabel')}>
              {shownBatches.map((batch) => (
                <li key={batch.id}>
                  {t('connections.deleteBatchLine', {
                    name: batch.name,
                    openRequests: batch.openRequests,
                    unfinished: batch.unfinished,
                  })}
                </li>
              ))}
              {moreBatches > 0 && <li>{t('connections.deleteMoreBatches', { count: moreBatches })}</li>}
            </ul>
            <h4>{t('connections.deleteWhatHappens')}</h4>
            <ul>
              <li>{t('connections.deleteNothingCancelled')}</li>
              {dependents.openRequests > 0 && <li>{t('connections.deleteStopsTracking')}</li>}
              {dependents.openRequests > 0 && <li>{t('connections.deleteNoCeremony')}</li>}
              {dependents.unfinished > 0 && (
                <li>{t('connections.deleteUnfinishedWait', { count: dependents.unfinished })}</li>
              )}
              {!profile.demo && <li>{t('connections.deleteSecretRemoved')}</li>}
              {dependents.active && <li>{t('connections.deleteActive')}</li>}
            </ul>
            <p className="hint">
              {t('connections.deleteComeBack', { baseUrl: profile.baseUrl, clientId: profile.clientId })}
            </p>
          </>
        )}
        {dependents && count === 0 && (
          <ul>
            {!profile.demo && <li>{t('connections.deleteSecretRemoved')}</li>}
            {dependents.active && <li>{t('connections.deleteActive')}</li>}
          </ul>
        )}
        {dependents && needsName && (
          <label className="field">
            <span>{t('connections.deleteTypeName', { name: shownName })}</span>
            <input
              ref={typedField}
              value={typed}
              autoComplete="off"
              spellCheck={false}
              required
              aria-invalid={mismatch || undefined}
              aria-describedby={mismatch ? `${id}-mismatch` : undefined}
              onChange={(event) => {
                setTyped(event.target.value);
                setAttempted(false);
              }}
            />
            {mismatch && (
              <span id={`${id}-mismatch`} className="field-error">
                {t('connections.deleteNameMismatch')}
              </span>
            )}
          </label>
        )}
        {refusal !== undefined && (
          <p ref={refusalText} tabIndex={-1} className="dialog-error" role="alert">
            {refusal}
          </p>
        )}
        <div className="row">
          <button ref={cancelButton} type="button" disabled={deleting} onClick={() => onClose(false)}>
            {t('common.cancel')}
          </button>
          <button
            type="submit"
            className="danger"
            // Never the focus's first stop; reachable, and it says what is missing when pressed early.
            aria-disabled={!dependents || deleting || (needsName && !nameMatches) || undefined}
          >
            {t('connections.deleteConfirm')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
