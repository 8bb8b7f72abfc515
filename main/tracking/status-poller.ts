import { systemClock, type Clock } from '../time/clock';
import { silentLogger, type Logger } from '../base/log';
import { NextReads } from './next-reads';
import { OnDemandReads } from './on-demand-reads';
import { DEFAULT_POLL_SCHEDULE, type PollSchedule } from './poll-schedule';
import { PollerListeners, type CheckAgainOutcome, type PollerEvent } from './poller-events';
import { ReadBackoff } from './read-backoff';
import { ReadBudget } from './read-budget';
import { RequestReader } from './request-read';
import { TrackedRequests } from './tracked-requests';
import type { ServiceClient } from '../client/service-client';
import type { BatchState } from '../domain/batch-state';
import type { BatchStore } from '../store/batch-store';

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

/**
 * Reads every prepared request that is not final until it is (README "Tracking politely"): completed, or
 * ended without completion. Polite: a schedule by age and attention (a status this app does not
 * know: a slow, growing interval), a global read budget, jitter, backoff on 429/503 honouring
 * Retry-After. A 404 marks the request gone. Keeps going as long as it runs, across restarts
 * (the schedule restarts from the journal).
 *
 * The poller runs the loop: it takes the requests to read from the store (tracked-requests.ts),
 * reads the one due next (next-reads.ts) when the budget allows and the service is not busy
 * (read-backoff.ts), one request at a time (request-read.ts), then sleeps until the next is due,
 * woken early by a watch, "Refresh now", "Check again" (on-demand-reads.ts) or new requests.
 * While tracking is paused (stopped), "Refresh now" still reads what it names, once: the same
 * loop over those requests only, ending when each was read.
 */
export class StatusPoller {
  readonly #schedule: PollSchedule;
  /**
   * Monotonic time: when each read is due, the budget, waits and attention. A computer's clock set
   * back an hour must not stop every read for that hour, nor one set forward read everything at once.
   */
  readonly #tick: () => number;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #logger: Logger;
  readonly #budget: ReadBudget;
  readonly #backoff: ReadBackoff;
  readonly #listeners = new PollerListeners();
  readonly #nextReads: NextReads;
  readonly #requests: TrackedRequests;
  readonly #reader: RequestReader;
  readonly #onDemand: OnDemandReads;
  #controller: AbortController | undefined;
  /** The reads a "Refresh now" asked for while tracking is paused, read once, and their stop. */
  #once: { readonly controller: AbortController; readonly keys: Set<string> } | undefined;
  #wake: (() => void) | undefined;

