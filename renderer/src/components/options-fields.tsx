import { useId } from 'react';
import type { SigningOptions } from '../../../shared/domain/batch';
import { localeError, type OptionsDraft } from '../state/participant-rules';

export interface OptionsFieldsProps {
  readonly draft: OptionsDraft;
  readonly onChange: (draft: OptionsDraft) => void;
  /** For a document: the batch's values, shown as what applies when a field is left empty. */
  readonly inherited?: SigningOptions;
  readonly disabled?: boolean;
}

function yesNo(value: boolean | undefined): string {
  return value === undefined ? 'not set' : value ? 'yes' : 'no';
}

/**
 * The signing options of spec §4.3. The service does not list the allowed values of the
 * transaction type, ceremony mode, meeting provider or evidence level, so they are free text;
 * the locale is checked (language-REGION) as it is typed.
 */
export function OptionsFields({ draft, onChange, inherited, disabled }: OptionsFieldsProps) {
  const id = useId();
  const set = <K extends keyof OptionsDraft>(key: K, value: OptionsDraft[K]) =>
    onChange({ ...draft, [key]: value });
  const fallback = (value: string | undefined) =>
    inherited ? `Batch default: ${value && value !== '' ? value : 'none'}` : 'Not set';
  const localeProblem = localeError(draft.locale);
  const text = (
    key: 'transactionType' | 'ceremonyMode' | 'meetingProvider' | 'evidenceLevel',
    label: string,
  ) => (
    <label className="field">
      <span>{label}</span>
      <input
        value={draft[key]}
        placeholder={fallback(inherited?.[key])}
        onChange={(event) => set(key, event.target.value)}
      />
    </label>
  );
  const choice = (key: 'enforceOrder' | 'ownerMustSign', label: string) => (
    <label className="field">
      <span>{label}</span>
      <select
        value={draft[key]}
        onChange={(event) => set(key, event.target.value as OptionsDraft[typeof key])}
      >
        <option value="">{inherited ? `Batch default (${yesNo(inherited[key])})` : 'Not set'}</option>
        <option value="yes">Yes</option>
        <option value="no">No</option>
      </select>
    </label>
  );
  return (
    <fieldset className="options-grid" disabled={disabled}>
      <legend>Signing options</legend>
      {text('transactionType', 'Transaction type')}
      {choice('enforceOrder', 'Enforce the signing order')}
      {choice('ownerMustSign', 'The owner must sign')}
      {text('ceremonyMode', 'Ceremony mode')}
      {text('meetingProvider', 'Meeting provider')}
      {text('evidenceLevel', 'Evidence level')}
      <label className="field">
        <span>Locale</span>
        <input
          value={draft.locale}
          placeholder={inherited ? fallback(inherited.locale) : 'e.g. fr-FR'}
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
