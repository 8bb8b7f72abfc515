import { useId } from 'react';
import type { SigningOptions } from '../../../shared/domain/batch';
import type { MessageId } from '../../../shared/i18n/catalog';
import { useT } from '../i18n';
import { localeError, type OptionsDraft } from '../state/participant-rules';

export interface OptionsFieldsProps {
  readonly draft: OptionsDraft;
  readonly onChange: (draft: OptionsDraft) => void;
  /** For a document: the batch's values, shown as what applies when a field is left empty. */
  readonly inherited?: SigningOptions;
  readonly disabled?: boolean;
}

/** The select value of a yes/no option as the batch holds it. */
function yesNo(value: boolean | undefined): string {
  return value === undefined ? 'unset' : value ? 'yes' : 'no';
}

/**
 * The signing options of spec §4.3. The service does not list the allowed values of the
 * transaction type, ceremony mode, meeting provider or evidence level, so they are free text;
 * the locale is checked (language-REGION) as it is typed.
 */
export function OptionsFields({ draft, onChange, inherited, disabled }: OptionsFieldsProps) {
  const t = useT();
  const id = useId();
  const set = <K extends keyof OptionsDraft>(key: K, value: OptionsDraft[K]) =>
    onChange({ ...draft, [key]: value });
  const fallback = (value: string | undefined) =>
    inherited
      ? value && value !== ''
        ? t('batches.batchDefaultValue', { value })
        : t('batches.batchDefaultNone')
      : t('batches.notSet');
  const localeProblem = localeError(draft.locale, t);
  const text = (
    key: 'transactionType' | 'ceremonyMode' | 'meetingProvider' | 'evidenceLevel',
    label: MessageId,
  ) => (
    <label className="field">
      <span>{t(label)}</span>
      <input
        value={draft[key]}
        placeholder={fallback(inherited?.[key])}
        onChange={(event) => set(key, event.target.value)}
      />
    </label>
  );
  const choice = (key: 'enforceOrder' | 'ownerMustSign', label: MessageId) => (
    <label className="field">
      <span>{t(label)}</span>
      <select
        value={draft[key]}
        onChange={(event) => set(key, event.target.value as OptionsDraft[typeof key])}
      >
        <option value="">
          {inherited
            ? t('batches.batchDefaultChoice', { value: yesNo(inherited[key]) })
            : t('batches.notSet')}
        </option>
        <option value="yes">{t('common.yes')}</option>
        <option value="no">{t('common.no')}</option>
      </select>
    </label>
  );
  return (
    <fieldset className="options-grid" disabled={disabled}>
      <legend>{t('batches.signingOptions')}</legend>
      {text('transactionType', 'batches.transactionType')}
      {choice('enforceOrder', 'batches.enforceOrder')}
      {choice('ownerMustSign', 'batches.ownerMustSign')}
      {text('ceremonyMode', 'batches.ceremonyMode')}
      {text('meetingProvider', 'batches.meetingProvider')}
      {text('evidenceLevel', 'batches.evidenceLevel')}
      <label className="field">
        <span>{t('batches.locale')}</span>
        <input
          value={draft.locale}
          placeholder={inherited ? fallback(inherited.locale) : t('batches.localePlaceholder')}
          aria-invalid={localeProblem ? true : undefined}
          aria-describedby={localeProblem ? `${id}-locale` : undefined}
          onChange={(event) => set('locale', event.target.value)}
        />
        {localeProblem && (
          <span id={`${id}-locale`} className="field-error">
            {localeProblem}
          </span>
        )}
      </label>
    </fieldset>
  );
}
