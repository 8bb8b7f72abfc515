import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { BatchDefaults } from '../../../shared/domain/batch';
import type { DocumentView } from '../../../shared/ipc/views';
import { OptionsFields } from '../components/options-fields';
import { ParticipantList, toRows, type ParticipantRow } from '../components/participant-list';
import { RequiredMark, RequiredNote } from '../components/required-mark';
import { focusFirstProblem } from '../components/focus-problem';
import { formatBytes } from '../format';
import { useT, useTranslator } from '../i18n';
import {
  canSave,
  fromOptions,
  fromParticipant,
  toOptions,
  toParticipants,
  type OptionsDraft,
} from '../state/participant-rules';
import { useDesk } from '../state/store';
import { useModalDialog } from '../components/modal-dialog';

/**
 * Edits one document before it is sent: its reference, the recipients sent with the creation,
 * the participants added afterwards, and options that differ from the batch's. A modal dialog:
 * focus stays in it, Escape closes it, nothing is kept until "Save". Whatever stops a save —
 * the document started on its way, or main refused — is said inside the dialog, and the edit
 * stays in the form.
 */
export function DocumentEditor({
  batchId,
  document,
  defaults,
  inFlight,
  onClose,
}: {
  batchId: string;
  document: DocumentView;
  defaults: BatchDefaults;
  /** The document is being sent now: main would refuse a change, so Save waits. */
  inFlight: boolean;
  onClose: () => void;
}) {
  const t = useT();
  const { locale } = useTranslator();
  const dialog = useModalDialog();
  const id = useId();
  const updateDocument = useDesk((state) => state.actions.documents.update);
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
  /** Main's refusal of the last save, shown in the dialog (a notice would be hidden behind it). */
  const [refusal, setRefusal] = useState<string | undefined>();
  const form = useRef<HTMLFormElement>(null);
  const refusalText = useRef<HTMLParagraphElement>(null);
  /**
   * A save was refused (here, or by main): once the problems are drawn, the focus goes to the
   * first field to fix (or main's reason), not left on Save at the foot of the dialog.
   */
  const [showProblem, setShowProblem] = useState<{ readonly where: 'field' | 'refusal' } | undefined>();
  useEffect(() => {
    if (!showProblem) return;
    if (showProblem.where === 'refusal' && refusalText.current) refusalText.current.focus();
    else if (form.current) focusFirstProblem(form.current);
  }, [showProblem]);

  const everyone = [...recipients, ...extras].map((row) => row.draft);
  const referenceProblem = reference.trim() === '' ? t('editor.referenceRequired') : undefined;
  const invalid = referenceProblem !== undefined || !canSave(everyone, options);

  async function save(event: FormEvent) {
    event.preventDefault();
    setAttempted(true);
    if (invalid) setShowProblem({ where: 'field' });
    if (invalid || inFlight) return;
    setSaving(true);
    setRefusal(undefined);
    const refused = await updateDocument(batchId, document.id, {
      externalReference: reference.trim(),
      recipients: toParticipants(recipients.map((row) => row.draft)),
      extraParticipants: toParticipants(extras.map((row) => row.draft)),
      options: toOptions(options),
    });
    setSaving(false);
    if (refused === undefined) onClose();
    else {
      setRefusal(refused);
      setShowProblem({ where: 'refusal' });
    }
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
      <form ref={form} onSubmit={(event) => void save(event)} noValidate>
        <h3 id={`${id}-title`}>{t('editor.title', { reference: document.externalReference })}</h3>
        <p className="muted">
          {t('editor.fileNote', {
            file: document.storedFilename,
            size: formatBytes(document.sizeBytes, locale),
          })}
        </p>
        <RequiredNote />
        <label className="field">
          <span id={`${id}-reference-label`}>
            {t('editor.reference')}
            <RequiredMark />
          </span>
          <input
            value={reference}
            required
            // Named by its caption alone: the hint below is its description, not part of its name.
            aria-labelledby={`${id}-reference-label`}
            aria-invalid={attempted && referenceProblem ? true : undefined}
            aria-describedby={
              attempted && referenceProblem ? `${id}-reference ${id}-reference-hint` : `${id}-reference-hint`
            }
            onChange={(event) => setReference(event.target.value)}
          />
          <span id={`${id}-reference-hint`} className="muted">
            {t('editor.referenceHint')}
          </span>
          {attempted && referenceProblem && (
            <span id={`${id}-reference`} className="field-error">
              {referenceProblem}
            </span>
          )}
        </label>
        <ParticipantList
          legend={t('editor.recipients')}
          noun="recipient"
          rows={recipients}
          onChange={setRecipients}
          showAllErrors={attempted}
          emptyText={
            defaults.defaultRecipients.length > 0
              ? t('editor.defaultRecipientsApply', { count: defaults.defaultRecipients.length })
              : t('editor.noRecipient')
          }
        />
        <ParticipantList
          legend={t('editor.participants')}
          hint={t('editor.participantsHint')}
          noun="participant"
          rows={extras}
          onChange={setExtras}
          showAllErrors={attempted}
          emptyText={t('editor.none')}
        />
        <OptionsFields draft={options} onChange={setOptions} inherited={defaults} />
        {attempted && invalid && (
          <p className="field-error" role="alert">
            {t('editor.invalid')}
          </p>
        )}
        {inFlight ? (
          <p className="dialog-error" role="alert" id={`${id}-blocked`}>
            {t('editor.inFlight')}
          </p>
        ) : (
          refusal && (
            <p ref={refusalText} tabIndex={-1} className="dialog-error" role="alert">
              {t('editor.notSaved', { reason: refusal })}
            </p>
          )
        )}
        <div className="row">
          <button
            type="submit"
            className="primary"
            disabled={saving || inFlight}
            aria-describedby={inFlight ? `${id}-blocked` : undefined}
          >
            {saving ? t('editor.saving') : t('editor.save')}
          </button>
          <button type="button" onClick={onClose}>
            {t('common.cancel')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
