import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { DocumentView } from '../../../shared/ipc/views';
import { useDesk } from '../state/store';

/**
 * A document that needs the user's check: the facts main reports, and the two ways on. "Link
 * the existing request" takes the id the user found at the service (main reads it and checks
 * its reference); "Send as a new request" asks for a second confirmation, since a request may
 * already exist. A modal dialog: focus stays in it, Escape closes it, errors show inside it.
 */
export function CheckDialog({
  batchId,
  document,
  onClose,
}: {
  batchId: string;
  document: DocumentView;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  const linkRequest = useDesk((state) => state.linkRequest);
  const sendAsNew = useDesk((state) => state.sendAsNew);
  const [requestId, setRequestId] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [confirmingNew, setConfirmingNew] = useState(false);
  const reference = document.externalReference;
  const newRequestId = document.check?.newRequestId;

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);

  async function link(event: FormEvent) {
    event.preventDefault();
    if (requestId.trim() === '') {
      setProblem('Paste the id of the request you found at the service.');
      return;
    }
    setBusy(true);
    setProblem(undefined);
    const outcome = await linkRequest(batchId, document.id, requestId.trim());
    setBusy(false);
    if (outcome.ok) onClose();
    else setProblem(outcome.message);
  }

  async function sendNew() {
    setBusy(true);
    await sendAsNew(batchId, document.id);
    setBusy(false);
    onClose();
  }

  return (
    <dialog ref={dialog} aria-labelledby={`${id}-title`} onClose={onClose} className="editor">
      <h2 id={`${id}-title`}>{reference} needs your check</h2>
      <p>{document.check?.explanation}</p>
      <form onSubmit={(event) => void link(event)}>
        <h3>Link the existing request</h3>
        <label>
          Id of {reference}'s request at the service
          <input
            value={requestId}
            onChange={(event) => setRequestId(event.target.value)}
            placeholder={newRequestId ?? 'sr_…'}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={problem !== undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
          />
        </label>
        {problem && (
          <p id={`${id}-problem`} className="problem" role="alert">
            {problem}
          </p>
        )}
        <div className="actions">
          <button type="submit" disabled={busy}>
            Link this request
          </button>
        </div>
      </form>
      <h3>{newRequestId ? `Continue with ${newRequestId}` : 'Send as a new request'}</h3>
      {!confirmingNew ? (
        <div className="actions">
          <button type="button" disabled={busy} onClick={() => setConfirmingNew(true)}>
            {newRequestId ? `Continue with ${newRequestId}…` : 'Send as a new request…'}
          </button>
        </div>
      ) : (
        <div className="warning" role="alert">
          <p>
            {newRequestId
              ? `Only if ${reference} has no other request at the service: otherwise its recipients get two requests to sign.`
              : `Only if ${reference} has no request at the service: otherwise its recipients get it twice.`}
          </p>
          <div className="actions">
            <button type="button" className="danger" disabled={busy} onClick={() => void sendNew()}>
              {newRequestId ? `Yes, continue with ${newRequestId}` : `Yes, send ${reference} again`}
            </button>
            <button type="button" disabled={busy} onClick={() => setConfirmingNew(false)}>
              No
            </button>
          </div>
        </div>
      )}
      <div className="actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
