import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useT } from '../i18n';

/**
 * An inline form to rename a batch: the name is kept only on "Save name". Once it closes, the
 * focus goes back to the button that opened it when that button is still there (the batch
 * list's Rename); a screen that draws its button anew puts the focus there itself.
 */
export function RenameForm({
  current,
  onSave,
  onCancel,
}: {
  current: string;
  onSave: (name: string) => void;
  onCancel: () => void;
}) {
  const t = useT();
  const [name, setName] = useState(current);
  const opener = useRef<Element | null>(document.activeElement);
  useEffect(() => {
    const from = opener.current;
    return () => {
      const holder = document.activeElement;
      const lost = holder === null || holder === document.body;
      if (lost && from instanceof HTMLElement && from.isConnected) from.focus();
    };
  }, []);
  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = name.trim();
    if (trimmed && trimmed !== current) onSave(trimmed);
    else onCancel();
  }
  return (
    <form className="row rename" onSubmit={submit}>
      <label className="inline">
        {t('batches.renameLabel')}
        <input
          value={name}
          maxLength={200}
          required
          autoFocus
          onChange={(event) => setName(event.target.value)}
        />
      </label>
      <button type="submit" className="primary">
        {t('batches.saveName')}
      </button>
      <button type="button" onClick={onCancel}>
        {t('common.cancel')}
      </button>
    </form>
  );
}
