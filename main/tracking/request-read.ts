import type { TrackedStatus } from '../../shared/domain/batch';
import type { Logger } from '../base/log';
import type { Clock } from '../time/clock';
import type { ServiceClient } from '../client/service-client';
import { isNotFoundAtService } from '../domain/service-failure';
import type { BatchStore } from '../store/batch-store';
import type { NextReads } from './next-reads';
import type { PollerListeners } from './poller-events';
import type { ReadBackoff } from './read-backoff';
import type { Tracked } from './tracked-requests';
import { sameStatus, trackedStatusOf } from './tracked-status';

/** What reading one request takes. */
export interface RequestReadParts {
  readonly client: ServiceClient;
  readonly store: BatchStore;
  readonly clock: Clock;
  readonly nextReads: NextReads;
  readonly backoff: ReadBackoff;
  readonly listeners: PollerListeners;
  readonly logger: Logger;
}

/**
 * Reads one tracked request and records what it said: a changed or final status in its batch's
 * journal, a 404 from its own service as gone; then schedules its next read, or none. A busy
 * service pauses every read; any other failure only waits for the request's next read.
 */
export class RequestReader {
  readonly #parts: RequestReadParts;
  #reads = 0;

  constructor(parts: RequestReadParts) {
    this.#parts = parts;
  }

  /** Reads performed since start (for benchmarks and the status line). */
  get reads(): number {
    return this.#reads;
  }

  /** Rejects when its answer could not be stored; resolves without reading when `signal` stops it. */
  async read(tracked: Tracked, signal: AbortSignal): Promise<void> {
    const { client, store, clock, nextReads, backoff, listeners, logger } = this.#parts;
    const { key } = tracked;
    this.#reads += 1;
    let result;
    try {
      // One attempt per read taken from the budget: the poller's own schedule and backoff retry.
      result = await client.getSigningRequest(tracked.requestId, { signal, maxAttempts: 1 });
    } catch {
      return; // Stopped while reading.
    }
    const now = clock.now();
    const tick = clock.monotonic();
    const checked = () =>
      listeners.emit({
        type: 'checked',
        batchId: tracked.batchId,
        documentId: tracked.documentId,
        at: new Date(now).toISOString(),
      });
    // An unchanged status has stood since the read that first found it (the journal keeps it).
    const lastFirstRead = tracked.last ? Date.parse(tracked.last.readAt) : Number.NaN;
    const reschedule = (
      status: TrackedStatus | undefined = tracked.last,
      statusSince = Number.isFinite(lastFirstRead) ? lastFirstRead : now,
    ) => nextReads.readAgain(tracked, tick, status, statusSince);
    if (!result.ok) {
      const failure = result.error;
      // Gone only when the service itself says so: a gateway's 404 (no service error body) is passing.
      if (isNotFoundAtService(failure)) {
        checked();
        await store.record(tracked.batchId, [{ type: 'request_gone', documentId: tracked.documentId }]);
        nextReads.forget(key);
        listeners.emit({
          type: 'gone',
          batchId: tracked.batchId,
          documentId: tracked.documentId,
          externalReference: tracked.externalReference,
        });
        return;
      }
      if (failure.retryable) {
        const delay = backoff.pause(tick, failure.retryAfterMs);
        logger.log('warn', 'poll.waiting', { code: failure.code, delayMs: delay });
        listeners.emit({ type: 'poller-state', state: 'waiting', reason: failure.message });
        return;
      }
      if (failure.code === 'credentials_rejected' || failure.code === 'insufficient_scope')
        listeners.emit({ type: 'poller-state', state: 'refused', reason: failure.message });
      logger.log('warn', 'poll.failed', {
        code: failure.code,
        batchId: tracked.batchId,
        documentId: tracked.documentId,
      });
      reschedule();
      return;
    }
    if (backoff.answered()) listeners.emit({ type: 'poller-state', state: 'tracking' });
    const status = trackedStatusOf(result.value, new Date(now));
    const changed = !sameStatus(tracked.last, status);
    if (changed || status.final) {
      await store.record(tracked.batchId, [{ type: 'status_read', documentId: tracked.documentId, status }]);
      listeners.emit({
        type: 'status-changed',
        batchId: tracked.batchId,
        documentId: tracked.documentId,
        externalReference: tracked.externalReference,
        status,
      });
    }
    // Said once its answer is stored: whoever counts reads (watch) sees the status they found.
    checked();
    if (status.final) {
      nextReads.forget(key);
      listeners.emitFinal(tracked, status);
      return;
    }
    if (changed) reschedule(status, now);
    else reschedule(status);
  }
}