  constructor(options: StatusPollerOptions) {
    const { store, client, tracks } = options;
    const clock = options.clock ?? systemClock;
    const random = options.random ?? Math.random;
    const logger = options.logger ?? silentLogger;
    this.#schedule = options.schedule ?? DEFAULT_POLL_SCHEDULE;
    this.#tick = () => clock.monotonic();
    this.#sleep = (ms, signal) => clock.sleep(ms, signal);
    this.#logger = logger;
    this.#budget = new ReadBudget(options.readsPerMinute ?? 60, options.burst ?? 1, this.#tick);
    const backoff = new ReadBackoff(random);
    this.#backoff = backoff;
    const nextReads = new NextReads(this.#schedule, clock, random);
    this.#nextReads = nextReads;
    // A request seen for the first time is scheduled; one already scheduled keeps its time.
    const requests = new TrackedRequests(store, tracks, (tracked) => nextReads.scheduleFirst(tracked));
    this.#requests = requests;
    const listeners = this.#listeners;
    this.#reader = new RequestReader({ client, store, clock, nextReads, backoff, listeners, logger });
    const wake = () => this.#wake?.();
    this.#onDemand = new OnDemandReads({
      store,
      client,
      tracks,
      clock,
      requests,
      nextReads,
      listeners,
      wake,
    });
  }

  /** Reads performed since start (for benchmarks and the status line). */
  get reads(): number {
    return this.#reader.reads;
  }

  subscribe(listener: (event: PollerEvent) => void): () => void {
    return this.#listeners.subscribe(listener);
  }

  /** Starts tracking in the background; returns at once. */
  start(): void {
    if (this.#controller) return;
    // Tracking takes over the reads a "Refresh now" asked for while it was paused: they are due now.
    this.#stopOnce();
    this.#controller = new AbortController();
    void this.#loop(this.#controller.signal);
  }

  /** Stops tracking; a later start picks up where it left off. */
  stop(): void {
    this.#controller?.abort(new Error('stopped'));
    this.#controller = undefined;
    this.#stopOnce();
    this.#wake?.();
  }

  get running(): boolean {
    return this.#controller !== undefined;
  }

  /** Someone is watching this request (a ceremony window is open): read it quickly. */
  watch(batchId: string, documentId: string): void {
    this.#nextReads.attend(`${batchId}/${documentId}`, Number.POSITIVE_INFINITY);
    this.#wake?.();
  }

  /**
   * The window closed: stay quick for a short grace period, then slow down. A grace of 0 (the
   * window never opened) returns the request to its age's pace at once.
   */
  unwatch(batchId: string, documentId: string, graceMs = this.#schedule.attentionGraceMs): void {
    this.#nextReads.attend(`${batchId}/${documentId}`, this.#tick() + graceMs);
    this.#wake?.();
  }

  /**
   * "Refresh now": every tracked request becomes due; reads still respect the budget and the
   * spacing of each request. Returns how many requests will be read. While tracking is paused
   * (the poller stopped), they are read once, and tracking stays paused.
   */
  refreshNow(batchId?: string): number {
    const due = this.#onDemand.refreshNow(batchId);
    if (!this.#controller && due.size > 0) this.#readOnce(due);
    return due.size;
  }

  /**
   * "Check again" on a request its service said was gone: one read now. When the service
   * answers, the request is tracked again from its status; when it still says it has none, it
   * stays gone. Nothing is ever read with another connection (this poller's batches only).
   */
  checkAgain(batchId: string, documentId: string): Promise<CheckAgainOutcome> {
    return this.#onDemand.checkAgain(batchId, documentId);
  }

  /** Wakes the loop when batches change (a request was just prepared). */
  notifyChanged(): void {
    this.#wake?.();
  }

  /** Reads `keys` once while tracking is paused (added to the reads already asked for, if any). */
  #readOnce(keys: Set<string>): void {
    if (this.#once) {
      for (const key of keys) this.#once.keys.add(key);
      this.#wake?.();
      return;
    }
    const once = { controller: new AbortController(), keys };
    this.#once = once;
    void this.#loop(once.controller.signal, keys).finally(() => {
      if (this.#once === once) this.#once = undefined;
    });
  }

  #stopOnce(): void {
    this.#once?.controller.abort(new Error('stopped'));
    this.#once = undefined;
  }

  /**
   * Reads what is due until `signal` stops it; with `only`, just those requests, each once (it
   * ends when none is left to read).
   */
  async #loop(signal: AbortSignal, only?: Set<string>): Promise<void> {
    if (!only) this.#listeners.emit({ type: 'poller-state', state: 'tracking' });
    while (!signal.aborted) {
      const now = this.#tick();
      const pausedUntil = this.#backoff.pausedUntil;
      let waitMs: number;
      if (pausedUntil > now) {
        waitMs = pausedUntil - now;
      } else {
        this.#requests.refresh();
        if (only) this.#dropRead(only, now);
        if (only?.size === 0) return;
        const first = only
          ? this.#nextReads.nextAmong(only, this.#requests)
          : this.#nextReads.next(now, this.#requests);
        const next = first && first.due <= now ? first.tracked : undefined;
        if (next) {
          const budgetWait = this.#budget.msUntilAvailable();
          if (budgetWait === 0 && this.#budget.tryTake()) {
            try {
              await this.#reader.read(next, signal);
            } catch (error) {
              // Its answer could not be stored (the batch was deleted meanwhile, or the disk
              // failed): this request is read again later; every other one goes on being tracked.
              this.#logger.log('warn', 'poll.not_stored', {
                batchId: next.batchId,
                error: error instanceof Error ? error.message : String(error),
              });
              this.#nextReads.dueAt(next.key, this.#tick() + NOT_STORED_RETRY_MS);
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

  /**
   * Leaves out of a once-only pass the requests read since it began (their next read was
   * scheduled later), final or gone, or no longer tracked. One that met a busy service is still
   * due: it is read after the wait.
   */
  #dropRead(only: Set<string>, now: number): void {
    for (const key of only) {
      const due = this.#nextReads.dueOf(key);
      if (!this.#requests.has(key) || due === undefined || due > now) only.delete(key);
    }
  }
}
