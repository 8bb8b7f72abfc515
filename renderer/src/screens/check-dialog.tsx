import { useEffect, useId, useRef, useState, type FormEvent, type RefObject } from 'react';
import type { Translator } from '../../../shared/i18n/translator';
import type { DocumentView } from '../../../shared/ipc/views';
import { useT } from '../i18n';
import type { CheckAnswer } from '../state/call-failures';
import { readRequestIdInput } from '../state/request-id-input';
import { useDesk } from '../state/store';

type Check = NonNullable<DocumentView['check']>;

/** What the dialog offers for a check: only what main accepts for its reason. */
export interface CheckChoices {
  /** "Keep <id>" / "Follow <id>": links the request the service answered with. */
  readonly keep: string | undefined;
  /**
   * How that request came: `created` just now by this document's retry, or `held` at the
   * service already, this very contract sent from another data folder or computer (followed,
   * not kept over another).
   */
  readonly keepKind: 'created' | 'held';
  /** The id field, to link a request the user found at the service. */
  readonly linkOther: boolean;
  /** "Send as a new request…", behind a second confirmation. */
  readonly sendAsNew: boolean;
}

/**
 * The ways on for each reason. After an unknown outcome the service created a new request:
 * keep it or link another, never a third. A creation without an id: the request exists, so only
 * linking. A refused key: the request may or may not exist, so linking, or sending anew on purpose.
 * Held by another document of the data folder: sending anew on purpose only. Held at the service
 * from another folder or desk: keep (link) that request, link another, or send anew on purpose.
 */
export function checkChoices(check: Check): CheckChoices {
  switch (check.reason) {
    case 'new_request_after_unknown':
      return { keep: check.newRequestId, keepKind: 'created', linkOther: true, sendAsNew: false };
    case 'created_without_id':
      return { keep: undefined, keepKind: 'created', linkOther: true, sendAsNew: false };
    case 'key_refused':
      return { keep: undefined, keepKind: 'created', linkOther: true, sendAsNew: true };
    case 'held_elsewhere':
      // The other document holds the request: nothing here to link, only to send anew on purpose.
      return { keep: undefined, keepKind: 'created', linkOther: false, sendAsNew: true };
    case 'held_at_service':
      // The service holds this contract from elsewhere: follow that request here, or send anew.
      return { keep: check.newRequestId, keepKind: 'held', linkOther: true, sendAsNew: true };
  }
}

/**
 * A draft held back because another batch's document holds its reference, as the check dialog
 * shows it: the same words and the one way on as a document the engine held back while sending
 * (`held_elsewhere`: send anew on purpose, after a second confirmation naming that batch).
 * Undefined for any other document.
 */
export function heldBackCheck(document: DocumentView, t: Translator['t']): DocumentView | undefined {
  const holder = document.heldBy;
  if (!holder || document.check) return undefined;
  const words = { reference: document.externalReference, file: holder.fileName, batch: holder.batchName };
  return {
    ...document,
    check: {
      reason: 'held_elsewhere',
      explanation: holder.requestId
        ? t('check.heldElsewhereWithId', { ...words, requestId: holder.requestId })
        : t('check.heldElsewhere', words),
      holder,
    },
  };
}

/**
 * The check in one sentence, what happened and what to do, for the dialog's first line; main's
 * explanation tells the whole story behind a disclosure.
 */
export function checkLead(check: Check, reference: string, t: Translator['t']): string {
  switch (check.reason) {
    case 'key_refused':
      return t('check.lead.keyRefused', { reference });
    case 'new_request_after_unknown':
      return t('check.lead.newRequestAfterUnknown', { reference });
    case 'created_without_id':
      return t('check.lead.createdWithoutId', { reference });
    case 'held_elsewhere':
      return t('check.lead.heldElsewhere', { reference });
    case 'held_at_service':
      return check.newRequestId
        ? t('check.lead.heldAtService', { reference, requestId: check.newRequestId })
        : t('check.lead.heldAtServiceRefused', { reference });
  }
}

/** Where an action started, so its confirmation, its error and the focus after "No" go back there. */
type Origin = 'keep' | 'field' | 'new';

type Step =
  | { readonly kind: 'choose' }
  | { readonly kind: 'confirm-new' }
  /** Main could not check the request's reference: the user may link it anyway. */
  | {
      readonly kind: 'confirm-link';
      readonly requestId: string;
      readonly message: string;
      readonly from: Exclude<Origin, 'new'>;
    };

