import { randomUUID } from 'node:crypto';
import type { ItemError, SendPhase } from '../../shared/domain/batch';
import { isCatalogCode, userMessage } from '../../shared/service/error-catalog';
import { backoffDelayMs, sleep } from '../client/backoff';
import type { ServiceClient } from '../client/service-client';
import type { ServiceFailure } from '../client/service-failure';
import { silentLogger, type Logger } from '../log';
import type { BlobStore } from '../store/blob-store';
import type { BatchStore } from '../store/batch-store';
import type { BatchEvent } from './batch-events';
import {
  participantDone,
  phaseOf,
  type BatchState,
  type DocumentState,
  type UploadRecord,
} from './batch-state';
import { CallSlots } from './call-slots';
import { buildCreateBody } from './create-body';
import { sendProblems } from './send-readiness';

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
      /** Why the queue waits or stopped, in plain words. */
      readonly reason?: string;
      readonly resumesAt?: number;
    }
  | {
      readonly type: 'item-failed';
      readonly batchId: string;
      readonly documentId: string;
      readonly externalReference: string;
      readonly error: ItemError;
    };

export interface SendSummary {
  readonly batchId: string;
  readonly state: 'finished' | 'paused' | 'stopped';
  readonly prepared: number;
  readonly failed: number;
  readonly reason?: string;
}

export interface SendEngineOptions {
  readonly store: BatchStore;
  readonly blobs: BlobStore;
  readonly client: ServiceClient;
  /** Service calls in flight at once (default 4); up to twice as many documents are in progress. */
  readonly concurrency?: number;
  readonly logger?: Logger;
  readonly now?: () => number;
  readonly random?: () => number;
  /** How long the queue waits when the service is unreachable or busy: first and longest wait. */
  readonly waitMs?: { readonly first: number; readonly longest: number };
  /** An upload this close to its expiry is uploaded again rather than used (default 10 min). */
  readonly uploadExpiryMarginMs?: number;
}

type StepOutcome =
  | { readonly kind: 'continue' }
  | { readonly kind: 'done' }
  | { readonly kind: 'failed' }
  | { readonly kind: 'wait'; readonly failure: ServiceFailure }
  | { readonly kind: 'fatal'; readonly failure: ServiceFailure };

interface Run {
  readonly batchId: string;
  readonly controller: AbortController;
  readonly slots: CallSlots;
  readonly inFlight: Set<string>;
  /** No new step starts before this time (the service is unreachable or asked to wait). */
  resumeAt: number;
  waitStreak: number;
  fatal: ServiceFailure | undefined;
  /** Participant markers written by this run ahead of their call: not evidence of an earlier attempt. */
  readonly freshMarkers: Set<string>;
  wake: () => void;
  done: Promise<SendSummary>;
}

const PROGRESS_STEP_BYTES = 256 * 1024;
const PHASES: readonly SendPhase[] = [
  'draft',
  'queued',
  'uploading',
  'creating',
  'adding_participants',
  'preparing',
  'prepared',
  'failed',
];

function isOfflineFailure(failure: ServiceFailure): boolean {
  return failure.code === 'network_unreachable' || failure.code === 'timeout';
}

/** Errors after which the engine can do nothing for any document until the user acts. */
const FATAL_CODES = new Set(['credentials_rejected', 'insufficient_scope']);

/** Answers that refuse a request as sent: it was not applied, and sending it again cannot help. */
const REFUSING_STATUSES = new Set([400, 404, 413, 415, 422]);

/** Codes by which a service says a creation's upload can no longer be used (the simulator's; the spec shows none). */
const UPLOAD_GONE_CODES = new Set(['upload_expired', 'upload_not_found']);

function refusedOutright(failure: ServiceFailure): boolean {
  return (
    !failure.retryable &&
    !failure.outcomeUnknown &&
    failure.httpStatus !== undefined &&
    REFUSING_STATUSES.has(failure.httpStatus)
  );
}

/**
 * Sends batches: one state machine per document (upload → create → add participants →
 * prepare), each step recorded durably before the next call depends on it, so a crash at any
 * instant followed by a restart finishes with exactly one signing request per document.
 * Bounded concurrency; pause, resume, retry one item; a lost network pauses the queue and it
 * resumes by itself.
 */
