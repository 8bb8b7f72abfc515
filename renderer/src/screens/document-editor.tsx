import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { BatchDefaults } from '../../../shared/domain/batch';
import type { DocumentView } from '../../../shared/ipc/views';
import { OptionsFields } from '../components/options-fields';
import { ParticipantList, toRows, type ParticipantRow } from '../components/participant-list';
import { formatBytes } from '../format';
import {
  canSave,
  fromOptions,
  fromParticipant,
  toOptions,
  toParticipants,
  type OptionsDraft,
} from '../state/participant-rules';
import { useDesk } from '../state/store';

/**
 * Edits one document before it is sent: its reference, the recipients sent with the creation,
 * the participants added afterwards, and options that differ from the batch's. A modal dialog:
 * focus stays in it, Escape closes it, nothing is kept until "Save".
 */
export function DocumentEditor({
  batchId,
  document,
  defaults,
  onClose,
}: {
  batchId: string;
  document: DocumentView;
  defaults: BatchDefaults;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  const updateDocument = useDesk((state) => state.updateDocument);
  const [reference, setReference] = useState(document.externalReference);
  const [recipients, setRecipients] = useState<ParticipantRow[]>(() =>
    toRows(document.recipients.map(fromParticipant)),
  );
  const [extras, setExtras] = useState<ParticipantRow[]>(() =>
    toRows(document.extraParticipants.map(fromParticipant)),
  );
  const [options, setOptions] = useState<OptionsDraft>(() => fromOptions(document.options));
  const [attempted, setAttempted] = useState(false);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);

  const everyone = [...recipients, ...extras].map((row) => row.draft);
  const referenceProblem = reference.trim() === '' ? 'The reference is required.' : undefined;
  const invalid = referenceProblem !== undefined || !canSave(everyone, options);

  async function save(event: FormEvent) {
    event.preventDefault();
    setAttempted(true);
    if (invalid) return;
    setSaving(true);
    const saved = await updateDocument(batchId, document.id, {
      externalReference: reference.trim(),
      recipients: toParticipants(recipients.map((row) => row.draft)),
      extraParticipants: toParticipants(extras.map((row) => row.draft)),
      options: toOptions(options),
    });
    setSaving(false);
    if (saved) onClose();
  }

  return (
    <dialog
      ref={dialog}
      className="editor"
      aria-labelledby={`${id}-title`}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <form onSubmit={(event) => void save(event)} noValidate>
        <h3 id={`${id}-title`}>Edit {document.externalReference}</h3>
        <p className="muted">
          {document.storedFilename} · {formatBytes(document.sizeBytes)} — the service will store the file
          under this name.
        </p>
        <label className="field">
          <span>External reference</span>
          <input
            value={reference}
            aria-invalid={attempted && referenceProblem ? true : undefined}
            aria-describedby={attempted && referenceProblem ? `${id}-reference` : undefined}
            onChange={(event) => setReference(event.target.value)}
          />
          {attempted && referenceProblem && (
            <span id={`${id}-reference`} className="field-error">
              {referenceProblem}
            </span>
          )}
        </label>
        <ParticipantList
          legend="Recipients (sent with the request)"
          noun="recipient"
          rows={recipients}
          onChange={setRecipients}
          showAllErrors={attempted}
          emptyText={
            defaults.defaultRecipients.length > 0
              ? `None of its own: the batch's ${defaults.defaultRecipients.length} default recipient(s) apply.`
              : 'No recipient yet: add at least one signer.'
          }
        />
        <ParticipantList
          legend="Participants added after the request is created"
          noun="participant"
          rows={extras}
          onChange={setExtras}
          showAllErrors={attempted}
          emptyText="None."
        />
        <OptionsFields draft={options} onChange={setOptions} inherited={defaults} />
        {attempted && invalid && (
          <p className="field-error" role="alert">
            Some fields need attention (marked above). Nothing was saved yet.
          </p>
        )}
        <div className="row">
          <button type="submit" className="primary" disabled={saving}>
            Save document
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
