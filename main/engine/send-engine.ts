import type { ItemError, SendPhase } from '../../shared/domain/batch';
import { backoffDelayMs } from '../client/backoff';
import { systemClock, type Clock } from '../time/clock';
import type { CreationAnswer } from '../domain/service-answers';
import type { UploadAnswer } from '../domain/service-answers';
import { type CallOptions, type ServiceClient } from '../client/service-client';
import { TOKEN_REFUSED, type Result, type ServiceFailure } from '../domain/service-failure';
import { silentLogger, type Logger } from '../base/log';
import type { BlobStore } from '../store/blob-store';
import type { BatchStore } from '../store/batch-store';
import type { BatchEvent } from '../domain/batch-events';
import { sameConnection, type ConnectionAddress } from '../domain/batch-connection';
import { ContractGuard } from './contract-guard';
import { holdsRequests } from './older-batch';
import { phaseOf, type BatchState, type DocumentState, type NeedsCheck } from '../domain/batch-state';
import { CallSlots } from './call-slots';
import { SlowCalls } from './slow-calls';
import { UploadPace } from './upload-pace';
import { UploadProgress } from './upload-progress';
import { lineMs, SLOWEST_LINE_BYTES_PER_S } from '../client/upload-timing';
import {
  isReadPreparedOrLater,
  linkProblemAfterRead,
  linkProblemBeforeRead,
  sendAsNewDecision,
  type ResolutionOutcome,
} from '../domain/check-resolution';
import { documentsToSend } from '../domain/send-readiness';
import { engineReasonText, type EngineReason } from '../domain/send-messages';
import { decideCreation, decideParticipant, decidePrepare, decideUpload } from '../domain/step-decisions';
import {
  interruptedAttempts,
  nextStep,
  NO_RUN_FACTS,
  type Answer,
  type Decision,
  type RunFacts,
  type Step,
  type StepContext,
} from '../domain/step-machine';

export type EngineState = 'running' | 'waiting' | 'paused' | 'finished' | 'stopped';

/** What the engine tells its listeners (progress bars, the command line's --json). */
export type SendEngineEvent =
  | {
      readonly type: 'item-progress';
      readonly batchId: string;
      readonly documentId: string;
      readonly externalReference: string;
      readonly phase: SendPhase;
      readonly sentBytes?: number;
      readonly totalBytes?: number;
      /** While uploading (with `sentBytes`): where the attempt is (UploadStage). */
      readonly upload?: UploadStage;
    }
  | {
      readonly type: 'batch-progress';
      readonly batchId: string;
      readonly counts: Readonly<Record<SendPhase, number>>;
      readonly total: number;
    }
  | {
      readonly type: 'engine-state';
      readonly batchId: string;
      readonly state: EngineState;
      /** Why the queue waits or stopped, in plain English words (the command line, logs). */
      readonly reason?: string;
      /** The same reason as a code, for a view to word it in the person's language. */
      readonly cause?: EngineReason;
      /** While waiting: the service cannot be reached (no answer at all), rather than asked to wait. */
      readonly unreachable?: boolean;
      readonly resumesAt?: number;
    }
  | {
      /**
       * A call of the batch has had no answer for longer than a normal one takes (the service
       * is slow, or silent), or none is that late any more.
       */
      readonly type: 'service-slow';
      readonly batchId: string;
      readonly slow: boolean;
    }
  | {
      /**
       * A pause or a quit: nothing more is sent, and `calls` calls already on their way are given
       * a moment to be answered (DRAIN_MS), so their outcome is known rather than "may have been
       * applied".
       */
      readonly type: 'draining';
      readonly batchId: string;
      readonly calls: number;
    }
  | {
      readonly type: 'item-failed';
      readonly batchId: string;
      readonly documentId: string;
      readonly externalReference: string;
      readonly error: ItemError;
    }
  | {
      readonly type: 'item-needs-check';
      readonly batchId: string;
      readonly documentId: string;
      readonly externalReference: string;
      readonly check: NeedsCheck;
    };

export interface SendSummary {
  readonly batchId: string;
  readonly state: 'finished' | 'paused' | 'stopped';
  readonly prepared: number;
  readonly failed: number;
  readonly needsCheck: number;
  readonly reason?: string;
}

export interface SendEngineOptions {
  readonly store: BatchStore;
  readonly blobs: BlobStore;
  readonly client: ServiceClient;
  /** Service calls in flight at once (default 4); up to twice as many documents are in progress. */
  readonly concurrency?: number;
  readonly logger?: Logger;
  /** The clock of every wait and every recorded time (default: the system's). */
  readonly clock?: Clock;
  readonly random?: () => number;
  /** How long the queue waits when the service is unreachable or busy: first and longest wait. */
  readonly waitMs?: { readonly first: number; readonly longest: number };
  /** An upload this close to its expiry is uploaded again rather than used (default 10 min). */
  readonly uploadExpiryMarginMs?: number;
  /** First wait before uploading again after the service said an upload was gone (default 2 s, doubling). */
  readonly reuploadBackoffMs?: number;
  /** How long after a creation answered without an id its key is replayed (default 2 s). */
  readonly replayForIdMs?: number;
  /** A call with no answer for this long (ms) makes the batch "slow to answer" (default SLOW_CALL_MS). */
  readonly slowAfterMs?: number;
  /**
   * How long the service is assumed to keep an Idempotency-Key (the connection's setting;
   * default DEFAULT_KEY_RETENTION_MS): within it, a new request after an attempt of unknown
   * outcome proves that attempt created nothing, and the user is not asked.
   */
  readonly keyRetentionMs?: number;
  /**
   * How long a pause or a quit lets calls already on their way finish before abandoning them
   * (default DRAIN_MS); no new call leaves meanwhile.
   */
  readonly drainMs?: number;
}

