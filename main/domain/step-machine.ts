/**
 * The send step machine: for one document, what to do next (`nextStep`) and what an answer
 * means (the deciders, step-decisions.ts). Pure functions over the document's durable facts,
 * this run's facts and the clock, so every rule of "exactly once" can be read here and tested as
 * a table. The queue (send-engine.ts) performs the steps, records the events, and never decides
 * anything itself. How a failure is classed: answer-kinds.ts; what the service's key retention
 * proves: key-retention.ts.
 */
import type { BatchDefaults } from '../../shared/domain/batch';
import type { CreateSigningRequestBody, Participant } from '../../shared/service/wire';
import type { ServiceFailure } from './service-failure';
import type { BatchEvent, HolderRef } from './batch-events';
import type { Holder } from './contract-identity';
import { participantDone, type BatchState, type DocumentState, type UploadRecord } from './batch-state';
import { buildCreateBody } from './create-body';
import { withinKeyRetention, withoutIdCheck } from './key-retention';

/** What the queue remembers of a document during one run only. */
export interface RunFacts {
  /** Fresh uploads made in this run because the service said the upload was gone. */
  readonly reuploads: number;
  /** No upload of this document starts before this time (backoff after such a refusal). */
  readonly uploadNotBefore: number;
  /** Creation attempts answered 409 in this run (the key still being processed, or so it says). */
  readonly keyInUse: number;
  /** A creation answered without an id is replayed no sooner than this (the service may still be at work). */
  readonly replayNotBefore: number;
}

export const NO_RUN_FACTS: RunFacts = { reuploads: 0, uploadNotBefore: 0, keyInUse: 0, replayNotBefore: 0 };

export interface StepContext {
  readonly now: number;
  readonly defaults: BatchDefaults;
  /**
   * The Idempotency-Key of `document`'s next creation key: derived from the contract it is (its
   * service, reference and PDF) and its generation (contract-identity.ts).
   */
  readonly keyFor: (document: DocumentState) => string;
  /**
   * The other documents of the data folder that hold, or may hold, a request for `document`'s
   * reference at its service (contract-registry.ts): asked before a key is made.
   */
  readonly holdersOf: (document: DocumentState) => readonly Holder[];
  /**
   * How long the service is assumed to keep an Idempotency-Key (the connection's setting): a
   * new request answered within it after an attempt of unknown outcome proves that attempt
   * created nothing.
   */
  readonly keyRetentionMs: number;
  /** An upload this close to its known expiry is not used for a new key (default 10 min). */
  readonly uploadExpiryMarginMs: number;
  /** First backoff before a fresh upload after an upload-gone refusal; doubles each time. */
  readonly reuploadBackoffMs: number;
  /** How long after a creation answered without an id its key is replayed (default REPLAY_FOR_ID_AFTER_MS). */
  readonly replayForIdMs?: number;
  /**
   * The generation of `document`'s next key once its key is given up: past every key the data
   * folder made for the same contract, so that it never becomes another document's key
   * (default: one more than its own).
   */
  readonly nextGeneration?: (document: DocumentState) => number;
}

/** The next thing to do for a document. */
export type Step =
  /** Nothing more in this run: prepared, failed, waiting for the user's check, or not queued. */
  | { readonly kind: 'finished'; readonly why: 'prepared' | 'failed' | 'needs_check' | 'not_queued' }
  /** Nothing before `until` (a backoff of this document only). */
  | { readonly kind: 'wait'; readonly until: number }
  /** Durable facts to store before the next step (a new key, a discarded upload). */
  | { readonly kind: 'record'; readonly events: readonly BatchEvent[] }
  /** Uploads the document's PDF, known by `sha256` when the step was taken. */
  | { readonly kind: 'upload'; readonly startedAt: number; readonly sha256: string }
  /**
   * A call whose `marker` is stored first, inside its call slot right before it leaves, so
   * that a stop while it waits for a slot leaves no false "may have reached the service".
   */
  | {
      readonly kind: 'create';
      readonly key: string;
      readonly body: CreateSigningRequestBody;
      readonly marker: readonly BatchEvent[];
    }
  | {
      readonly kind: 'add-participant';
      readonly requestId: string;
      readonly index: number;
      readonly participant: Participant;
      readonly marker: readonly BatchEvent[];
    }
  | { readonly kind: 'prepare'; readonly requestId: string };

/** How a call ended, as the queue saw it. */
export type Answer<T> =
  | { readonly kind: 'applied'; readonly value: T }
  | { readonly kind: 'failed'; readonly failure: ServiceFailure }
  /** The run was stopped (pause, power cut, a failed write); `left` says whether anything had been sent. */
  | { readonly kind: 'interrupted'; readonly left: boolean };

/** What to record, and what the queue does next. */
export interface Decision {
  readonly events: readonly BatchEvent[];
  /**
   * `continue`: take the next step now; `stop`: this document is done in this run (prepared,
   * failed or waiting for the user); `wait`: the service is away or busy, the whole run waits;
   * `fatal`: nothing can be sent until the user acts (credentials).
   */
  readonly next: 'continue' | 'stop' | 'wait' | 'fatal';
  readonly failure?: ServiceFailure;
  readonly facts?: RunFacts;
}

/** True when an upload can still back a new creation key: its lifetime is unknown, or it ends after the margin. */
export function uploadUsable(upload: UploadRecord | undefined, now: number, marginMs: number): boolean {
  if (!upload) return false;
  return upload.expiresAt === undefined || upload.expiresAt - marginMs > now;
}

