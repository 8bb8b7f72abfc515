/**
 * Sends batches: the coordinator of a send. It binds a batch to its connection, queues the
 * documents asked for, and starts a run (send-run.ts) whose workers (run-workers.ts) take each
 * document's steps (document-steps.ts) around the step machine (step-machine.ts), waiting when
 * the service is away (run-schedule.ts, service-waits.ts). Pause, resume, "Try now", retry one
 * item, and the user's answers to a document that needs a check (check-resolver.ts).
 */
import { systemClock } from '../time/clock';
import { silentLogger } from '../base/log';
import { sameConnection, type ConnectionAddress } from '../domain/batch-connection';
import type { BatchState } from '../domain/batch-state';
import type { ResolutionOutcome } from '../domain/check-resolution';
import { documentsToSend } from '../domain/send-readiness';
import { engineReasonText, type EngineReason } from '../domain/send-messages';
import { interruptedAttempts } from '../domain/step-machine';
import { batchOf, documentNow } from './batch-reads';
import { CheckResolver } from './check-resolver';
import { ContractGuard } from './contract-guard';
import { DocumentSteps } from './document-steps';
import { holdsRequests } from './older-batch';
import { runWorkers } from './run-workers';
import { SendEvents, tally, type SendEngineEvent, type SendSummary } from './send-events';
import { DRAIN_MS, type SendEngineOptions, type SendParts } from './send-options';
import { SendRun, storageFailure } from './send-run';
import { DEFAULT_WAIT_BOUNDS } from './service-waits';

/** A stop's reason, in English and as a code, as `engine-state` events carry it. */
function stopReason(cause: EngineReason): { reason: string; cause: EngineReason } {
  return { reason: engineReasonText(cause), cause };
}

export class SendEngine {
  readonly #options: SendEngineOptions;
  readonly #parts: SendParts;
  readonly #events: SendEvents;
  readonly #steps: DocumentSteps;
  readonly #checks: CheckResolver;
  readonly #random: () => number;
  readonly #runs = new Map<string, SendRun>();
  /** Every send asked for and not ended, from the moment it is asked (before its run starts). */
  readonly #sending = new Map<string, Promise<SendSummary>>();
  /** Sends paused while their documents were still being queued: they end without starting. */
  readonly #pausedBeforeStart = new Set<string>();
  #closed = false;

