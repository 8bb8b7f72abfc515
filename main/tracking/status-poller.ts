import type { TrackedStatus } from '../../shared/domain/batch';
import { stageOfStored } from '../../shared/service/status';
import { backoffDelayMs } from '../client/backoff';
import { systemClock, type Clock } from '../time/clock';
import type { ServiceClient } from '../client/service-client';
import { isNotFoundAtService, serviceFailureWords } from '../domain/service-failure';
import { silentLogger, type Logger } from '../base/log';
import { words } from '../base/words';
import type { BatchState, DocumentState } from '../domain/batch-state';
import { needsTracking } from '../domain/document-class';
import type { BatchStore } from '../store/batch-store';
import { DueQueue } from './due-queue';
import {
  DEFAULT_POLL_SCHEDULE,
  nextInterval,
  unrecognizedInterval,
  type PollSchedule,
} from './poll-schedule';
import { ReadBudget } from './read-budget';
import { sameStatus, trackedStatusOf } from './tracked-status';

import type { CheckAgainOutcome, PollerEvent } from './poller-events';

export { trackedStatusOf } from './tracked-status';
export type { CheckAgainOutcome, PollerEvent } from './poller-events';

export interface StatusPollerOptions {
  readonly store: BatchStore;
  readonly client: ServiceClient;
  /**
   * Whether this poller reads `batch`'s requests: a batch is read only at the service it was
   * sent to (its bound connection), never with another client. Default: every batch.
   */
  readonly tracks?: (batch: BatchState) => boolean;
  readonly schedule?: PollSchedule;
  /**
   * Reads per minute over every request (default 60), and the largest burst (default 1: reads
   * are paced evenly and never come in bursts).
   */
  readonly readsPerMinute?: number;
  readonly burst?: number;
  /**
   * The clock of its schedule and its waits (default: the system's). A test or benchmark passes
   * a virtual one, so days of tracking take as long as their reads.
   */
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly logger?: Logger;
}

/** A read whose answer could not be stored is tried again after this long. */
const NOT_STORED_RETRY_MS = 30_000;

interface Tracked {
  /** `batchId/documentId`: the key of its schedule. */
  readonly key: string;
  readonly batchId: string;
  readonly documentId: string;
  readonly requestId: string;
  readonly externalReference: string;
  readonly since: number;
  readonly last: TrackedStatus | undefined;
}

/**
 * When a tracked request was prepared, for its age: when the app prepared it, or linked it as
 * prepared, else the service's own time, else the document's last change.
 */
function preparedSince(document: DocumentState): number {
  const { send, tracking } = document;
  for (const at of [send.prepared?.at, send.linkedPreparedAt, tracking?.preparedAt, document.updatedAt]) {
    const time = at === undefined ? Number.NaN : Date.parse(at);
    if (Number.isFinite(time)) return time;
  }
  return 0;
}

/** The request of one document that the poller reads, or undefined when it reads none. */
function trackedOf(batchId: string, document: DocumentState): Tracked | undefined {
  // needsTracking implies a request id; it is checked again only to narrow the type.
  if (!needsTracking(document) || !document.send.requestId) return undefined;
  return {
    key: `${batchId}/${document.draft.id}`,
    batchId,
    documentId: document.draft.id,
    requestId: document.send.requestId,
    externalReference: document.draft.externalReference,
    since: preparedSince(document),
    last: document.tracking,
  };
}

/**
 * Reads every prepared request that is not final until it is (README "Tracking politely"): completed, or
 * ended without completion. Polite: a schedule by age and attention (a status this app does not
 * know: a slow, growing interval), a global read budget, jitter, backoff on 429/503 honouring
 * Retry-After. A 404 marks the request gone. Keeps going as long as it runs, across restarts
 * (the schedule restarts from the journal).
 */
export class StatusPoller {
  readonly #options: StatusPollerOptions;
  readonly #schedule: PollSchedule;
  /** Wall-clock time: what a read is stamped with, and how old a request is (its times are wall times). */
  readonly #now: () => number;
  /**
   * Monotonic time: when each read is due, the budget, waits and attention. A computer's clock set
   * back an hour must not stop every read for that hour, nor one set forward read everything at once.
   */
  readonly #tick: () => number;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #logger: Logger;
  readonly #budget: ReadBudget;
  readonly #due = new DueQueue();
  /** The state of each batch the tracked requests were last taken from, and their keys. */
  readonly #trackedByBatch = new Map<string, { state: BatchState; readonly keys: Set<string> }>();
  /** Every tracked request by its key. */
  readonly #trackedByKey = new Map<string, Tracked>();
  readonly #attentionUntil = new Map<string, number>();
  readonly #listeners = new Set<(event: PollerEvent) => void>();
  #controller: AbortController | undefined;
  #wake: (() => void) | undefined;
  #pausedUntil = 0;
  #backoffStreak = 0;
  #reads = 0;