export class SendEngine {
  readonly #options: SendEngineOptions;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #runs = new Map<string, Run>();
  readonly #listeners = new Set<(event: SendEngineEvent) => void>();

  constructor(options: SendEngineOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
  }

  /** Listens to progress; returns the unsubscribe function. */
  subscribe(listener: (event: SendEngineEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** True while the batch is being sent. */
  isRunning(batchId: string): boolean {
    return this.#runs.has(batchId);
  }

  /**
   * Queues every document of the batch that is ready (or those given) and sends until each is
   * prepared or failed; also finishes anything an earlier run left half done. Resolves when the
   * batch is finished, paused or stopped. Documents with problems are reported, not sent.
   */
  async send(batchId: string, documentIds?: readonly string[]): Promise<SendSummary> {
    const existing = this.#runs.get(batchId);
    if (existing) return existing.done;
    const batch = this.#batch(batchId);
    const wanted = documentIds ? new Set(documentIds) : undefined;
    const toQueue = batch.documents
      .filter((document) => !document.send.queued && (!wanted || wanted.has(document.draft.id)))
      .filter((document) => sendProblems(batch.defaults, document.draft).length === 0)
      .map((document) => document.draft.id);
    if (toQueue.length > 0)
      await this.#options.store.record(batchId, [{ type: 'send_requested', documentIds: toQueue }]);
    return this.#start(batchId);
  }

  /** Stops starting new steps and abandons calls in flight; their outcome is resolved on resume. */
  pause(batchId: string): void {
    this.#runs.get(batchId)?.controller.abort(new Error('paused'));
  }

  /** Puts a failed document back in the queue, and sends it if the batch is running. */
  async retry(batchId: string, documentId: string): Promise<void> {
    const document = this.#batch(batchId).documents.find((d) => d.draft.id === documentId);
    if (!document?.send.error) return;
    await this.#options.store.record(batchId, [{ type: 'item_retried', documentId }]);
    this.#runs.get(batchId)?.wake();
  }

  #batch(batchId: string): BatchState {
    const batch = this.#options.store.get(batchId);
    if (!batch) throw new Error(`unknown batch ${batchId}`);
    return batch;
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

  #start(batchId: string): Promise<SendSummary> {
    let wake: () => void = () => undefined;
    const concurrency = Math.max(1, this.#options.concurrency ?? 4);
    const run: Run = {
      batchId,
      controller: new AbortController(),
      slots: new CallSlots(concurrency),
      inFlight: new Set(),
      resumeAt: 0,
      waitStreak: 0,
      fatal: undefined,
      freshMarkers: new Set(),
      wake: () => wake(),
      done: Promise.resolve(undefined as unknown as SendSummary),
    };
    let wakeSignal = new Promise<void>((resolve) => (wake = resolve));
    const nextWake = () => {
      wakeSignal = new Promise<void>((resolve) => (wake = resolve));
    };
    const worker = async (): Promise<void> => {
      const { signal } = run.controller;
      while (!signal.aborted && !run.fatal) {
        const waitFor = run.resumeAt - this.#now();
        if (waitFor > 0) {
          await sleep(waitFor, signal).catch(() => undefined);
          continue;
        }
        const document = this.#nextRunnable(run);
        if (!document) {
          if (run.inFlight.size === 0) return;
          // Others are still working; one of them may fail and be retried, or a retry may arrive.
          // The timer is cancelled after the race, so it never keeps the process alive.
          const nap = new AbortController();
          const onAbort = () => nap.abort();
          signal.addEventListener('abort', onAbort, { once: true });
          await Promise.race([wakeSignal, sleep(1_000, nap.signal).catch(() => undefined)]);
          nap.abort();
          signal.removeEventListener('abort', onAbort);
          continue;
        }
        run.inFlight.add(document.draft.id);
        try {
          await this.#process(run, document.draft.id);
        } finally {
          run.inFlight.delete(document.draft.id);
          const wakeNow = wake;
          nextWake();
          wakeNow();
        }
      }
    };
    this.#runs.set(batchId, run);
    run.done = (async (): Promise<SendSummary> => {
      this.#emit({ type: 'engine-state', batchId, state: 'running' });
      this.#emitBatchProgress(batchId);
      // Twice as many documents as call slots: while one records an answer, another calls.
      await Promise.all(Array.from({ length: concurrency * 2 }, () => worker()));
      this.#runs.delete(batchId);
      const batch = this.#batch(batchId);
      const prepared = batch.documents.filter((d) => phaseOf(d) === 'prepared').length;
      const failed = batch.documents.filter((d) => phaseOf(d) === 'failed').length;
      if (run.fatal) {
        const reason = run.fatal.message;
        this.#emit({ type: 'engine-state', batchId, state: 'stopped', reason });
        return { batchId, state: 'stopped', prepared, failed, reason };
      }
      const state = run.controller.signal.aborted ? 'paused' : 'finished';
      this.#emit({ type: 'engine-state', batchId, state });
      return { batchId, state, prepared, failed };
    })();
    return run.done;
  }

  #nextRunnable(run: Run): DocumentState | undefined {
    return this.#batch(run.batchId).documents.find((document) => {
      const phase = phaseOf(document);
      return (
        phase !== 'draft' &&
        phase !== 'prepared' &&
        phase !== 'failed' &&
        !run.inFlight.has(document.draft.id)
      );
    });
  }

  async #process(run: Run, documentId: string): Promise<void> {
    for (;;) {
      let outcome: StepOutcome;
      try {
        outcome = await this.#step(run, documentId);
      } catch (error) {
        if (run.controller.signal.aborted) return;
        throw error;
      }
      this.#emitItem(run.batchId, documentId);
      this.#emitBatchProgress(run.batchId);
      switch (outcome.kind) {
        case 'continue':
          if (run.waitStreak > 0) {
            run.waitStreak = 0;
            this.#emit({ type: 'engine-state', batchId: run.batchId, state: 'running' });
          }
          if (run.controller.signal.aborted || run.fatal) return;
          continue;
        case 'done':
        case 'failed':
          return;
        case 'wait':
          this.#wait(run, outcome.failure);
          return;
        case 'fatal':
          run.fatal = outcome.failure;
          run.controller.abort(new Error('stopped'));
          return;
      }
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
    // Unreachable: probe again within 15 s at most, so a short outage ends soon after it does.
    const cappedBackoff = isOfflineFailure(failure) ? Math.min(backoff, 15_000) : backoff;
    const delay = Math.max(failure.retryAfterMs ?? 0, first / 2 + cappedBackoff);
    const resumesAt = this.#now() + delay;
    if (resumesAt > run.resumeAt) run.resumeAt = resumesAt;
    const reason = isOfflineFailure(failure)
      ? 'The signing service cannot be reached. Sending resumes by itself.'
      : `${failure.message}`;
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
      resumesAt: run.resumeAt,
    });
  }

  #emitItem(batchId: string, documentId: string, sentBytes?: number, totalBytes?: number): void {
    const document = this.#batch(batchId).documents.find((d) => d.draft.id === documentId);
    if (!document) return;
    this.#emit({
      type: 'item-progress',
      batchId,
      documentId,
      externalReference: document.draft.externalReference,
      phase: phaseOf(document),
      ...(sentBytes === undefined ? {} : { sentBytes, totalBytes }),
    });
  }

  async #record(run: Run, events: BatchEvent[]): Promise<void> {
    await this.#options.store.record(run.batchId, events);
  }

  async #fail(
    run: Run,
    document: DocumentState,
    failure: Pick<ServiceFailure, 'code' | 'message' | 'retryable'>,
  ): Promise<StepOutcome> {
    const error: ItemError = {
      code: failure.code,
      message: failure.message,
      retryable: failure.retryable,
      at: new Date(this.#now()).toISOString(),
    };
    await this.#record(run, [{ type: 'item_failed', documentId: document.draft.id, error }]);
    this.#emit({
      type: 'item-failed',
      batchId: run.batchId,
      documentId: document.draft.id,
      externalReference: document.draft.externalReference,
      error,
    });
    return { kind: 'failed' };
  }

  async #onFailure(run: Run, document: DocumentState, failure: ServiceFailure): Promise<StepOutcome> {
    if (FATAL_CODES.has(failure.code)) return { kind: 'fatal', failure };
    if (failure.retryable) return { kind: 'wait', failure };
    return this.#fail(run, document, failure);
  }

  /** Performs the next step of one document and records its result durably. */
  async #step(run: Run, documentId: string): Promise<StepOutcome> {
    const batch = this.#batch(run.batchId);
    const document = batch.documents.find((d) => d.draft.id === documentId);
    if (!document) return { kind: 'done' };
    const { draft, send } = document;
    const { client } = this.#options;
    const signal = run.controller.signal;
    if (send.prepared) return { kind: 'done' };

    if (!send.requestId) {
      if (send.create) return this.#create(run, document, send.create);
      if (send.upload && this.#uploadUsable(send.upload)) {
        await this.#record(run, [this.#createAttempt(batch, document, send.upload.uploadId)]);
        return { kind: 'continue' };
      }
      return this.#upload(run, document);
    }

    const pendingIndex = draft.extraParticipants.findIndex(
      (_, index) => !participantDone(send.participants[index]),
    );
    const participant = draft.extraParticipants[pendingIndex];
    if (participant) {
      const marker = `${documentId}/${pendingIndex}`;
      const marked = send.participants[pendingIndex] === 'attempted';
      if (!marked) {
        run.freshMarkers.add(marker);
        await this.#record(run, [{ type: 'participant_attempted', documentId, index: pendingIndex }]);
      }
      // Only a marker left by an earlier attempt (maybe of a crashed process) means it may exist.
      const mayAlreadyExist = marked && !run.freshMarkers.has(marker);
      const requestId = send.requestId;
      const added = await run.slots.run(signal, () =>
        client.addParticipant(requestId, participant, { signal, mayAlreadyExist }),
      );
      // From now on an attempt of this participant may follow one the service applied.
      if (added.ok || added.error.outcomeUnknown) run.freshMarkers.delete(marker);
      if (!added.ok) return this.#onFailure(run, document, added.error);
      await this.#record(run, [
        {
          type: 'participant_added',
          documentId,
          index: pendingIndex,
          participantId:
            added.value.kind === 'added' ? added.value.response.participant.participant_id : undefined,
          ...(added.value.kind === 'alreadyAdded' ? { alreadyThere: true } : {}),
        },
        ...this.#participantMarker(run, documentId, draft.extraParticipants.length, pendingIndex + 1),
      ]);
      return { kind: 'continue' };
    }

    // Prepare needs no marker: a repeat answers prepare_conflict, which the client resolves by a read.
    const requestId = send.requestId;
    const prepared = await run.slots.run(signal, () => client.prepareSigningRequest(requestId, { signal }));
    if (!prepared.ok) return this.#onFailure(run, document, prepared.error);
    await this.#record(run, [
      {
        type: 'request_prepared',
        documentId,
        revision: prepared.value.revision,
        sha256: prepared.value.sha256,
        alreadyPrepared: prepared.value.alreadyPrepared,
      },
    ]);
    return { kind: 'done' };
  }

  /** True while an upload can still be used for a creation: not within the margin of its expiry. */
  #uploadUsable(upload: UploadRecord | undefined): boolean {
    const margin = this.#options.uploadExpiryMarginMs ?? 10 * 60_000;
    return upload !== undefined && upload.expiresAt - margin > this.#now();
  }

  /** The creation key and frozen body of a document, to be stored before the first attempt. */
  #createAttempt(batch: BatchState, document: DocumentState, uploadId: string): BatchEvent {
    return {
      type: 'create_attempted',
      documentId: document.draft.id,
      idempotencyKey: randomUUID(),
      uploadId,
      body: buildCreateBody(batch.defaults, document.draft, uploadId),
    };
  }

  /**
   * The "attempted" marker of the participant at `index`, written with the record that
   * precedes its call so each call costs one durable write. The run remembers it wrote it, so
   * its own first attempt is not taken for the repeat of a lost one.
   */
  #participantMarker(run: Run, documentId: string, count: number, index: number): BatchEvent[] {
    if (index >= count) return [];
    run.freshMarkers.add(`${documentId}/${index}`);
    return [{ type: 'participant_attempted', documentId, index }];
  }

  /**
   * Sends the creation with its stored key and body. An outright refusal means no request
   * exists under the key, so the key is released: with the upload gone (expired here, or the
   * service says so) it is uploaded again; otherwise the document fails and can be edited.
   */
  async #create(
    run: Run,
    document: DocumentState,
    create: NonNullable<DocumentState['send']['create']>,
  ): Promise<StepOutcome> {
    const documentId = document.draft.id;
    const { signal } = run.controller;
    const created = await run.slots.run(signal, () =>
      this.#options.client.createSigningRequest(create.body, create.idempotencyKey, { signal }),
    );
    if (created.ok) {
      await this.#record(run, [
        {
          type: 'request_created',
          documentId,
          requestId: created.value.id,
          replayed: created.value.idempotent_replay === true,
        },
        ...this.#participantMarker(run, documentId, document.draft.extraParticipants.length, 0),
      ]);
      return { kind: 'continue' };
    }
    const failure = created.error;
    if (!refusedOutright(failure)) return this.#onFailure(run, document, failure);
    if (!this.#uploadUsable(document.send.upload) || UPLOAD_GONE_CODES.has(failure.code)) {
      await this.#record(run, [{ type: 'create_abandoned', documentId, reason: failure.code }]);
      return { kind: 'continue' };
    }
    await this.#record(run, [
      { type: 'create_abandoned', documentId, reason: failure.code, keepUpload: true },
    ]);
    const message = isCatalogCode(failure.code)
      ? failure.message
      : `The service refused to create the signing request (error "${failure.code}"${failure.serviceMessage ? `: ${failure.serviceMessage}` : ''}). Check this document's recipients and options, correct them, then retry it.`;
    return this.#fail(run, document, { ...failure, message });
  }

  async #upload(run: Run, document: DocumentState): Promise<StepOutcome> {
    const { draft } = document;
    const documentId = draft.id;
    if (document.send.upload) {
      await this.#record(run, [{ type: 'upload_discarded', documentId, reason: 'expired' }]);
    }
    const blobs = this.#options.blobs;
    if (!(await blobs.has(draft.pdf.sha256))) {
      return this.#fail(run, document, {
        code: 'local_copy_missing',
        message: userMessage('local_copy_missing'),
        retryable: false,
      });
    }
    let reported = 0;
    const startedAt = this.#now();
    const { signal } = run.controller;
    const uploaded = await run.slots.run(signal, () =>
      this.#options.client.uploadDocument(
        {
          path: blobs.pathOf(draft.pdf.sha256),
          sizeBytes: draft.pdf.sizeBytes,
          filename: draft.pdf.originalName,
        },
        {
          signal,
          onProgress: (sent, total) => {
            if (sent === 0 || sent === total || sent - reported >= PROGRESS_STEP_BYTES) {
              reported = sent;
              this.#emitItem(run.batchId, documentId, sent, total);
            }
          },
        },
      ),
    );
    if (!uploaded.ok) return this.#onFailure(run, document, uploaded.error);
    if (uploaded.value.sha256.toLowerCase() !== draft.pdf.sha256) {
      return this.#fail(run, document, {
        code: 'sha256_mismatch',
        message: userMessage('sha256_mismatch'),
        retryable: true,
      });
    }
    // The creation's key is stored with the upload, before the first creation attempt.
    await this.#record(run, [
      {
        type: 'upload_completed',
        documentId,
        uploadId: uploaded.value.upload_id,
        filename: uploaded.value.filename,
        sha256: uploaded.value.sha256.toLowerCase(),
        sizeBytes: uploaded.value.size_bytes,
        expiresAt: startedAt + (uploaded.value.expires_in_hours ?? 0) * 3_600_000,
      },
      this.#createAttempt(this.#batch(run.batchId), document, uploaded.value.upload_id),
    ]);
    return { kind: 'continue' };
  }
}
