import type { Clock } from '../time/clock';
import type { ServiceClient } from '../client/service-client';
import { isNotFoundAtService, serviceFailureWords } from '../domain/service-failure';
import { words } from '../base/words';
import type { BatchState } from '../domain/batch-state';
import type { BatchStore } from '../store/batch-store';
import type { NextReads } from './next-reads';
import type { CheckAgainOutcome, PollerListeners } from './poller-events';
import type { TrackedRequests } from './tracked-requests';
import { trackedStatusOf } from './tracked-status';

/** What reads on demand take. */
export interface OnDemandReadParts {
  readonly store: BatchStore;
  readonly client: ServiceClient;
  readonly tracks: ((batch: BatchState) => boolean) | undefined;
  readonly clock: Clock;
  readonly requests: TrackedRequests;
  readonly nextReads: NextReads;
  readonly listeners: PollerListeners;
  /** Wakes the poller's loop to read what became due. */
  readonly wake: () => void;
}

/**
 * The reads a person asks for: "Refresh now" (every tracked request due at once) and "Check
 * again" (one read of a request its service said was gone).
 */
export class OnDemandReads {
  readonly #parts: OnDemandReadParts;

  constructor(parts: OnDemandReadParts) {
    this.#parts = parts;
  }

  /**
   * "Refresh now": every tracked request (of `batchId`, else of every batch) becomes due; reads
   * still respect the budget and the spacing of each request. Returns the requests that will be
   * read (their keys).
   */
  refreshNow(batchId?: string): Set<string> {
    const { clock, requests, nextReads, wake } = this.#parts;
    const now = clock.monotonic();
    const due = new Set<string>();
    requests.refresh();
    for (const tracked of requests.values()) {
      if (!batchId || tracked.batchId === batchId) {
        nextReads.dueAt(tracked.key, now);
        due.add(tracked.key);
      }
    }
    wake();
    return due;
  }

  /**
   * "Check again" on a request its service said was gone: one read now. When the service
   * answers, the request is tracked again from its status; when it still says it has none, it
   * stays gone. Nothing is ever read with another connection (this poller's batches only).
   */
  async checkAgain(batchId: string, documentId: string): Promise<CheckAgainOutcome> {
    const { store, client, tracks, clock, listeners, wake } = this.#parts;
    const t = words();
    // A batch whose every request is gone may be at rest: it is read back for this.
    const batch = await store.open(batchId);
    const document = batch?.documents.find((candidate) => candidate.draft.id === documentId);
    const requestId = document?.send.requestId;
    if (!batch || !document || !requestId || !document.gone)
      return { found: false, message: t('errors.notGone') };
    if (tracks && !tracks(batch)) return { found: false, message: t('errors.trackedElsewhere') };
    const result = await client.getSigningRequest(requestId, { maxAttempts: 1 });
    if (!result.ok) {
      const reason = serviceFailureWords(result.error, t);
      const message = isNotFoundAtService(result.error)
        ? t('errors.stillGone', { requestId })
        : t('errors.checkAgainUnreadable', { requestId, reason });
      return { found: false, message };
    }
    const status = trackedStatusOf(result.value, new Date(clock.now()));
    await store.record(batchId, [
      { type: 'request_found', documentId },
      { type: 'status_read', documentId, status },
    ]);
    const externalReference = document.draft.externalReference;
    listeners.emit({ type: 'status-changed', batchId, documentId, externalReference, status });
    listeners.emitFinal({ batchId, documentId, externalReference }, status);
    wake();
    return { found: true };
  }
}
