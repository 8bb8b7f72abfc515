/**
 * Where the focus goes when a form's save is refused for what was typed: the first field that
 * says it is wrong (`aria-invalid`), whose message it names (`aria-describedby`); else the
 * form's own account of the problems (`role="alert"`). Never left on the Save button at the foot
 * of a long form, or on the page's body.
 */
export function focusFirstProblem(form: HTMLElement): void {
  const field = form.querySelector<HTMLElement>('[aria-invalid="true"]:not([disabled])');
  if (field) {
    field.focus();
    return;
  }
  const alert = form.querySelector<HTMLElement>('[role="alert"]');
  if (!alert) return;
  if (!alert.hasAttribute('tabindex')) alert.tabIndex = -1;
  alert.focus();
}
