/**
 * A ceremony window that could not open, and why, as the opener saw it: the ceremony handler
 * says it in the person's language, with "Try again" on the page. Without it the window's
 * process exited at once (no display, a broken browser) and nothing visible happened.
 */
import { DeskError } from './desk-error';

export type CeremonyWindowProblem =
  /** There is no display to show a window on (no DISPLAY nor WAYLAND_DISPLAY on Linux). */
  | { readonly kind: 'no_display' }
  /** The window's process ended before it opened the ceremony (its exit code, when it had one). */
  | { readonly kind: 'exited'; readonly code: number | null }
  /** The window could not load the widget's page (Chromium's error code, e.g. ERR_CONNECTION_REFUSED). */
  | { readonly kind: 'load_failed'; readonly code: string };

export class CeremonyWindowFailure extends DeskError {
  readonly problem: CeremonyWindowProblem;

  constructor(problem: CeremonyWindowProblem) {
    super(
      'ceremony_window_failed',
      problem.kind === 'no_display'
        ? 'The ceremony window could not open: there is no display to show it on.'
        : problem.kind === 'load_failed'
          ? `The ceremony window could not load the signing page (${problem.code}).`
          : `The ceremony window could not open: its browser stopped at once (exit code ${problem.code ?? 'none'}).`,
    );
    this.name = 'CeremonyWindowFailure';
    this.problem = problem;
  }
}
