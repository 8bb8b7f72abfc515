import { useT } from '../i18n';

/**
 * The mark of a field that must be filled: seen as "*" (drawn by the style sheet, with no text of
 * its own), not read aloud and no part of the field's name — the field itself says it is required
 * to a screen reader, through `required`. `RequiredNote` says what the mark means, once per form
 * that shows it.
 */
export function RequiredMark() {
  return <span className="required-mark" aria-hidden="true" />;
}

/** What "*" means, at the top of a form whose fields carry it. */
export function RequiredNote() {
  const t = useT();
  return (
    <p className="hint required-note">
      <span aria-hidden="true">* </span>
      {t('editor.requiredNote')}
    </p>
  );
}