function finished(why: Extract<Step, { kind: 'finished' }>['why']): Step {
  return { kind: 'finished', why };
}

/** The next step of one document, from its durable facts, this run's facts and the clock. */
export function nextStep(document: DocumentState, facts: RunFacts, context: StepContext): Step {
  const { draft, send } = document;
  const documentId = draft.id;
  if (send.prepared) return finished('prepared');
  if (send.check) return finished('needs_check');
  if (send.error) return finished('failed');
  if (!send.queued) return finished('not_queued');

  if (!send.requestId) {
    const create = send.create;
    if (create) {
      if (create.appliedWithoutId) {
        // A request exists under the key. Replayed once the service may have forgotten the key,
        // the key would make a second one: the person finds the first one instead.
        if (!withinKeyRetention(create, context.now, context.keyRetentionMs))
          return {
            kind: 'record',
            events: [{ type: 'check_needed', documentId, reason: withoutIdCheck(create) }],
          };
        // Answered without an id: replayed once, a moment later, to learn it.
        if (facts.replayNotBefore > context.now) return { kind: 'wait', until: facts.replayNotBefore };
      }
      // A key once stored is always used again, however old its upload: releasing it is
      // decided only from the service's answer (see decideCreation).
      const marker: BatchEvent[] = create.inFlight ? [] : [{ type: 'create_attempt_started', documentId }];
      return { kind: 'create', key: create.idempotencyKey, body: create.body, marker };
    }
    // Another document of the data folder holds this reference: nothing is uploaded for it.
    const heldBack = heldElsewhere(document, context);
    if (heldBack) return { kind: 'record', events: [heldBack] };
    // An upload of another PDF than the document's now (it was replaced while not yet sent)
    // is never used for a new key.
    if (send.upload && send.upload.sha256 !== draft.pdf.sha256) {
      return { kind: 'record', events: [{ type: 'upload_discarded', documentId, reason: 'pdf_changed' }] };
    }
    if (send.upload && uploadUsable(send.upload, context.now, context.uploadExpiryMarginMs)) {
      return { kind: 'record', events: [mintKey(document, send.upload, context)] };
    }
    if (send.upload) {
      return { kind: 'record', events: [{ type: 'upload_discarded', documentId, reason: 'expired' }] };
    }
    if (facts.uploadNotBefore > context.now) return { kind: 'wait', until: facts.uploadNotBefore };
    return { kind: 'upload', startedAt: context.now, sha256: draft.pdf.sha256 };
  }

  const index = draft.extraParticipants.findIndex((_, i) => !participantDone(send.participants[i]));
  const participant = draft.extraParticipants[index];
  if (participant) {
    // The marker goes alone, right before this participant's call: never with another record.
    const marker: BatchEvent[] = send.participants[index]?.inFlight
      ? []
      : [{ type: 'participant_attempted', documentId, index }];
    return { kind: 'add-participant', requestId: send.requestId, index, participant, marker };
  }
  return { kind: 'prepare', requestId: send.requestId };
}

/** The holder named in a check: what the user needs to find it. */
function holderRef(holder: Holder): HolderRef {
  return {
    batchId: holder.batchId,
    batchName: holder.batchName,
    documentId: holder.documentId,
    fileName: holder.fileName,
    ...(holder.requestId === undefined ? {} : { requestId: holder.requestId }),
    ...(holder.deleted ? { deleted: true } : {}),
  };
}

/**
 * The check that holds `document` back when another document of the data folder holds, or may
 * hold, a request for its reference at its service and the user did not choose to send it
 * anyway; undefined when it may go.
 */
function heldElsewhere(document: DocumentState, context: StepContext): BatchEvent | undefined {
  if (document.send.reuseAccepted) return undefined;
  const [holder] = context.holdersOf(document);
  if (!holder) return undefined;
  return {
    type: 'check_needed',
    documentId: document.draft.id,
    reason: 'held_elsewhere',
    holder: holderRef(holder),
  };
}

/**
 * A new key and the frozen body it goes with, stored before any attempt under it (the
 * attempt's own marker follows in its slot); or, when another document holds the reference
 * now, the check that holds this one back. The engine claims the reference in the same turn.
 */
export function mintKey(
  document: DocumentState,
  upload: { readonly uploadId: string; readonly serviceAt?: number | undefined },
  context: StepContext,
): BatchEvent {
  return (
    heldElsewhere(document, context) ?? {
      type: 'create_attempted',
      documentId: document.draft.id,
      idempotencyKey: context.keyFor(document),
      uploadId: upload.uploadId,
      body: buildCreateBody(context.defaults, document.draft, upload.uploadId),
      attemptsMarked: true,
      ...(upload.serviceAt === undefined ? {} : { serviceFirstAt: upload.serviceAt }),
    }
  );
}

/**
 * At the start of a run, no call of the batch is in flight in this process, and the data
 * folder's lock rules out any other: an attempt still marked in flight was cut short by a
 * crash or a pause, and its outcome is unknown from now on.
 */
export function interruptedAttempts(batch: BatchState): BatchEvent[] {
  const events: BatchEvent[] = [];
  for (const document of batch.documents) {
    const documentId = document.draft.id;
    if (document.send.create?.inFlight && !document.send.requestId)
      events.push({ type: 'create_outcome_unknown', documentId, cause: 'interrupted' });
    for (const [key, progress] of Object.entries(document.send.participants)) {
      if (progress.inFlight && !progress.done)
        events.push({
          type: 'participant_outcome_unknown',
          documentId,
          index: Number(key),
          cause: 'interrupted',
        });
    }
  }
  return events;
}
