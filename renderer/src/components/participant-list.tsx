import { useEffect, useId, useRef, useState } from 'react';
import type { MessageId } from '../../../shared/i18n/catalog';
import { useT } from '../i18n';
import {
  duplicateEmails,
  EMPTY_PARTICIPANT,
  participantErrors,
  type ParticipantDraft,
  type ParticipantField,
} from '../state/participant-rules';
import { RequiredMark } from './required-mark';

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
  /** What the list is for, in a sentence under its legend. */
  readonly hint?: string;
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
  const addButton = useRef<HTMLButtonElement>(null);
  const hintId = useId();
  /**
   * Where the focus goes once the list is drawn anew (README "Using the app", keyboard): the Name
   * of the row just added, or of the row that took a removed one's place (else the one before it),
   * or "Add …" once the list is empty — never the page's body.
   */
  const [focusAfter, setFocusAfter] = useState<{ readonly key?: number } | undefined>();
  useEffect(() => {
    if (!focusAfter) return;
    setFocusAfter(undefined);
    if (focusAfter.key === undefined) addButton.current?.focus();
  }, [focusAfter]);
  function remove(key: number) {
    const index = rows.findIndex((row) => row.key === key);
    const left = rows.filter((row) => row.key !== key);
    setFocusAfter({ key: (left[index] ?? left[index - 1])?.key });
    onChange(left);
  }
  function add() {
    const key = nextRowKey++;
    setFocusAfter({ key });
    onChange([...rows, { key, draft: EMPTY_PARTICIPANT }]);
  }
  const duplicates = duplicateEmails(
    rows.map((row) => row.draft),
    t,
  );
  const update = (key: number, draft: ParticipantDraft) =>
    onChange(rows.map((row) => (row.key === key ? { key, draft } : row)));
  return (
    <fieldset
      className="participants"
      disabled={props.disabled}
      aria-describedby={props.hint !== undefined ? hintId : undefined}
    >
      <legend>{props.legend}</legend>
      {props.hint !== undefined && (
        <p id={hintId} className="hint">
          {props.hint}
        </p>
      )}
      {rows.length === 0 && <p className="muted">{props.emptyText}</p>}
      {rows.map((row, index) => (
        <ParticipantEditorRow
          key={row.key}
          label={t('common.participantRow', { noun, number: index + 1 })}
          draft={row.draft}
          showAllErrors={props.showAllErrors}
          takeFocus={focusAfter?.key === row.key}
          onChange={(draft) => update(row.key, draft)}
          onRemove={() => remove(row.key)}
        />
      ))}
      {duplicates.map((problem) => (
        <p key={problem} className="field-error" role="alert">
          {problem}
        </p>
      ))}
      <button ref={addButton} type="button" onClick={add}>
        {t('common.addParticipant', { noun })}
      </button>
    </fieldset>
  );
}

/** How a participant's text field is drawn. */
interface TextField {
  readonly type?: 'text' | 'email' | 'number';
  readonly required?: boolean;
  /** An example of what goes in it, shown while it is empty. */
  readonly example?: MessageId;
}

function ParticipantEditorRow({
  label,
  draft,
  showAllErrors,
  takeFocus,
  onChange,
  onRemove,
}: {
  label: string;
  draft: ParticipantDraft;
  showAllErrors: boolean;
  /** The row's Name takes the focus (the row was just added, or took a removed one's place). */
  takeFocus: boolean;
  onChange: (draft: ParticipantDraft) => void;
  onRemove: () => void;
}) {
  const t = useT();
  const id = useId();
  const nameField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (takeFocus) nameField.current?.focus();
  }, [takeFocus]);
  const [typed, setTyped] = useState<ReadonlySet<ParticipantField>>(new Set());
  const errors = participantErrors(draft, t);
  const shown = (field: ParticipantField) => (showAllErrors || typed.has(field) ? errors[field] : undefined);
  const change = (field: ParticipantField, value: string) => {
    setTyped((previous) => new Set(previous).add(field));
    onChange({ ...draft, [field]: value });
  };
  /** A text field; a `required` one carries the mark, and an `example` shows what goes in it. */
  const text = (
    field: ParticipantField,
    caption: MessageId,
    { type = 'text', required = false, example }: TextField = {},
  ) => {
    const error = shown(field);
    return (
      <label className="field">
        <span>
          {t(caption)}
          {required && <RequiredMark />}
          <span className="visually-hidden"> {t('common.ofParticipant', { label })}</span>
        </span>
        <input
          ref={field === 'name' ? nameField : undefined}
          type={type}
          required={required}
          placeholder={example ? t(example) : undefined}
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
      {text('name', 'common.participantName', { required: true })}
      {text('email', 'common.participantEmail', { type: 'email', required: true })}
      {text('role', 'common.participantRole', { required: true, example: 'editor.roleExample' })}
      {text('signingOrder', 'common.signingOrder', { type: 'number', example: 'editor.signingOrderExample' })}
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
