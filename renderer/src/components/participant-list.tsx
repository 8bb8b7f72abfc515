import { useId, useState } from 'react';
import type { MessageId } from '../../../shared/i18n/catalog';
import { useT } from '../i18n';
import {
  duplicateEmails,
  EMPTY_PARTICIPANT,
  participantErrors,
  type ParticipantDraft,
  type ParticipantField,
} from '../state/participant-rules';

/** A participant row of an editor, with a key that survives removals above it. */
export interface ParticipantRow {
  readonly key: number;
  readonly draft: ParticipantDraft;
}

let nextRowKey = 1;

/** Rows for drafts, each with a fresh key. */
export function toRows(drafts: readonly ParticipantDraft[]): ParticipantRow[] {
  return drafts.map((draft) => ({ key: nextRowKey++, draft }));
}

/** What one row of a list is called; each language words it (a row's label, "Add …"). */
export type ParticipantNoun = 'recipient' | 'participant' | 'defaultRecipient';

export interface ParticipantListProps {
  readonly legend: string;
  readonly noun: ParticipantNoun;
  readonly rows: readonly ParticipantRow[];
  readonly onChange: (rows: ParticipantRow[]) => void;
  readonly emptyText: string;
  /** Show every problem, typed into or not (after a save was attempted). */
  readonly showAllErrors: boolean;
  readonly disabled?: boolean;
}

/**
 * Edits a list of participants. Every field is labelled, and says what is wrong as soon as it
 * is typed into, with the service's own rules (role ≤ 100, name ≤ 255, e-mail, order ≥ 1).
 */
export function ParticipantList(props: ParticipantListProps) {
  const t = useT();
  const { rows, onChange, noun } = props;
  const duplicates = duplicateEmails(
    rows.map((row) => row.draft),
    t,
  );
  const update = (key: number, draft: ParticipantDraft) =>
    onChange(rows.map((row) => (row.key === key ? { key, draft } : row)));
  return (
    <fieldset className="participants" disabled={props.disabled}>
      <legend>{props.legend}</legend>
      {rows.length === 0 && <p className="muted">{props.emptyText}</p>}
      {rows.map((row, index) => (
        <ParticipantEditorRow
          key={row.key}
          label={t('common.participantRow', { noun, number: index + 1 })}
          draft={row.draft}
          showAllErrors={props.showAllErrors}
          onChange={(draft) => update(row.key, draft)}
          onRemove={() => onChange(rows.filter((candidate) => candidate.key !== row.key))}
        />
      ))}
      {duplicates.map((problem) => (
        <p key={problem} className="field-error" role="alert">
          {problem}
        </p>
      ))}
      <button
        type="button"
        onClick={() => onChange([...rows, { key: nextRowKey++, draft: EMPTY_PARTICIPANT }])}
      >
        {t('common.addParticipant', { noun })}
      </button>
    </fieldset>
  );
}

function ParticipantEditorRow({
  label,
  draft,
  showAllErrors,
  onChange,
  onRemove,
}: {
  label: string;
  draft: ParticipantDraft;
  showAllErrors: boolean;
  onChange: (draft: ParticipantDraft) => void;
  onRemove: () => void;
}) {
  const t = useT();
  const id = useId();
  const [typed, setTyped] = useState<ReadonlySet<ParticipantField>>(new Set());
  const errors = participantErrors(draft, t);
  const shown = (field: ParticipantField) => (showAllErrors || typed.has(field) ? errors[field] : undefined);
  const change = (field: ParticipantField, value: string) => {
    setTyped((previous) => new Set(previous).add(field));
    onChange({ ...draft, [field]: value });
  };
  const text = (field: ParticipantField, caption: MessageId, type: 'text' | 'email' | 'number' = 'text') => {
    const error = shown(field);
    return (
      <label className="field">
        <span>
          {t(caption)}
          <span className="visually-hidden"> {t('common.ofParticipant', { label })}</span>
        </span>
        <input
          type={type}
          value={draft[field]}
          min={type === 'number' ? 1 : undefined}
          inputMode={type === 'number' ? 'numeric' : undefined}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-${field}` : undefined}
          onChange={(event) => change(field, event.target.value)}
        />
        {error && (
          <span id={`${id}-${field}`} className="field-error">
            {error}
          </span>
        )}
      </label>
    );
  };
  return (
    <div className="participant-row" role="group" aria-label={label}>
      <label className="field">
        <span>
          {t('common.participantType')}
          <span className="visually-hidden"> {t('common.ofParticipant', { label })}</span>
        </span>
        <select
          value={draft.participantType}
          onChange={(event) =>
            onChange({ ...draft, participantType: event.target.value as ParticipantDraft['participantType'] })
          }
        >
          <option value="signer">{t('common.signer')}</option>
          <option value="observer">{t('common.observer')}</option>
        </select>
      </label>
      {text('name', 'common.participantName')}
      {text('email', 'common.participantEmail', 'email')}
      {text('role', 'common.participantRole')}
      {text('signingOrder', 'common.signingOrder', 'number')}
      <label className="inline checkbox">
        <input
          type="checkbox"
          checked={draft.isInternal}
          onChange={(event) => onChange({ ...draft, isInternal: event.target.checked })}
        />
        <span>
          {t('common.internal')}
          <span className="visually-hidden"> ({label})</span>
        </span>
      </label>
      <button type="button" className="danger" onClick={onRemove}>
        {t('common.remove')}
        <span className="visually-hidden"> {label}</span>
      </button>
    </div>
  );
}
