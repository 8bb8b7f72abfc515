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
  | { readonly kind: 'exited'; readonly code: number | null };

export class CeremonyWindowFailure extends DeskError {
  readonly problem: CeremonyWindowProblem;

  constructor(problem: CeremonyWindowProblem) {
    super(
      'ceremony_window_failed',
      problem.kind === 'no_display'
        ? 'The ceremony window could not open: there is no display to show it on.'
        : `The ceremony window could not open: its browser stopped at once (exit code ${problem.code ?? 'none'}).`,
    );
    this.name = 'CeremonyWindowFailure';
    this.problem = problem;
  }
}