/** The key retention assumed when the connection does not state one: the shortest of the services the app is tested with. */
export const DEFAULT_KEY_RETENTION_MS = 3_600_000;
/** How long calls on their way may finish after a pause or a quit. */
export const DRAIN_MS = 10_000;

/**
 * What a call tells the engine of its attempts, to know whether one may have been applied, and
 * the run's departures signal: after a pause or a quit, nothing more leaves.
 */
type AttemptTracking = Required<Pick<CallOptions, 'onAttempt' | 'onAttemptSettled' | 'departures'>>;

interface Run {
  readonly batchId: string;
  /** Aborted when the run must end now: calls on their way are abandoned. */
  readonly controller: AbortController;
  /** Aborted by a pause or a quit: no new call leaves, calls on their way may finish (DRAIN_MS). */
  readonly departures: AbortController;
  /** Aborted by either: no new step starts. */
  readonly stopping: AbortSignal;
  readonly slots: CallSlots;
  readonly inFlight: Set<string>;
  /** This run's own facts per document (fresh uploads, backoffs). */
  readonly facts: Map<string, RunFacts>;
  /** This run's calls that the service keeps waiting. */
  readonly slow: SlowCalls;
  /** How fast this run's uploads reach the service (what upload progress may show). */
  readonly pace: UploadPace;
  /** The uploads on the line at once: as many as the line takes with profit (`UploadPace.lanesFor`). */
  readonly uploads: CallSlots;
  /** References claimed by a document's decision until its events are stored. */
  readonly claims: Map<string, () => void>;
  /** No new step starts before this time (the service is unreachable or asked to wait). */
  resumeAt: number;
  waitStreak: number;
  fatal: RunStop | undefined;
  wake: () => void;
  /** Ends the current wait: every worker tries the service again at once. */
  tryNow: () => void;
  done: Promise<SendSummary>;
}

/**
 * Where an upload attempt is: its bytes `sending`; all of them handed over and the service's
 * answer awaited (`confirming`); or `sending_again` from the first byte after an attempt that
 * did not succeed (the line dropped or stopped, the service was busy).
 */
export type UploadStage = 'sending' | 'confirming' | 'sending_again';

/** An upload's progress is told to listeners each time it moved on by this many bytes. */
export const PROGRESS_STEP_BYTES = 256 * 1024;
/** How often an upload's progress is looked at again while its bytes cross the line (ms). */
const PACE_TICK_MS = 250;
const PHASES: readonly SendPhase[] = [
  'draft',
  'queued',
  'uploading',
  'creating',
  'adding_participants',
  'preparing',
  'prepared',
  'needs_check',
  'failed',
];

/** The longest the queue waits before trying the service again, whatever it asked (a day). */
const MAX_WAIT_MS = 24 * 3_600_000;

function isOfflineFailure(failure: ServiceFailure): boolean {
  return failure.code === 'network_unreachable' || failure.code === 'timeout';
}

/** Why a run stopped before its end: nothing more can be sent until the user acts. */
interface RunStop {
  readonly code: string;
  readonly message: string;
  readonly serviceMessage?: string;
}

/** A stop's reason, in English and as a code, as `engine-state` events carry it. */
function stopReason(cause: EngineReason): { reason: string; cause: EngineReason } {
  return { reason: engineReasonText(cause), cause };
}

/** A write to the data folder failed: nothing more may be sent until it works again. */
function storageFailure(error: unknown): RunStop {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const full = code === 'ENOSPC' || code === 'EDQUOT';
  return {
    code: full ? 'storage_full' : 'storage_failed',
    message: engineReasonText({ code: full ? 'storage_full' : 'storage_failed' }),
  };
}

/**
 * Sends batches: the queue around the step machine (step-machine.ts). Workers take documents
 * in turn, perform each step's call within the call slots, store the step machine's events
 * durably before anything depends on them, and wait when the service is away. Pause, resume,
 * retry one item, and resolve a document that needs the user's check.
 */
export class SendEngine {
  readonly #options: SendEngineOptions;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #now: () => number;
  /** Waits are measured on a clock that never jumps (a wall clock set back would stall sending). */
  readonly #monotonic: () => number;
  readonly #random: () => number;
  readonly #runs = new Map<string, Run>();
  /** Every send asked for and not ended, from the moment it is asked (before its run starts). */
  readonly #sending = new Map<string, Promise<SendSummary>>();
  /** Sends paused while their documents were still being queued: they end without starting. */
  readonly #pausedBeforeStart = new Set<string>();
  #closed = false;
  readonly #listeners = new Set<(event: SendEngineEvent) => void>();
  /** What the data folder holds for each reference, for this engine's connection. */
  readonly #guard: ContractGuard;

  constructor(options: SendEngineOptions) {
    this.#options = options;
    this.#guard = new ContractGuard(options.store, options.client.address);
    this.#logger = options.logger ?? silentLogger;
    const clock = options.clock ?? systemClock;
    this.#clock = clock;
    this.#now = () => clock.now();
    this.#monotonic = () => clock.monotonic();
    this.#random = options.random ?? Math.random;
  }