type Busy = { readonly kind: 'link'; readonly requestId: string } | { readonly kind: 'new' };

/**
 * A document that needs the user's check: main's explanation, and only the ways on its reason
 * allows (see `checkChoices`). Linking sends the id to main, which reads the request and checks
 * its reference; sending anew asks for a second confirmation. A native modal dialog (the page behind is inert),
 * a confirmation takes the focus to its safe "No", and "No" takes it back; while main works the
 * dialog says what it waits for and cannot be closed; errors show inside it. `onResolved` is
 * called once main accepted, even if the dialog was closed meanwhile.
 */
export function CheckDialog({
  batchId,
  document,
  onClose,
  onResolved,
}: {
  batchId: string;
  document: DocumentView;
  onClose: () => void;
  onResolved: () => void;
}) {
  const t = useT();
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  const linkRequest = useDesk((state) => state.actions.sending.linkRequest);
  const sendAsNew = useDesk((state) => state.actions.sending.sendAsNew);
  const notify = useDesk((state) => state.actions.page.notify);
  const [requestId, setRequestId] = useState('');
  const [problem, setProblem] = useState<{ readonly at: Origin; readonly text: string } | undefined>();
  const [busy, setBusy] = useState<Busy | undefined>();
  const [step, setStep] = useState<Step>({ kind: 'choose' });
  // Refs, not state: read by handlers that run before the next render, or after the dialog closed.
  const working = useRef(false);
  const closed = useRef(false);
  const resolved = useRef(false);
  const opener = useRef<Element | null>(window.document.activeElement);
  const field = useRef<HTMLInputElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  const linkButton = useRef<HTMLButtonElement>(null);
  const newButton = useRef<HTMLButtonElement>(null);
  const noButton = useRef<HTMLButtonElement>(null);
  const focusNext = useRef<RefObject<HTMLElement | null> | undefined>(undefined);

  const reference = document.externalReference;
  const check = document.check;
  // An id, or a request's address pasted from the service: its id is what gets linked.
  const typed = readRequestIdInput(requestId);
  const choices: CheckChoices = check
    ? checkChoices(check)
    : { keep: undefined, keepKind: 'created', linkOther: true, sendAsNew: false };

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);

  // After each step change, the focus goes where that change asked (a confirmation's "No", or back).
  useEffect(() => {
    const target = step.kind === 'choose' ? focusNext.current : noButton;
    focusNext.current = undefined;
    target?.current?.focus();
  }, [step]);

  function returnTo(origin: Origin): RefObject<HTMLElement | null> {
    if (origin === 'keep') return keepButton;
    if (origin === 'new') return newButton;
    return linkButton;
  }

  /** Back to the choices, the focus on the control the user started from. */
  function backTo(origin: Origin, target: RefObject<HTMLElement | null> = returnTo(origin)) {
    focusNext.current = target;
    setStep({ kind: 'choose' });
  }

  /**
   * Runs one answer to main, saying meanwhile what it waits for. Returns main's refusal for the
   * dialog to show, or undefined when there is nothing more to do here (accepted, or closed).
   */
  async function run(
    waitingFor: Busy,
    call: () => Promise<CheckAnswer>,
  ): Promise<Extract<CheckAnswer, { ok: false }> | undefined> {
    if (working.current) return undefined;
    working.current = true;
    setBusy(waitingFor);
    setProblem(undefined);
    const answer = await call();
    working.current = false;
    if (answer.ok) {
      resolved.current = true;
      onResolved();
      return undefined;
    }
    if (closed.current) {
      // The window closed the dialog anyway (a browser may force Escape): the answer still shows.
      notify('error', answer.error.message);
      return undefined;
    }
    setBusy(undefined);
    return answer;
  }

  async function link(target: string, from: Exclude<Origin, 'new'>, confirmed: boolean) {
    const refusal = await run({ kind: 'link', requestId: target }, () =>
      linkRequest(batchId, document.id, target, confirmed ? { confirmed: true } : undefined),
    );
    if (!refusal) return;
    if (refusal.error.needsConfirmation && !confirmed) {
      setStep({ kind: 'confirm-link', requestId: target, message: refusal.error.message, from });
      return;
    }
    setProblem({ at: from, text: refusal.error.message });
    // A wrong id is corrected in its field; a refused "Keep" goes back to its button.
    const fixAt = from === 'field' ? field : keepButton;
    if (step.kind === 'choose') fixAt.current?.focus();
    else backTo(from, fixAt);
  }

  function submitField(event: FormEvent) {
    event.preventDefault();
    if (working.current) return;
    if (typed.kind === 'empty' || typed.kind === 'addressWithoutId' || typed.kind === 'severalIds') {
      setProblem({
        at: 'field',
        text:
          typed.kind === 'empty'
            ? t('check.pasteId')
            : typed.kind === 'severalIds'
              ? t('check.severalIds', { requestIds: typed.requestIds.join(', ') })
              : t('check.addressWithoutId'),
      });
      field.current?.focus();
      return;
    }
    void link(typed.requestId, 'field', false);
  }

  async function sendNew() {
    const refusal = await run({ kind: 'new' }, () => sendAsNew(batchId, document.id));
    if (!refusal) return;
    setProblem({ at: 'new', text: refusal.error.message });
    backTo('new');
  }

  function closeDialog() {
    if (!working.current) dialog.current?.close();
  }

  const busyText =
    busy?.kind === 'link'
      ? t('check.checking', { requestId: busy.requestId })
      : busy?.kind === 'new'
        ? t('check.sendingAsNew', { reference })
        : '';
  const fieldProblem = problem?.at === 'field' ? problem.text : undefined;
  const describedBy = (...ids: (string | false | undefined)[]) =>
    ids.filter((part): part is string => typeof part === 'string').join(' ') || undefined;

  const confirmLink = (from: Exclude<Origin, 'new'>) =>
    step.kind === 'confirm-link' && step.from === from ? (
      <div className="confirmation" role="group" aria-labelledby={`${id}-confirm-link`}>
        <p id={`${id}-confirm-link`}>
          <strong>{t('check.linkAnywayQuestion', { requestId: step.requestId })}</strong>
        </p>
        <p id={`${id}-confirm-link-why`}>{step.message}</p>
        <div className="actions">
          <button
            type="button"
            className="danger"
            aria-disabled={busy !== undefined || undefined}
            onClick={() => void link(step.requestId, from, true)}
          >
            {t('check.linkAnyway')}
          </button>
          <button
            ref={noButton}
            type="button"
            aria-disabled={busy !== undefined || undefined}
            aria-describedby={`${id}-confirm-link-why`}
            onClick={() => {
              if (!working.current) backTo(from);
            }}
          >
            {t('common.no')}
          </button>
        </div>
      </div>
    ) : null;

  const problemAt = (origin: Origin) =>
    problem?.at === origin && origin !== 'field' ? (
      <p className="problem" role="alert">
        {problem.text}
      </p>
    ) : null;

  return (
    <dialog
      ref={dialog}
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-lead`}
      onCancel={(event) => {
        if (working.current) event.preventDefault();
      }}
      onClose={() => {
        closed.current = true;
        // Once main accepted, the screen puts the focus on the document instead.
        if (resolved.current) return;
        if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
        onClose();
      }}
      className="editor check-dialog"
    >
      <h2 id={`${id}-title`}>{t('check.title', { reference })}</h2>
      {/* What happened and what to do in one sentence; the whole story, as main tells it, on demand. */}
      <p id={`${id}-lead`} className="lead">
        {check ? checkLead(check, reference, t) : undefined}
      </p>
      {check && (
        <details className="explanation">
          <summary>{t('check.details')}</summary>
          <p>{check.explanation}</p>
        </details>
      )}

      {choices.keep !== undefined && (
        <section aria-labelledby={`${id}-keep`}>
          <h3 id={`${id}-keep`}>
            {choices.keepKind === 'held' ? t('check.followTitle') : t('check.keepTitle')}
          </h3>
          <p className="hint">
            {choices.keepKind === 'held'
              ? t('check.followHint', { requestId: choices.keep })
              : t('check.keepHint', { reference })}
          </p>
          {confirmLink('keep') ?? (
            <div className="actions">
              <button
                ref={keepButton}
                type="button"
                className="primary"
                aria-disabled={busy !== undefined || undefined}
                onClick={() => void link(choices.keep ?? '', 'keep', false)}
              >
                {choices.keepKind === 'held'
                  ? t('check.follow', { requestId: choices.keep ?? '' })
                  : t('check.keep', { requestId: choices.keep ?? '' })}
              </button>
            </div>
          )}
          {problemAt('keep')}
        </section>
      )}

      {choices.linkOther && (
        <section aria-labelledby={`${id}-link`}>
          <h3 id={`${id}-link`}>
            {choices.keep !== undefined ? t('check.linkAnother') : t('check.linkExisting')}
          </h3>
          <form onSubmit={submitField} noValidate>
            <div className="field">
              <label htmlFor={`${id}-field`}>{t('check.idLabel', { reference })}</label>
              <input
                ref={field}
                id={`${id}-field`}
                value={requestId}
                onChange={(event) => {
                  setRequestId(event.target.value);
                  if (problem?.at === 'field') setProblem(undefined);
                  if (step.kind === 'confirm-link' && step.from === 'field') setStep({ kind: 'choose' });
                }}
                autoComplete="off"
                spellCheck={false}
                aria-invalid={fieldProblem !== undefined || undefined}
                aria-describedby={describedBy(
                  `${id}-field-hint`,
                  typed.kind === 'fromAddress' && `${id}-from-address`,
                  fieldProblem !== undefined && `${id}-problem`,
                )}
              />
              <span id={`${id}-field-hint`} className="hint">
                {t('check.idHint', { reference })}
              </span>
              {/* Said as it is pasted: the id the app read from the address, which it will link. */}
              <span id={`${id}-from-address`} className="hint" aria-live="polite">
                {typed.kind === 'fromAddress' ? t('check.idFromAddress', { requestId: typed.requestId }) : ''}
              </span>
            </div>
            {fieldProblem !== undefined && (
              <p id={`${id}-problem`} className="problem" role="alert">
                {fieldProblem}
              </p>
            )}
            {confirmLink('field') ?? (
              <div className="actions">
                <button ref={linkButton} type="submit" aria-disabled={busy !== undefined || undefined}>
                  {t('check.linkThis')}
                </button>
              </div>
            )}
          </form>
        </section>
      )}

      {choices.sendAsNew && (
        <section aria-labelledby={`${id}-new`}>
          <h3 id={`${id}-new`}>{t('check.newTitle')}</h3>
          {step.kind === 'confirm-new' ? (
            <div className="confirmation" role="group" aria-labelledby={`${id}-confirm-new`}>
              <p id={`${id}-confirm-new`}>
                <strong>{t('check.newQuestion', { reference })}</strong>
              </p>
              <p id={`${id}-confirm-new-why`}>
                {check?.holder
                  ? t('check.newWhyHeld', {
                      reference,
                      file: check.holder.fileName,
                      batch: check.holder.batchName,
                    })
                  : t('check.newWhy', { reference })}
              </p>
              <div className="actions">
                <button
                  type="button"
                  className="danger"
                  aria-disabled={busy !== undefined || undefined}
                  onClick={() => void sendNew()}
                >
                  {t('check.newYes', { reference })}
                </button>
                <button
                  ref={noButton}
                  type="button"
                  aria-disabled={busy !== undefined || undefined}
                  aria-describedby={`${id}-confirm-new-why`}
                  onClick={() => {
                    if (!working.current) backTo('new');
                  }}
                >
                  {t('common.no')}
                </button>
              </div>
            </div>
          ) : (
            <>
              <p className="hint">{t('check.newHint', { reference })}</p>
              <div className="actions">
                <button
                  ref={newButton}
                  type="button"
                  aria-disabled={busy !== undefined || undefined}
                  onClick={() => {
                    if (working.current) return;
                    setProblem(undefined);
                    setStep({ kind: 'confirm-new' });
                  }}
                >
                  {t('check.newButton')}
                </button>
              </div>
            </>
          )}
          {problemAt('new')}
        </section>
      )}

      <p id={`${id}-busy`} className="busy" role="status">
        {busyText}
      </p>
      <div className="actions">
        <button
          type="button"
          aria-disabled={busy !== undefined || undefined}
          aria-describedby={busy ? `${id}-busy` : undefined}
          onClick={closeDialog}
        >
          {t('common.close')}
        </button>
      </div>
    </dialog>
  );
}
