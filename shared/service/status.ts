import type { SigningRequest } from './wire';

/** The status values the spec has seen (§3). Others may appear and are shown as they are. */
export const KNOWN_REQUEST_STATUSES = ['prepared', 'in_progress', 'completed'] as const;

/**
 * True when a signing request has reached the spec's final state (§3): status `completed`,
 * document `finalized`, evidence ready and `finalized_at` set. Anything else is polled again.
 */
export function isFinal(request: SigningRequest): boolean {
  return (
    request.status === 'completed' &&
    request.document?.status === 'finalized' &&
    request.evidence?.ready === true &&
    typeof request.finalized_at === 'string'
  );
}