  /** Listens to progress; returns the unsubscribe function. */
  subscribe(listener: (event: SendEngineEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** True while the batch is being sent, from the moment a send is asked until it ends. */
  isRunning(batchId: string): boolean {
    return this.#sending.has(batchId);
  }

  /**
   * Queues every document of the batch that is ready (or only those of `documentIds`: none when
   * it is empty) and sends until each is prepared, failed or waiting for the user's check; also
   * finishes anything an earlier run left half done. The desk always names them (the reviewed
   * ones, or none to continue); the command line sends the whole batch. Resolves when the batch is finished, paused or stopped. Documents with
   * problems are reported, not sent.
   */
  send(batchId: string, documentIds?: readonly string[]): Promise<SendSummary> {
    const existing = this.#sending.get(batchId);
    if (existing) return existing;
    const sending = this.#queueAndStart(batchId, documentIds).finally(() => {
      this.#sending.delete(batchId);
      this.#pausedBeforeStart.delete(batchId);
    });
    this.#sending.set(batchId, sending);
    return sending;
  }

  /**
   * Pauses every batch and waits until each run has ended (its calls abandoned, its facts
   * stored): nothing is sent by this engine afterwards. A connection closes its engine before
   * another opens on the same batches, so that two runs never send one batch at once.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const batchId of this.#sending.keys()) this.pause(batchId);
    await Promise.all([...this.#sending.values()].map((sending) => sending.catch(() => undefined)));
  }

  async #queueAndStart(batchId: string, documentIds?: readonly string[]): Promise<SendSummary> {
    const own = this.#options.client.address;
    const unbound = this.#options.store.get(batchId);
    if (unbound && holdsRequests(unbound)) {
      // An earlier version sent it somewhere unrecorded: only a proof binds it (adoptOlderBatch).
      const { reason, cause } = stopReason({ code: 'batch_unbound' });
      this.#emit({ type: 'engine-state', batchId, state: 'stopped', reason, cause });
      return { batchId, state: 'stopped', ...this.#tally(batchId), reason };
    }
    let bound: ConnectionAddress;
    try {
      // A batch is sent with one connection only: the first to send it binds it.
      bound = await this.#options.store.bindConnection(batchId, own);
    } catch (error) {
      // Deleted meanwhile, or its journal could not be written: either way nothing was sent.
      const { reason, cause } = stopReason({
        code: this.#options.store.get(batchId) ? storageFailure(error).code : 'batch_deleted',
      });
      this.#emit({ type: 'engine-state', batchId, state: 'stopped', reason, cause });
      return { batchId, state: 'stopped', ...this.#tally(batchId), reason };
    }
    if (!sameConnection(bound, own)) {
      const { reason, cause } = stopReason({
        code: 'other_connection',
        connection: { baseUrl: bound.baseUrl, clientId: bound.clientId },
      });
      this.#logger.log('warn', 'send.other_connection', { batchId });
      this.#emit({ type: 'engine-state', batchId, state: 'stopped', reason, cause });
      return { batchId, state: 'stopped', ...this.#tally(batchId), reason };
    }
    const batch = this.#batch(batchId);
    const wanted = documentIds ? new Set(documentIds) : undefined;
    const toQueue = documentsToSend(batch, wanted).map((document) => document.draft.id);
    if (toQueue.length > 0) {
      try {
        await this.#options.store.record(batchId, [{ type: 'send_requested', documentIds: toQueue }]);
      } catch (error) {
        // Nothing was sent: say why, as a run that stopped at once would.
        const stop = storageFailure(error);
        this.#emit({
          type: 'engine-state',
          batchId,
          state: 'stopped',
          reason: stop.message,
          cause: { code: stop.code },
        });
        return { batchId, state: 'stopped', ...this.#tally(batchId), reason: stop.message };
      }
    }
    if (this.#closed || this.#pausedBeforeStart.has(batchId)) {
      this.#emit({ type: 'engine-state', batchId, state: 'paused' });
      return { batchId, state: 'paused', ...this.#tally(batchId) };
    }
    return this.#start(batchId);
  }

  /**
   * Stops starting new steps and sending anything more; calls already on their way get
   * `drainMs` to be answered (their answers are stored), then are abandoned (their outcome is
   * then settled on resume). A call that had not left is never taken for one that may have
   * been applied.
   */
  pause(batchId: string): void {
    const run = this.#runs.get(batchId);
    if (run) this.#drain(run);
    else if (this.#sending.has(batchId)) this.#pausedBeforeStart.add(batchId);
  }

  #drain(run: Run): void {
    if (run.departures.signal.aborted) return;
    run.departures.abort(new Error('paused'));
    const onTheWire = run.slow.pending;
    if (onTheWire > 0) {
      this.#logger.log('info', 'send.draining', { batchId: run.batchId, calls: onTheWire });
      this.#emit({ type: 'draining', batchId: run.batchId, calls: onTheWire });
    }
    const cancel = this.#clock.timer(this.#options.drainMs ?? DRAIN_MS, () =>
      run.controller.abort(new Error('paused')),
    );
    run.controller.signal.addEventListener('abort', cancel, { once: true });
    void run.done.finally(cancel);
  }

  /**
   * "Try now": a batch waiting for its service (unreachable, or busy) tries again at once
   * instead of at the end of its wait; false when it is not waiting.
   */
  tryNow(batchId: string): boolean {
    const run = this.#runs.get(batchId);
    if (!run || run.resumeAt <= this.#monotonic()) return false;
    this.#logger.log('info', 'send.try_now', { batchId });
    run.tryNow();
    this.#emit({ type: 'engine-state', batchId, state: 'running' });
    return true;
  }

  /** Puts a failed document back in the queue, and sends it if the batch is running. */
  async retry(batchId: string, documentId: string): Promise<void> {
    const document = this.#document(batchId, documentId);
    if (!document?.send.error || document.send.check) return;
    await this.#options.store.record(batchId, [{ type: 'item_retried', documentId }]);
    this.#runs.get(batchId)?.wake();
  }

  /**
   * "Link the existing request": reads `requestId` at the service, checks that it carries this
   * document's reference (or that the user `confirmed` it when the service does not show it),
   * records it, and continues with participants and prepare when the batch is sent (at once if
   * it is running). Only for a document that needs the user's check; linking the id a document
   * already holds again is a success, so a repeated command carries on.
   */
  async linkRequest(
    batchId: string,
    documentId: string,
    requestId: string,
    options: { readonly confirmed?: boolean } = {},
  ): Promise<ResolutionOutcome> {
    const id = requestId.trim();
    const before = this.#document(batchId, documentId);
    if (before && !before.send.check && before.send.requestId === id) return { ok: true };
    const early = linkProblemBeforeRead(this.#options.store.list(), before, id);
    if (early || !before) return early ?? { ok: false, refusal: 'refused', message: '' };
    const read = await this.#options.client.getSigningRequest(id);
    const problem = linkProblemAfterRead(
      before,
      id,
      read,
      options.confirmed === true,
      this.#guard.sameReference(batchId, before),
    );
    if (problem || !read.ok) return problem ?? { ok: false, refusal: 'refused', message: '' };
    // The read can take seconds: the document may have been answered meanwhile (first answer wins).
    const now = this.#document(batchId, documentId);
    const late = linkProblemBeforeRead(this.#options.store.list(), now, id);
    if (late) return late;
    await this.#options.store.record(batchId, [
      {
        type: 'check_resolved_linked',
        documentId,
        requestId: id,
        participantsMayExist: !isReadPreparedOrLater(read.value),
        // This very contract, prepared where it was made: its people were added there first.
        ...(before.send.check?.reason === 'held_at_service' && isReadPreparedOrLater(read.value)
          ? { participantsThere: true }
          : {}),
      },
    ]);
    this.#runs.get(batchId)?.wake();
    return { ok: true };
  }

  /**
   * "Send as a new request", on purpose after a warning, only after a refused key: releases
   * the key (and the upload, when the refusal named it) so the next send creates a new request.
   */
  async sendAsNew(batchId: string, documentId: string): Promise<ResolutionOutcome> {
    const document = this.#document(batchId, documentId);
    const decision = sendAsNewDecision(document, this.#now());
    if (!decision.ok || !document)
      return { ok: false, refusal: 'refused', message: decision.ok ? '' : decision.message };
    await this.#options.store.record(batchId, [
      {
        type: 'check_resolved_new',
        documentId,
        keepUpload: decision.keepUpload,
        generation: this.#guard.nextGeneration(batchId, document),
      },
    ]);
    this.#runs.get(batchId)?.wake();
    return { ok: true };
  }

  /**
   * "Send anew on purpose" for a document not sent yet that another document of the data folder
   * holds the reference of (the review says so and holds it back): after the user's warning,
   * it may go in the next send, under a key of its own. True when recorded; false when the
   * document is unknown or already on its way.
   */
  async acceptReferenceReuse(batchId: string, documentId: string): Promise<boolean> {
    const document = this.#document(batchId, documentId);
    if (!document || document.send.queued || document.send.reuseAccepted)
      return document?.send.reuseAccepted === true;
    await this.#options.store.record(batchId, [
      {
        type: 'reference_reuse_accepted',
        documentId,
        generation: this.#guard.nextGeneration(batchId, document),
      },
    ]);
    return true;
  }

  #batch(batchId: string): BatchState {
    const batch = this.#options.store.get(batchId);
    if (!batch) throw new Error(`unknown batch ${batchId}`);
    return batch;
  }

  #document(batchId: string, documentId: string): DocumentState | undefined {
    return this.#batch(batchId).documents.find((document) => document.draft.id === documentId);
  }

  #emit(event: SendEngineEvent): void {
    for (const listener of this.#listeners) listener(event);
  }

  #emitBatchProgress(batchId: string): void {
    const batch = this.#batch(batchId);
    const counts = Object.fromEntries(PHASES.map((phase) => [phase, 0])) as Record<SendPhase, number>;
    for (const document of batch.documents) counts[phaseOf(document)] += 1;
    this.#emit({ type: 'batch-progress', batchId, counts, total: batch.documents.length });
  }

  #context(batchId: string): StepContext {
    const { defaults } = this.#batch(batchId);
    return {
      now: this.#now(),
      defaults,
      keyFor: (document) => this.#guard.keyFor(document),
      holdersOf: (document) => this.#guard.holdersOf(batchId, document),
      nextGeneration: (document) => this.#guard.nextGeneration(batchId, document),
      keyRetentionMs: this.#options.keyRetentionMs ?? DEFAULT_KEY_RETENTION_MS,
      uploadExpiryMarginMs: this.#options.uploadExpiryMarginMs ?? 10 * 60_000,
      reuploadBackoffMs: this.#options.reuploadBackoffMs ?? 2_000,
      ...(this.#options.replayForIdMs === undefined ? {} : { replayForIdMs: this.#options.replayForIdMs }),
    };
  }

  #releaseClaims(run: Run, documentId: string): void {
    run.claims.get(documentId)?.();
    run.claims.delete(documentId);
  }

  /** Records events that may make keys: their references stay claimed until the record settles. */
  async #recordClaimed(batchId: string, events: readonly BatchEvent[]): Promise<void> {
    const release = this.#guard.claimKeys(batchId, events);
    try {
      await this.#options.store.record(batchId, events);
    } finally {
      release();
    }
  }

  #start(batchId: string): Promise<SendSummary> {
    let wake: () => void = () => undefined;
    const controller = new AbortController();
    const departures = new AbortController();
    const concurrency = Math.max(1, this.#options.concurrency ?? 4);
    const run: Run = {
      batchId,
      controller,
      departures,
      stopping: AbortSignal.any([controller.signal, departures.signal]),
      slots: new CallSlots(concurrency),
      inFlight: new Set(),
      facts: new Map(),
      slow: new SlowCalls((slow) => this.#emit({ type: 'service-slow', batchId, slow }), {
        ...(this.#options.slowAfterMs === undefined ? {} : { afterMs: this.#options.slowAfterMs }),
        clock: this.#clock,
      }),
      pace: new UploadPace(),
      uploads: new CallSlots(new UploadPace().lanesFor(concurrency, 0)),
      claims: new Map(),
      resumeAt: 0,
      waitStreak: 0,
      fatal: undefined,
      // Every wake starts a new signal: a resolved one left in place would end every later nap at once (a busy loop).
      wake: () => wakeAll(),
      tryNow: () => {
        run.resumeAt = 0;
        wakeAll();
      },
      done: Promise.resolve(undefined as unknown as SendSummary),
    };
    let wakeSignal = new Promise<void>((resolve) => (wake = resolve));
    const wakeAll = () => {
      const wakeNow = wake;
      wakeSignal = new Promise<void>((resolve) => (wake = resolve));
      wakeNow();
    };
    /** Sleeps until `ms` passed or something changed (a document finished, a retry arrived). */
    const nap = async (ms: number): Promise<void> => {
      const signal = run.stopping;
      const timer = new AbortController();
      const onAbort = () => timer.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      await Promise.race([wakeSignal, this.#clock.sleep(ms, timer.signal).catch(() => undefined)]);
      timer.abort();
      signal.removeEventListener('abort', onAbort);
    };
    const worker = async (): Promise<void> => {
      const signal = run.stopping;
      while (!signal.aborted && !run.fatal) {
        const waitFor = run.resumeAt - this.#monotonic();
        if (waitFor > 0) {
          // A nap, not a sleep: "Try now" ends the wait.
          await nap(waitFor);
          continue;
        }
        const pick = this.#nextRunnable(run);
        if (pick.kind === 'none') {
          if (run.inFlight.size === 0) return;
          // Others are still working; one of them may fail and be retried, or a retry may arrive.
          await nap(1_000);
          continue;
        }
        if (pick.kind === 'later') {
          await nap(Math.max(1, Math.min(1_000, pick.at - this.#now())));
          continue;
        }
        run.inFlight.add(pick.documentId);
        try {
          await this.#process(run, pick.documentId);
        } catch (error) {
          if (!signal.aborted) {
            // A failed write (disk full, folder gone): stop every worker cleanly; a new send can resume.
            this.#logger.log('error', 'send.storage_failed', { code: (error as NodeJS.ErrnoException).code });
            run.fatal ??= storageFailure(error);
            run.controller.abort(new Error('stopped'));
          }
        } finally {
          run.inFlight.delete(pick.documentId);
          wakeAll();
        }
      }
    };
    this.#runs.set(batchId, run);
    run.done = (async (): Promise<SendSummary> => {
      try {
        this.#emit({ type: 'engine-state', batchId, state: 'running' });
        const interrupted = interruptedAttempts(this.#batch(batchId));
        if (interrupted.length > 0) await this.#options.store.record(batchId, interrupted);
        this.#emitBatchProgress(batchId);
        // Twice as many documents as call slots: while one records an answer, another calls.
        await Promise.all(Array.from({ length: concurrency * 2 }, () => worker()));
      } catch (error) {
        run.fatal ??= storageFailure(error);
      } finally {
        this.#runs.delete(batchId);
        run.slow.close();
      }
      return this.#summary(run);
    })();
    return run.done;
  }

  #tally(batchId: string): Pick<SendSummary, 'prepared' | 'failed' | 'needsCheck'> {
    const batch = this.#options.store.get(batchId);
    if (!batch) return { prepared: 0, failed: 0, needsCheck: 0 }; // deleted meanwhile
    const count = (phase: SendPhase) => batch.documents.filter((d) => phaseOf(d) === phase).length;
    return { prepared: count('prepared'), failed: count('failed'), needsCheck: count('needs_check') };
  }

  #summary(run: Run): SendSummary {
    const { batchId } = run;
    const tally = this.#tally(batchId);
    if (run.fatal) {
      const reason = run.fatal.message;
      const { code, serviceMessage } = run.fatal;
      const cause = { code, ...(serviceMessage === undefined ? {} : { serviceMessage }) };
      this.#emit({ type: 'engine-state', batchId, state: 'stopped', reason, cause });
      return { batchId, state: 'stopped', ...tally, reason };
    }
    const state = run.stopping.aborted ? 'paused' : 'finished';
    this.#emit({ type: 'engine-state', batchId, state });
    return { batchId, state, ...tally };
  }

  /** The next document with a step to take now, or when the earliest one can go. */
  #nextRunnable(
    run: Run,
  ): { kind: 'now'; documentId: string } | { kind: 'later'; at: number } | { kind: 'none' } {
    const context = this.#context(run.batchId);
    let earliest = Number.POSITIVE_INFINITY;
    for (const document of this.#batch(run.batchId).documents) {
      const documentId = document.draft.id;
      if (run.inFlight.has(documentId)) continue;
      const step = nextStep(document, run.facts.get(documentId) ?? NO_RUN_FACTS, context);
      if (step.kind === 'finished') continue;
      if (step.kind === 'wait') {
        earliest = Math.min(earliest, step.until);
        continue;
      }
      return { kind: 'now', documentId };
    }
    return Number.isFinite(earliest) ? { kind: 'later', at: earliest } : { kind: 'none' };
  }

  /** Takes one document's steps until it is done for this run, must wait, or the run stops. */
  async #process(run: Run, documentId: string): Promise<void> {
    const signal = run.stopping;
    while (!signal.aborted && !run.fatal) {
      const document = this.#document(run.batchId, documentId);
      if (!document) return;
      const context = this.#context(run.batchId);
      const facts = run.facts.get(documentId) ?? NO_RUN_FACTS;
      const step = nextStep(document, facts, context);
      if (step.kind === 'finished' || step.kind === 'wait') return;
      if (step.kind === 'record') {
        // Decided in this very turn: a key it makes claims its reference before anyone else asks.
        await this.#recordClaimed(run.batchId, step.events);
        this.#emitItem(run.batchId, documentId);
        continue;
      }
      const decision = await this.#perform(run, document, step, facts, context);
      if (decision.facts) run.facts.set(documentId, decision.facts);
      if (decision.events.length > 0) {
        try {
          await this.#options.store.record(run.batchId, decision.events);
        } catch (error) {
          if (signal.aborted) return; // Interrupted anyway: the next run settles what is unknown.
          throw error;
        } finally {
          this.#releaseClaims(run, documentId);
        }
        this.#announce(run.batchId, documentId, decision.events);
      }
      this.#releaseClaims(run, documentId);
      this.#emitItem(run.batchId, documentId);
      this.#emitBatchProgress(run.batchId);
      switch (decision.next) {
        case 'continue':
          if (run.waitStreak > 0) {
            run.waitStreak = 0;
            this.#emit({ type: 'engine-state', batchId: run.batchId, state: 'running' });
          }
          continue;
        case 'stop':
          return;
        case 'wait':
          if (decision.failure) this.#wait(run, decision.failure);
          return;
        case 'fatal':
          run.fatal = decision.failure;
          run.controller.abort(new Error('stopped'));
          return;
      }
    }
  }

  /** Performs the call of one step and asks the step machine what its answer means. */
  async #perform(
    run: Run,
    document: DocumentState,
    step: Exclude<Step, { kind: 'finished' | 'wait' | 'record' }>,
    facts: RunFacts,
    context: StepContext,
  ): Promise<Decision> {
    const { client, blobs } = this.#options;
    const { signal } = run.controller;
    const { draft } = document;
    switch (step.kind) {
      case 'upload': {
        if (!(await blobs.has(draft.pdf.sha256))) {
          return decideUpload(document, step, localCopyMissing(), context);
        }
        const total = draft.pdf.sizeBytes;
        const progress = new UploadProgress(total, this.#monotonic(), run.pace.bytesPerMs, run.uploads.size);
        let reported = -1;
        let stage: UploadStage = 'sending';
        let attemptsBegun = 0;
        /** Tells listeners how far the upload is: no further than the line could have carried it. */
        const report = (force = false) => {
          const shown = progress.shown(this.#monotonic());
          const now: UploadStage = progress.allHanded ? 'confirming' : stage;
          if (
            !force &&
            now === stage &&
            shown - reported < PROGRESS_STEP_BYTES &&
            !(shown === total && reported < total)
          )
            return;
          stage = now;
          reported = shown;
          this.#emitItem(run.batchId, draft.id, shown, total, stage);
        };
        // The pace moves a bar on while the connection, its buffers full, takes nothing more.
        const stopTicking = this.#clock.every(PACE_TICK_MS, () => report(), true);
        /** Uploads on the line while this one was (sampled at its start and its end). */
        let sharing = 0;
        let answer: Answer<UploadAnswer>;
        try {
          answer = await this.#call(
            run,
            async (attempts, alive) => {
              sharing = run.uploads.busy;
              const result = await client.uploadDocument(
                {
                  open: () => blobs.openRead(draft.pdf.sha256, total),
                  sizeBytes: total,
                  filename: draft.pdf.originalName,
                },
                {
                  signal,
                  ...attempts,
                  lineBytesPerS: crossingBytesPerS(run),
                  slowestShareBytesPerS: slowestShareBytesPerS(run),
                  onProgress: (sent) => {
                    const at = this.#monotonic();
                    if (sent === 0) {
                      // A new attempt: its bytes start again from the first, and a retry says so.
                      attemptsBegun += 1;
                      // Its share of the line as measured, among as many as are on it or the lanes
                      // let on it now (fewer lanes leave the uploads under way going), 10 % held
                      // back for what a measure cannot promise.
                      const line = run.pace.lineBytesPerMs;
                      const sharing = Math.max(run.uploads.size, run.uploads.busy);
                      progress.restart(at, line === undefined ? undefined : (0.9 * line) / sharing, sharing);
                      stage = attemptsBegun > 1 ? 'sending_again' : 'sending';
                      return report(true);
                    }
                    progress.took(sent, at);
                    // No answer is owed while the bytes handed may still be crossing the line.
                    alive(lineMs(sent, crossingBytesPerS(run)));
                    report();
                  },
                },
              );
              // Counted while this upload still holds its lane: it shared the line too.
              sharing = (sharing + run.uploads.busy) / 2;
              return result;
            },
            run.uploads,
          );
        } finally {
          stopTicking();
        }
        if (answer.kind === 'applied') {
          run.pace.finished(total, this.#monotonic() - progress.beganAt, sharing);
          run.uploads.resize(run.pace.lanesFor(run.slots.size, total));
        } else if (answer.kind === 'failed' && answer.failure.code === 'timeout') {
          // Given up: the line may have got slower than measured; measure it again.
          run.pace.forget();
          run.uploads.resize(run.pace.lanesFor(run.slots.size, total));
        }
        const decision = decideUpload(
          this.#document(run.batchId, draft.id) ?? document,
          step,
          answer,
          this.#context(run.batchId),
        );
        // The key it makes claims its reference in this turn, until the record settles (#process).
        run.claims.set(draft.id, this.#guard.claimKeys(run.batchId, decision.events));
        return decision;
      }
      case 'create': {
        const answer = await this.#call(run, async (attempts) => {
          await this.#options.store.record(run.batchId, step.marker);
          return client.createSigningRequest(step.body, step.key, { signal, ...attempts });
        });
        const create = this.#document(run.batchId, draft.id)?.send.create;
        if (!create) throw new Error('a creation step without a key');
        const named = await this.#confirmLocation(answer, draft.externalReference, signal);
        return decideCreation(document, create, named, facts, this.#context(run.batchId));
      }
      case 'add-participant': {
        const answer = await this.#call(run, async (attempts) => {
          await this.#options.store.record(run.batchId, step.marker);
          return client.addParticipant(step.requestId, step.participant, { signal, ...attempts });
        });
        return decideParticipant(
          this.#document(run.batchId, draft.id) ?? document,
          step.index,
          answer,
          this.#context(run.batchId),
        );
      }
      case 'prepare': {
        const answer = await this.#call(run, (attempts) =>
          client.prepareSigningRequest(step.requestId, { signal, ...attempts }),
        );
        return decidePrepare(document, answer, this.#context(run.batchId));
      }
    }
  }

  /**
   * Runs one call in a call slot and turns its result into an answer. A stop of the run while
   * the call waits or is in flight becomes `interrupted`, saying whether an attempt may have
   * been applied: one is on the wire, or one that left got no answer proving it was not (a
   * Pause during the backoff after a 503 is not a lost answer).
   */
  async #call<T>(
    run: Run,
    call: (attempts: AttemptTracking, alive: (wireMs?: number) => void) => Promise<Result<T>>,
    slots: CallSlots = run.slots,
  ): Promise<Answer<T>> {
    const signal = run.stopping;
    let onTheWire = false;
    let mayHaveApplied = false;
    /** The attempt on the wire, watched for an answer that is late. */
    let watched: number | undefined;
    const settle = () => {
      if (watched !== undefined) run.slow.end(watched);
      watched = undefined;
    };
    const attempts: AttemptTracking = {
      departures: run.departures.signal,
      onAttempt: () => {
        onTheWire = true;
        settle();
        watched = run.slow.begin();
      },
      onAttemptSettled: (outcome) => {
        onTheWire = false;
        settle();
        if (outcome === 'maybe_applied') mayHaveApplied = true;
      },
    };
    const alive = (wireMs?: number) => {
      if (watched !== undefined) run.slow.alive(watched, wireMs);
    };
    const left = (): boolean => onTheWire || mayHaveApplied;
    try {
      const result = await slots.run(signal, () => call(attempts, alive));
      return result.ok ? { kind: 'applied', value: result.value } : { kind: 'failed', failure: result.error };
    } catch (error) {
      if (signal.aborted) return { kind: 'interrupted', left: left() };
      throw error;
    } finally {
      settle();
    }
  }

  /**
   * A creation answered without an id in its body but with a same-origin `Location`: the request
   * it names is read once, and taken as the answer's id when the read finds it with this
   * document's reference (or a service that does not show references finds it at all).
   * Otherwise the answer stays without an id, and the key is replayed to learn it.
   */
  async #confirmLocation(
    answer: Answer<CreationAnswer>,
    reference: string,
    signal: AbortSignal,
  ): Promise<Answer<CreationAnswer>> {
    if (answer.kind !== 'applied' || answer.value.id !== undefined || answer.value.locationId === undefined)
      return answer;
    // A request another document of the data folder follows is not this one's, whatever the
    // answer names: it is treated as an answer without an id (the key is replayed to learn it).
    const locationId = answer.value.locationId;
    const taken = this.#options.store
      .list()
      .some((batch) => batch.documents.some((other) => other.send.requestId === locationId));
    if (taken) {
      this.#logger.log('warn', 'send.location_taken', {});
      return { kind: 'applied', value: { ...answer.value, locationId: undefined } };
    }
    const read = await this.#options.client
      .getSigningRequest(answer.value.locationId, { signal, maxAttempts: 2 })
      .catch(() => undefined);
    if (!read?.ok) return answer;
    const remote = read.value.external_reference;
    if (remote !== undefined && remote !== reference) {
      this.#logger.log('warn', 'send.location_other_reference', {});
      return answer;
    }
    // A request this attempt just created cannot be prepared yet: one that is was made before,
    // under this key, and answered as a replay would be (an answer without a body cannot say it).
    const replayed = answer.value.replayed ?? (isReadPreparedOrLater(read.value) ? true : undefined);
    return { kind: 'applied', value: { ...answer.value, id: answer.value.locationId, replayed } };
  }

  /** Tells listeners of failures and checks the step machine just recorded. */
  #announce(batchId: string, documentId: string, events: readonly BatchEvent[]): void {
    const document = this.#document(batchId, documentId);
    if (!document) return;
    const externalReference = document.draft.externalReference;
    for (const event of events) {
      if (event.type === 'item_failed')
        this.#emit({ type: 'item-failed', batchId, documentId, externalReference, error: event.error });
      if (event.type === 'check_needed' && document.send.check)
        this.#emit({
          type: 'item-needs-check',
          batchId,
          documentId,
          externalReference,
          check: document.send.check,
        });
    }
  }

  #wait(run: Run, failure: ServiceFailure): void {
    run.waitStreak += 1;
    const { first, longest } = this.#options.waitMs ?? { first: 2_000, longest: 60_000 };
    const backoff = backoffDelayMs(
      run.waitStreak,
      { maxAttempts: 0, baseDelayMs: first, maxDelayMs: longest, maxRetryAfterMs: 0 },
      this.#random,
    );
    // Unreachable: probe again within 15 s at most, so a short outage ends soon after it does. A
    // refused token: the token manager spaces the token requests (its Retry-After), nothing more.
    const cappedBackoff = isOfflineFailure(failure)
      ? Math.min(backoff, 15_000)
      : failure.code === TOKEN_REFUSED
        ? 0
        : backoff;
    const delay = Math.min(MAX_WAIT_MS, Math.max(failure.retryAfterMs ?? 0, first / 2 + cappedBackoff));
    const resumesAt = this.#monotonic() + delay;
    if (resumesAt > run.resumeAt) run.resumeAt = resumesAt;
    const reason = isOfflineFailure(failure)
      ? 'The signing service cannot be reached. Sending resumes by itself.'
      : failure.message;
    this.#logger.log('warn', 'send.waiting', {
      batchId: run.batchId,
      code: failure.code,
      delayMs: Math.round(delay),
    });
    this.#emit({
      type: 'engine-state',
      batchId: run.batchId,
      state: 'waiting',
      reason,
      cause: {
        code: failure.code,
        ...(failure.serviceMessage === undefined ? {} : { serviceMessage: failure.serviceMessage }),
        ...(failure.serviceCode === undefined ? {} : { serviceCode: failure.serviceCode }),
        ...(failure.answerId === undefined ? {} : { answerId: failure.answerId }),
      },
      ...(isOfflineFailure(failure) ? { unreachable: true } : {}),
      // For people: by the wall clock.
      resumesAt: this.#now() + (run.resumeAt - this.#monotonic()),
    });
  }

  #emitItem(
    batchId: string,
    documentId: string,
    sentBytes?: number,
    totalBytes?: number,
    upload?: UploadStage,
  ): void {
    const document = this.#document(batchId, documentId);
    if (!document) return;
    this.#emit({
      type: 'item-progress',
      batchId,
      documentId,
      externalReference: document.draft.externalReference,
      phase: phaseOf(document),
      ...(sentBytes === undefined ? {} : { sentBytes, totalBytes }),
      ...(upload === undefined ? {} : { upload }),
    });
  }
}

/**
 * The pace an upload's bytes may cross the line at (bytes a second), as its answer deadline and
 * the slow banner allow for: half the pace one upload got lately; before one was measured, the
 * slowest line shared by as many uploads as the lanes let on it (each crosses at its share only).
 */
function crossingBytesPerS(run: Run): number {
  const measured = run.pace.bytesPerMs;
  return measured === undefined ? slowestShareBytesPerS(run) : measured * 1000 * 0.5;
}

/** The slowest line shared by as many uploads as the lanes let on it (bytes a second). */
function slowestShareBytesPerS(run: Run): number {
  return SLOWEST_LINE_BYTES_PER_S / run.uploads.size;
}

function localCopyMissing(): Answer<never> {
  return {
    kind: 'failed',
    failure: {
      operation: 'uploadDocument',
      code: 'local_copy_missing',
      message: '',
      retryable: false,
      outcomeUnknown: false,
      attempts: 0,
    },
  };
}