  constructor(options: SendEngineOptions) {
    this.#options = options;
    this.#events = new SendEvents(options.store);
    this.#parts = {
      options,
      logger: options.logger ?? silentLogger,
      clock: options.clock ?? systemClock,
      guard: new ContractGuard(options.store, options.client.address),
      events: this.#events,
    };
    this.#random = options.random ?? Math.random;
    this.#steps = new DocumentSteps(this.#parts);
    this.#checks = new CheckResolver(this.#parts, (batchId) => this.#runs.get(batchId)?.schedule.wake());
  }

  /** Listens to progress; returns the unsubscribe function. */
  subscribe(listener: (event: SendEngineEvent) => void): () => void {
    return this.#events.subscribe(listener);
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
    // In memory for the whole send, even if it comes to rest meanwhile: every step reads it.
    const release = this.#options.store.retain(batchId);
    const sending = this.#queueAndStart(batchId, documentIds).finally(() => {
      release();
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

  /**
   * Stops starting new steps and sending anything more; calls already on their way get
   * `drainMs` to be answered (their answers are stored), then are abandoned (their outcome is
   * then settled on resume). A call that had not left is never taken for one that may have
   * been applied.
   */
  pause(batchId: string): void {
    const run = this.#runs.get(batchId);
    if (run)
      run.drain(this.#options.drainMs ?? DRAIN_MS, (calls) => {
        this.#parts.logger.log('info', 'send.draining', { batchId, calls });
        this.#events.emit({ type: 'draining', batchId, calls });
      });
    else if (this.#sending.has(batchId)) this.#pausedBeforeStart.add(batchId);
  }

  /**
   * "Try now": a batch waiting for its service (unreachable, or busy) tries again at once
   * instead of at the end of its wait; false when it is not waiting.
   */
  tryNow(batchId: string): boolean {
    const run = this.#runs.get(batchId);
    if (!run || run.schedule.untilResume() <= 0) return false;
    this.#parts.logger.log('info', 'send.try_now', { batchId });
    run.schedule.tryNow();
    this.#events.emit({ type: 'engine-state', batchId, state: 'running' });
    return true;
  }

  /** Puts a failed document back in the queue, and sends it if the batch is running. */
  async retry(batchId: string, documentId: string): Promise<void> {
    // A batch whose every document finished or failed is at rest: read back first.
    const document = await documentNow(this.#options.store, batchId, documentId);
    if (!document?.send.error || document.send.check) return;
    await this.#options.store.record(batchId, [{ type: 'item_retried', documentId }]);
    this.#runs.get(batchId)?.schedule.wake();
  }

  /** "Link the existing request" to a document that needs the user's check (CheckResolver.linkRequest). */
  linkRequest(
    batchId: string,
    documentId: string,
    requestId: string,
    options: { readonly confirmed?: boolean } = {},
  ): Promise<ResolutionOutcome> {
    return this.#checks.linkRequest(batchId, documentId, requestId, options);
  }

  /** "Send as a new request" after a refused key (CheckResolver.sendAsNew). */
  sendAsNew(batchId: string, documentId: string): Promise<ResolutionOutcome> {
    return this.#checks.sendAsNew(batchId, documentId);
  }

  /** "Send anew on purpose" a document whose reference another one holds (CheckResolver.acceptReferenceReuse). */
  acceptReferenceReuse(batchId: string, documentId: string): Promise<boolean> {
    return this.#checks.acceptReferenceReuse(batchId, documentId);
  }

  async #queueAndStart(batchId: string, documentIds?: readonly string[]): Promise<SendSummary> {
    const { store } = this.#options;
    const own = this.#options.client.address;
    let unbound: BatchState | undefined;
    try {
      // Read back if it is at rest: the send decides from the whole batch, as the data folder holds it.
      unbound = await store.open(batchId);
    } catch (error) {
      const stop = storageFailure(error);
      return this.#stopped(batchId, { reason: stop.message, cause: { code: stop.code } });
    }
    if (unbound && holdsRequests(unbound)) {
      // An earlier version sent it somewhere unrecorded: only a proof binds it (adoptOlderBatch).
      return this.#stopped(batchId, stopReason({ code: 'batch_unbound' }));
    }
    let bound: ConnectionAddress;
    try {
      // A batch is sent with one connection only: the first to send it binds it.
      bound = await store.bindConnection(batchId, own);
    } catch (error) {
      // Deleted meanwhile, or its journal could not be written: either way nothing was sent.
      return this.#stopped(
        batchId,
        stopReason({ code: store.get(batchId) ? storageFailure(error).code : 'batch_deleted' }),
      );
    }
    if (!sameConnection(bound, own)) {
      const stop = stopReason({
        code: 'other_connection',
        connection: { baseUrl: bound.baseUrl, clientId: bound.clientId },
      });
      this.#parts.logger.log('warn', 'send.other_connection', { batchId });
      return this.#stopped(batchId, stop);
    }
    const batch = batchOf(store, batchId);
    const wanted = documentIds ? new Set(documentIds) : undefined;
    const toQueue = documentsToSend(batch, wanted).map((document) => document.draft.id);
    if (toQueue.length > 0) {
      try {
        await store.record(batchId, [{ type: 'send_requested', documentIds: toQueue }]);
      } catch (error) {
        // Nothing was sent: say why, as a run that stopped at once would.
        const stop = storageFailure(error);
        return this.#stopped(batchId, { reason: stop.message, cause: { code: stop.code } });
      }
    }
    if (this.#closed || this.#pausedBeforeStart.has(batchId)) {
      this.#events.emit({ type: 'engine-state', batchId, state: 'paused' });
      return { batchId, state: 'paused', ...tally(store.get(batchId)) };
    }
    return this.#start(batchId);
  }

  /** A send that stopped before its run started: nothing was sent. */
  #stopped(batchId: string, { reason, cause }: { reason: string; cause: EngineReason }): SendSummary {
    this.#events.emit({ type: 'engine-state', batchId, state: 'stopped', reason, cause });
    return { batchId, state: 'stopped', ...tally(this.#options.store.get(batchId)), reason };
  }

  #start(batchId: string): Promise<SendSummary> {
    const { store } = this.#options;
    const concurrency = Math.max(1, this.#options.concurrency ?? 4);
    const run = new SendRun(batchId, {
      concurrency,
      clock: this.#parts.clock,
      onSlow: (slow) => this.#events.emit({ type: 'service-slow', batchId, slow }),
      slowAfterMs: this.#options.slowAfterMs,
      waitBounds: this.#options.waitMs ?? DEFAULT_WAIT_BOUNDS,
      random: this.#random,
    });
    this.#runs.set(batchId, run);
    run.done = (async (): Promise<SendSummary> => {
      try {
        this.#events.emit({ type: 'engine-state', batchId, state: 'running' });
        const interrupted = interruptedAttempts(batchOf(store, batchId));
        if (interrupted.length > 0) await store.record(batchId, interrupted);
        this.#events.batchProgress(batchId);
        // Twice as many documents as call slots: while one records an answer, another calls.
        await runWorkers(run, concurrency * 2, this.#steps, this.#parts);
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

  #summary(run: SendRun): SendSummary {
    const { batchId } = run;
    const counts = tally(this.#options.store.get(batchId));
    if (run.fatal) {
      const reason = run.fatal.message;
      const { code, serviceMessage } = run.fatal;
      const cause = { code, ...(serviceMessage === undefined ? {} : { serviceMessage }) };
      this.#events.emit({ type: 'engine-state', batchId, state: 'stopped', reason, cause });
      return { batchId, state: 'stopped', ...counts, reason };
    }
    const state = run.stopping.aborted ? 'paused' : 'finished';
    this.#events.emit({ type: 'engine-state', batchId, state });
    return { batchId, state, ...counts };
  }
}
