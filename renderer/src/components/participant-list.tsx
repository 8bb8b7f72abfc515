import { useId, useState } from 'react';
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

export interface ParticipantListProps {
  readonly legend: string;
  /** What one row is called: "recipient", "participant". */
  readonly noun: string;
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
  const { rows, onChange, noun } = props;
  const duplicates = duplicateEmails(rows.map((row) => row.draft));
  const update = (key: number, draft: ParticipantDraft) =>
    onChange(rows.map((row) => (row.key === key ? { key, draft } : row)));
  return (
    <fieldset className="participants" disabled={props.disabled}>
      <legend>{props.legend}</legend>
      {rows.length === 0 && <p className="muted">{props.emptyText}</p>}
      {rows.map((row, index) => (
        <ParticipantEditorRow
          key={row.key}
          label={`${noun} ${index + 1}`}
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
        Add {noun}
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
  const id = useId();
  const [typed, setTyped] = useState<ReadonlySet<ParticipantField>>(new Set());
  const errors = participantErrors(draft);
  const shown = (field: ParticipantField) => (showAllErrors || typed.has(field) ? errors[field] : undefined);
  const change = (field: ParticipantField, value: string) => {
    setTyped((previous) => new Set(previous).add(field));
    onChange({ ...draft, [field]: value });
  };
  const text = (field: ParticipantField, caption: string, type: 'text' | 'email' | 'number' = 'text') => {
    const error = shown(field);
    return (
      <label className="field">
        <span>
          {caption}
          <span className="visually-hidden"> of {label}</span>
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
          Type<span className="visually-hidden"> of {label}</span>
        </span>
        <select
          value={draft.participantType}
          onChange={(event) =>
            onChange({ ...draft, participantType: event.target.value as ParticipantDraft['participantType'] })
          }
        >
          <option value="signer">Signer</option>
          <option value="observer">Observer</option>
        </select>
      </label>
      {text('name', 'Name')}
      {text('email', 'E-mail', 'email')}
      {text('role', 'Role')}
      {text('signingOrder', 'Signing order', 'number')}
      <label className="inline checkbox">
        <input
          type="checkbox"
          checked={draft.isInternal}
          onChange={(event) => onChange({ ...draft, isInternal: event.target.checked })}
        />
        <span>
          Internal<span className="visually-hidden"> ({label})</span>
        </span>
      </label>
      <button type="button" className="danger" onClick={onRemove}>
        Remove<span className="visually-hidden"> {label}</span>
      </button>
    </div>
  );
}
