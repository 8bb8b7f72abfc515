/**
 * What the page says of connections outside the Connections screen: the top bar's account of the
 * active one, and whether a batch's own connection is gone, so that its actions that need it say
 * why they cannot run instead of failing (README "Using the app", Connections).
 */
import type { BatchSummary, ProfileView } from '../../../shared/ipc/views';

/** The top bar's account: the active connection, none active among those saved, or none at all. */
export type HeaderConnection =
  | { readonly kind: 'active'; readonly profile: ProfileView }
  | { readonly kind: 'noneActive'; readonly saved: number }
  | { readonly kind: 'none' };

export function headerConnection(profiles: readonly ProfileView[]): HeaderConnection {
  const active = profiles.find((profile) => profile.active);
  if (active) return { kind: 'active', profile: active };
  return profiles.length > 0 ? { kind: 'noneActive', saved: profiles.length } : { kind: 'none' };
}

/**
 * True when the batch was sent with a connection that cannot be used now (deleted, or its secret
 * missing): sending, refreshing and opening its ceremonies need that very connection, never another.
 */
export function connectionUnavailable(
  batch: Pick<BatchSummary, 'connection' | 'connectionProblem'>,
): boolean {
  return batch.connection !== undefined && batch.connectionProblem !== undefined;
}

/** The id of the words that say why a batch's connection cannot be used (its banner). */
export function connectionProblemId(batchId: string): string {
  return `connection-problem-${batchId}`;
}

/**
 * An action that needs the batch's own connection, while it cannot be used (`unavailable`): kept
 * in the tab order (`aria-disabled`, not `disabled`), and described by the reason, so the keyboard
 * and a screen reader reach both. Empty when the connection can be used.
 */
export function needsConnection(
  batchId: string,
  unavailable: boolean,
): { readonly 'aria-disabled'?: true; readonly 'aria-describedby'?: string } {
  return unavailable ? { 'aria-disabled': true, 'aria-describedby': connectionProblemId(batchId) } : {};
}
