import type { SigningRequest } from './wire';

/**
 * The one rule of what a signing request's status means (spec §3 and the README's "Answers the spec
 * does not pin down"): whether it is done, ended without completion, still on its way, or in a status
 * this app does not know. The poller, the document classes, the command line and the report
 * all follow it; nothing else compares status words.
 */

/** The status values the spec has seen (§3). Others may appear and are shown as they are. */
export const KNOWN_REQUEST_STATUSES = ['prepared', 'in_progress', 'completed'] as const;

/**
 * Status words that plainly end a request without completion. Compared without regard to case
 * (a service may write `DECLINED`); both spellings of cancelled, as services use both.
 */
export const ENDED_REQUEST_STATUSES = [
  'declined',
  'expired',
  'cancelled',
  'canceled',
  'voided',
  'rejected',
] as const;

/** Document statuses after which the document can no longer change (`finalized` is the spec's own). */
export const FINAL_DOCUMENT_STATUSES = [
  'finalized',
  'voided',
  'cancelled',
  'canceled',
  'declined',
  'expired',
  'rejected',
] as const;

/**
 * Where a request stands, as far as tracking is concerned:
 * - `completed`: the spec's final state (status `completed`, document `finalized`, evidence
 *   ready, `finalized_at` set): nothing is left to read.
 * - `ended`: final without completion (declined, expired, cancelled, voided…): nobody can sign
 *   it any more, and it is not read again.
 * - `open`: a status the spec shows that is not final yet (`prepared`, `in_progress`, or
 *   `completed` while its evidence is not ready): read at the normal pace.
 * - `unrecognized`: a status this app does not know, with nothing saying it is final: read at a
 *   slow, growing interval (poll-schedule.ts).
 */
export type RequestStage = 'completed' | 'ended' | 'open' | 'unrecognized';

/** What the rule looks at: the fields of a read, as the poller keeps them (TrackedStatus). */
export interface StatusFacts {
  readonly status: string;
  readonly documentStatus?: string | undefined;
  readonly evidenceReady: boolean;
  readonly preparedAt?: string | undefined;
  readonly finalizedAt?: string | undefined;
}

function word(value: string | undefined): string {
  return (value ?? '').trim().toLowerCase();
}

function hasTime(value: string | undefined): boolean {
  return (value ?? '').trim() !== '';
}

/** The facts of a read signing request, in the rule's terms. */
export function statusFactsOf(request: SigningRequest): StatusFacts {
  return {
    status: request.status,
    documentStatus: request.document?.status ?? undefined,
    evidenceReady: request.evidence?.ready === true,
    preparedAt: request.prepared_at ?? undefined,
    finalizedAt: request.finalized_at ?? undefined,
  };
}

/**
 * The stage of a request from its status read. `completed` is final only under the spec's whole
 * rule: a request completed but whose evidence is not ready yet is still read, so that the
 * person is told when its evidence is ready. A status the spec shows as under way (`prepared`,
 * `in_progress`) is taken at its word even when another field looks final: the service says it
 * is still moving, and stopping would lose its completion for good, while reading it on costs
 * one polite read. Any other status is final when it is a plainly final word, carries
 * `finalized_at`, or its document has a final status; otherwise it is unrecognized.
 */
export function stageOf(facts: StatusFacts): RequestStage {
  const status = word(facts.status);
  if (status === 'completed') {
    const done =
      word(facts.documentStatus) === 'finalized' && facts.evidenceReady && hasTime(facts.finalizedAt);
    return done ? 'completed' : 'open';
  }
  if (status === 'prepared' || status === 'in_progress') return 'open';
  const plainlyFinal =
    (ENDED_REQUEST_STATUSES as readonly string[]).includes(status) ||
    hasTime(facts.finalizedAt) ||
    (FINAL_DOCUMENT_STATUSES as readonly string[]).includes(word(facts.documentStatus));
  return plainlyFinal ? 'ended' : 'unrecognized';
}

/**
 * The stage of a status read as the journal keeps it: by the rule, except that one stored as
 * final stays final. Earlier versions wrote `final` only for the spec's completed state, so
 * such a record is completed, and a request once final is never read again by itself.
 */
export function stageOfStored(stored: StatusFacts & { readonly final: boolean }): RequestStage {
  const stage = stageOf(stored);
  return stored.final && !isFinalStage(stage) ? 'completed' : stage;
}

/** True when nothing more will happen to the request: completed or ended. */
export function isFinalStage(stage: RequestStage): boolean {
  return stage === 'completed' || stage === 'ended';
}

/**
 * True when a signing request has reached the spec's final state (§3): status `completed`,
 * document `finalized`, evidence ready and `finalized_at` set.
 */
export function isFinal(request: SigningRequest): boolean {
  return stageOf(statusFactsOf(request)) === 'completed';
}

/**
 * True when a request, as read, is already prepared (or further): its preparation time is set,
 * its status is one the spec shows from preparation on, or its document is prepared or final.
 * No participant can be added to such a request any more, and it has a ceremony to track.
 */
export function isPreparedOrLater(facts: Omit<StatusFacts, 'evidenceReady'>): boolean {
  const documentStatus = word(facts.documentStatus);
  return (
    hasTime(facts.preparedAt) ||
    (KNOWN_REQUEST_STATUSES as readonly string[]).includes(word(facts.status)) ||
    documentStatus === 'prepared' ||
    (FINAL_DOCUMENT_STATUSES as readonly string[]).includes(documentStatus)
  );
}
