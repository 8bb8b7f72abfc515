import { useState, type FormEvent } from 'react';
import type { BatchDefaults } from '../../../shared/domain/batch';
import { OptionsFields } from '../components/options-fields';
import { ParticipantList, toRows, type ParticipantRow } from '../components/participant-list';
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

  async function save(event: FormEvent) {
    event.preventDefault();
    setAttempted(true);
    if (invalid) return;
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
      <form onSubmit={(event) => void save(event)} noValidate>
        <p className="muted">{t('batches.settingsHint')}</p>
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
