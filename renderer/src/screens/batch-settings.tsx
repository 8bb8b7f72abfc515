import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { BatchDefaults } from '../../../shared/domain/batch';
import { OptionsFields } from '../components/options-fields';
import { focusFirstProblem } from '../components/focus-problem';
import { ParticipantList, toRows, type ParticipantRow } from '../components/participant-list';
import { RequiredNote } from '../components/required-mark';
import {
  canSave,
  fromOptions,
  fromParticipant,
  toOptions,
  toParticipants,
  type OptionsDraft,
} from '../state/participant-rules';
import { useT } from '../i18n';
import { useDesk } from '../state/store';

/**
 * The batch's defaults: options and recipients every document gets unless it says otherwise.
 * A document already sent keeps what it was sent with.
 */
export function BatchSettings({ batchId, defaults }: { batchId: string; defaults: BatchDefaults }) {
  const t = useT();
  const setDefaults = useDesk((state) => state.actions.batches.setDefaults);
  const [recipients, setRecipients] = useState<ParticipantRow[]>(() =>
    toRows(defaults.defaultRecipients.map(fromParticipant)),
  );
  const [options, setOptions] = useState<OptionsDraft>(() => {
    const { defaultRecipients: _recipients, ...batchOptions } = defaults;
    return fromOptions(batchOptions);
  });
  const [attempted, setAttempted] = useState(false);
  const [saving, setSaving] = useState(false);
  const drafts = recipients.map((row) => row.draft);
  const invalid = !canSave(drafts, options);
  const form = useRef<HTMLFormElement>(null);
  /** A save refused for what was typed: the focus goes to the first field to fix once it is marked. */
  const [showProblem, setShowProblem] = useState<object | undefined>();
  useEffect(() => {
    if (showProblem && form.current) focusFirstProblem(form.current);
  }, [showProblem]);

  async function save(event: FormEvent) {
    event.preventDefault();
    setAttempted(true);
    if (invalid) {
      setShowProblem({});
      return;
    }
    setSaving(true);
    await setDefaults(batchId, {
      ...toOptions(options),
      defaultRecipients: toParticipants(drafts),
    });
    setSaving(false);
    setAttempted(false);
  }

  return (
    <details className="card settings">
      <summary>{t('batches.settingsSummary')}</summary>
      <form ref={form} onSubmit={(event) => void save(event)} noValidate>
        <p className="muted">{t('batches.settingsHint')}</p>
        {recipients.length > 0 && <RequiredNote />}
        <OptionsFields draft={options} onChange={setOptions} />
        <ParticipantList
          legend={t('batches.defaultRecipients')}
          noun="defaultRecipient"
          rows={recipients}
          onChange={setRecipients}
          showAllErrors={attempted}
          emptyText={t('batches.noDefaultRecipients')}
        />
        {attempted && invalid && (
          <p className="field-error" role="alert">
            {t('batches.fieldsNeedAttention')}
          </p>
        )}
        <button type="submit" className="primary" disabled={saving}>
          {t('batches.saveSettings')}
        </button>
      </form>
    </details>
  );
}