  constructor(options: StatusPollerOptions) {
    this.#options = options;
    this.#schedule = options.schedule ?? DEFAULT_POLL_SCHEDULE;
    const clock = options.clock ?? systemClock;
    this.#now = () => clock.now();
    this.#tick = () => clock.monotonic();
    this.#sleep = (ms, signal) => clock.sleep(ms, signal);
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger ?? silentLogger;
    this.#budget = new ReadBudget(options.readsPerMinute ?? 60, options.burst ?? 1, this.#tick);
  }

  /** Reads performed since start (for benchmarks and the status line). */
  get reads(): number {
    return this.#reads;
  }

  subscribe(listener: (event: PollerEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts tracking in the background; returns at once. */
  start(): void {
    if (this.#controller) return;
    this.#controller = new AbortController();
    void this.#loop(this.#controller.signal);
  }

  /** Stops tracking; a later start picks up where it left off. */
  stop(): void {
    this.#controller?.abort(new Error('stopped'));
    this.#controller = undefined;
    this.#wake?.();
  }

  get running(): boolean {
    return this.#controller !== undefined;
  }

  /** Someone is watching this request (a ceremony window is open): read it quickly. */
  watch(batchId: string, documentId: string): void {
    const key = `${batchId}/${documentId}`;
    this.#attentionUntil.set(key, Number.POSITIVE_INFINITY);
    this.#due.set(key, this.#tick());
    this.#wake?.();
  }

  /**
   * The window closed: stay quick for a short grace period, then slow down. A grace of 0 (the
   * window never opened) returns the request to its age's pace at once.
   */
  unwatch(batchId: string, documentId: string, graceMs = this.#schedule.attentionGraceMs): void {
    const key = `${batchId}/${documentId}`;
    this.#attentionUntil.set(key, this.#tick() + graceMs);
    this.#due.set(key, this.#tick());
    this.#wake?.();
  }

  /**
   * "Refresh now": every tracked request becomes due; reads still respect the budget and the
   * spacing of each request. Returns how many requests will be read.
   */
  refreshNow(batchId?: string): number {
    const now = this.#tick();
    let due = 0;
    this.#refreshTracked();
    for (const tracked of this.#trackedByKey.values()) {
      if (!batchId || tracked.batchId === batchId) {
        this.#due.set(tracked.key, now);
        due += 1;
      }
    }
    this.#wake?.();
    return due;
  }

  /**
   * "Check again" on a request its service said was gone: one read now. When the service
   * answers, the request is tracked again from its status; when it still says it has none, it
   * stays gone. Nothing is ever read with another connection (this poller's batches only).
   */
  async checkAgain(batchId: string, documentId: string): Promise<CheckAgainOutcome> {
    const t = words();
    const batch = this.#options.store.get(batchId);
    const document = batch?.documents.find((candidate) => candidate.draft.id === documentId);
    const requestId = document?.send.requestId;
    if (!batch || !document || !requestId || !document.gone)
      return { found: false, message: t('errors.notGone') };
    if (this.#options.tracks && !this.#options.tracks(batch))
      return { found: false, message: t('errors.trackedElsewhere') };
    const result = await this.#options.client.getSigningRequest(requestId, { maxAttempts: 1 });
    if (!result.ok) {
      const reason = serviceFailureWords(result.error, t);
      const message = isNotFoundAtService(result.error)
        ? t('errors.stillGone', { requestId })
        : t('errors.checkAgainUnreadable', { requestId, reason });
      return { found: false, message };
    }
    const status = trackedStatusOf(result.value, new Date(this.#now()));
    await this.#options.store.record(batchId, [
      { type: 'request_found', documentId },
      { type: 'status_read', documentId, status },
    ]);
    const externalReference = document.draft.externalReference;
    this.#emit({ type: 'status-changed', batchId, documentId, externalReference, status });
    this.#emitFinal({ batchId, documentId, externalReference }, status);
    this.#wake?.();
    return { found: true };
  }

  /** Says a final status: completed, or ended with the service's word. */
  #emitFinal(
    about: { readonly batchId: string; readonly documentId: string; readonly externalReference: string },
    status: TrackedStatus,
  ): void {
    const { batchId, documentId, externalReference } = about;
    const stage = stageOfStored(status);
    if (stage === 'completed') this.#emit({ type: 'completed', batchId, documentId, externalReference });
    if (stage === 'ended')
      this.#emit({ type: 'ended', batchId, documentId, externalReference, status: status.status });
  }

  #emit(event: PollerEvent): void {
    for (const listener of this.#listeners) listener(event);
  }

  /**
   * Brings the tracked requests up to date with the store. States are immutable: only batches
   * whose state changed are looked at again, and in them only the documents that changed (a
   * status read changes one document of a batch of 1,000). A request seen for the first time is
   * scheduled.
   */
  #refreshTracked(): void {
    const { tracks } = this.#options;
    const batches = this.#options.store.list();
    let present = 0;
    for (const batch of batches) {
      if (tracks && !tracks(batch)) continue;
      present += 1;
      let cached = this.#trackedByBatch.get(batch.id);
      if (cached?.state === batch) continue;
      const previous = cached?.state.documents;
      // Only the same documents at the same places may be compared one by one: a draft removed
      // and another added keeps the length but shifts the others (an attack found a waiting
      // request dropped that way, never read again).
      const sameShape =
        previous?.length === batch.documents.length &&
        batch.documents.every((document, index) => previous[index]?.draft.id === document.draft.id);
      if (!cached || !sameShape) {
        for (const key of cached?.keys ?? []) this.#trackedByKey.delete(key);
        cached = { state: batch, keys: new Set() };
        this.#trackedByBatch.set(batch.id, cached);
      }
      cached.state = batch;
      batch.documents.forEach((document, index) => {
        const before = sameShape ? previous?.[index] : undefined;
        if (document === before) return;
        const tracked = trackedOf(batch.id, document);
        if (!tracked) {
          this.#untrack(cached, `${batch.id}/${document.draft.id}`);
          return;
        }
        cached.keys.add(tracked.key);
        this.#trackedByKey.set(tracked.key, tracked);
        if (this.#due.dueOf(tracked.key) === undefined) this.#due.set(tracked.key, this.#firstDue(tracked));
      });
    }
    if (this.#trackedByBatch.size > present) {
      const kept = new Set(batches.filter((batch) => !tracks || tracks(batch)).map((batch) => batch.id));
      for (const [batchId, cached] of this.#trackedByBatch) {
        if (kept.has(batchId)) continue;
        for (const key of cached.keys) this.#trackedByKey.delete(key);
        this.#trackedByBatch.delete(batchId);
      }
    }
  }

  #untrack(cached: { readonly keys: Set<string> }, key: string): void {
    cached.keys.delete(key);
    this.#trackedByKey.delete(key);
  }

  #hasAttention(key: string): boolean {
    return (this.#attentionUntil.get(key) ?? 0) > this.#tick();
  }

  /** When a request is first due after it appears; requests never read are spread over the first interval, not all at once. */
  #firstDue(tracked: Tracked): number {
    const lastRead = tracked.last ? Date.parse(tracked.last.readAt) : tracked.since;
    const interval = this.#intervalAfter(tracked, tracked.last, lastRead);
    // Its next read by the wall clock (the last read's time is a wall time), as a delay from now:
    // never more than one interval away, even when the clock was set back since that read.
    const untilNextRead = Math.min(lastRead + interval - this.#now(), interval);
    return this.#tick() + Math.max(untilNextRead, this.#random() * Math.min(interval, 10_000));
  }

  /**
   * The wait before the next read of `tracked`, whose last read said `status`, first read at
   * `statusSince`: a status this app does not know waits as long as it has stood unchanged
   * (unless someone is watching its ceremony); any other follows the request's age.
   */
  #intervalAfter(tracked: Tracked, status: TrackedStatus | undefined, statusSince: number): number {
    const attention = this.#hasAttention(tracked.key);
    if (!attention && status !== undefined && stageOfStored(status) === 'unrecognized')
      return unrecognizedInterval(this.#schedule, this.#now() - statusSince, this.#random);
    return nextInterval(this.#schedule, this.#now() - tracked.since, attention, this.#random);
  }

  /**
   * The tracked request to read next and when it is due: requests someone is watching go first
   * among those due, then the one due first. Attention that ran out is forgotten here.
   */
  #next(now: number): { readonly tracked: Tracked; readonly due: number } | undefined {
    let watched: { tracked: Tracked; due: number } | undefined;
    for (const [key, until] of this.#attentionUntil) {
      if (until <= now) {
        this.#attentionUntil.delete(key);
        continue;
      }
      const tracked = this.#trackedByKey.get(key);
      const due = this.#due.dueOf(key);
      if (tracked && due !== undefined && due <= now && (!watched || due < watched.due))
        watched = { tracked, due };
    }
    if (watched) return watched;
    const first = this.#due.first((key) => this.#trackedByKey.has(key));
    const tracked = first && this.#trackedByKey.get(first.key);
    return first && tracked ? { tracked, due: first.due } : undefined;
  }

  async #loop(signal: AbortSignal): Promise<void> {
    this.#emit({ type: 'poller-state', state: 'tracking' });
    while (!signal.aborted) {
      const now = this.#tick();
      let waitMs: number;
      if (this.#pausedUntil > now) {
        waitMs = this.#pausedUntil - now;
      } else {
        this.#refreshTracked();
        const first = this.#next(now);
        const next = first && first.due <= now ? first.tracked : undefined;
        if (next) {
          const budgetWait = this.#budget.msUntilAvailable();
          if (budgetWait === 0 && this.#budget.tryTake()) {
            try {
              await this.#read(next, signal);
            } catch (error) {
              // Its answer could not be stored (the batch was deleted meanwhile, or the disk
              // failed): this request is read again later; every other one goes on being tracked.
              this.#logger.log('warn', 'poll.not_stored', {
                batchId: next.batchId,
                error: error instanceof Error ? error.message : String(error),
              });
              this.#due.set(next.key, this.#tick() + NOT_STORED_RETRY_MS);
            }
            continue;
          }
          waitMs = budgetWait;
        } else {
          waitMs = first ? Math.max(0, first.due - now) : 60_000;
        }
      }
      // Sleep until the next read is due, woken early by watch/refresh/new requests.
      await Promise.race([
        this.#sleep(Math.min(waitMs, 60_000), signal).catch(() => undefined),
        new Promise<void>((resolve) => (this.#wake = resolve)),
      ]);
    }
  }

  /** Wakes the loop when batches change (a request was just prepared). */
  notifyChanged(): void {
    this.#wake?.();
  }

  async #read(tracked: Tracked, signal: AbortSignal): Promise<void> {
    const { key } = tracked;
    this.#reads += 1;
    let result;
    try {
      // One attempt per read taken from the budget: the poller's own schedule and backoff retry.
      result = await this.#options.client.getSigningRequest(tracked.requestId, { signal, maxAttempts: 1 });
    } catch {
      return; // Stopped while reading.
    }
    const now = this.#now();
    const tick = this.#tick();
    const checked = () =>
      this.#emit({
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
    ) => this.#due.set(key, tick + this.#intervalAfter(tracked, status, statusSince));
    if (!result.ok) {
      const failure = result.error;
      // Gone only when the service itself says so: a gateway's 404 (no service error body) is passing.
      if (isNotFoundAtService(failure)) {
        checked();
        await this.#options.store.record(tracked.batchId, [
          { type: 'request_gone', documentId: tracked.documentId },
        ]);
        this.#due.delete(key);
        this.#emit({
          type: 'gone',
          batchId: tracked.batchId,
          documentId: tracked.documentId,
          externalReference: tracked.externalReference,
        });
        return;
      }
      if (failure.retryable) {
        this.#backoffStreak += 1;
        const delay = Math.max(
          failure.retryAfterMs ?? 0,
          5_000 +
            backoffDelayMs(
              this.#backoffStreak,
              { maxAttempts: 0, baseDelayMs: 10_000, maxDelayMs: 15 * 60_000, maxRetryAfterMs: 0 },
              this.#random,
            ),
        );
        this.#pausedUntil = tick + delay;
        this.#logger.log('warn', 'poll.waiting', { code: failure.code, delayMs: delay });
        this.#emit({ type: 'poller-state', state: 'waiting', reason: failure.message });
        return;
      }
      if (failure.code === 'credentials_rejected' || failure.code === 'insufficient_scope')
        this.#emit({ type: 'poller-state', state: 'refused', reason: failure.message });
      this.#logger.log('warn', 'poll.failed', {
        code: failure.code,
        batchId: tracked.batchId,
        documentId: tracked.documentId,
      });
      reschedule();
      return;
    }
    if (this.#backoffStreak > 0) {
      this.#backoffStreak = 0;
      this.#emit({ type: 'poller-state', state: 'tracking' });
    }
    const status = trackedStatusOf(result.value, new Date(now));
    const changed = !sameStatus(tracked.last, status);
    if (changed || status.final) {
      await this.#options.store.record(tracked.batchId, [
        { type: 'status_read', documentId: tracked.documentId, status },
      ]);
      this.#emit({
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
      this.#due.delete(key);
      this.#emitFinal(tracked, status);
      return;
    }
    if (changed) reschedule(status, now);
    else reschedule(status);
  }
}
