import type { TrackedStatus } from '../../shared/domain/batch';
import { isFinalStage, stageOf, statusFactsOf } from '../../shared/service/status';
import type { SigningRequest } from '../../shared/service/wire';

/**
 * The status a read reports, in the form the batch journal keeps. `final` follows the one rule
 * (shared/service/status.ts): completed under the spec's whole rule, or plainly ended.
 */
export function trackedStatusOf(request: SigningRequest, readAt: Date): TrackedStatus {
  const facts = statusFactsOf(request);
  return {
    status: request.status,
    documentStatus: facts.documentStatus,
    evidenceReady: facts.evidenceReady,
    preparedAt: facts.preparedAt,
    openedAt: request.opened_at ?? undefined,
    finalizedAt: facts.finalizedAt,
    readAt: readAt.toISOString(),
    final: isFinalStage(stageOf(facts)),
  };
}

/** True when two reads say the same: only a change is written to the journal. */
export function sameStatus(a: TrackedStatus | undefined, b: TrackedStatus): boolean {
  return (
    a !== undefined &&
    a.status === b.status &&
    a.documentStatus === b.documentStatus &&
    a.evidenceReady === b.evidenceReady &&
    a.preparedAt === b.preparedAt &&
    a.openedAt === b.openedAt &&
    a.finalizedAt === b.finalizedAt
  );
}
