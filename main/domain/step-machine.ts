/**
 * The send step machine: for one document, what to do next (`nextStep`) and what an answer
 * means (`decide`). Pure functions over the document's durable facts, this run's facts and the
 * clock, so every rule of "exactly once" can be read here and tested as a table. The queue
 * (send-engine.ts) performs the steps, records the events, and never decides anything itself.
 */
import type { BatchDefaults, ItemError } from '../../shared/domain/batch';
import type { CatalogCode } from '../../shared/service/error-catalog';
import type { ServiceErrorCode } from '../../shared/service/error-codes';
import type { CreateSigningRequestBody, Participant } from '../../shared/service/wire';
import type { CreationAnswer } from './service-answers';
import type { UploadAnswer } from './service-answers';
import type { PrepareOutcome } from './service-answers';
import { isNotFoundAtService, type ServiceFailure } from './service-failure';
import type { BatchEvent, HolderRef, UnknownCause } from './batch-events';
import type { Holder } from './contract-identity';
import {
  participantDone,
  type BatchState,
  type CreationKey,
  type DocumentState,
  type UploadRecord,
} from './batch-state';
import { buildCreateBody } from './create-body';
import { failureMessage, repeatedUploadRefusalMessage, type FailureWords } from './send-messages';

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

/** How long after a creation answered without an id its key is replayed to learn the id. */
export const REPLAY_FOR_ID_AFTER_MS = 2_000;

/**
 * 409s to a creation before the app stops waiting for the key to settle and asks the user: a
 * service may answer 409 for a reason of its own that never passes (the spec shows no creation
 * errors), and waiting forever would leave the document stuck.
 */
export const MAX_KEY_IN_USE_PER_RUN = 5;

/** Fresh uploads per document and run after the service said its upload was gone (PRODUCT.md §3). */
export const MAX_REUPLOADS_PER_RUN = 2;

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

/** Errors after which nothing can be sent for any document until the user acts. */
const FATAL_CODES: ReadonlySet<ServiceErrorCode> = new Set<CatalogCode>([
  'credentials_rejected',
  'insufficient_scope',
]);

/** The kinds of answer a step machine tells apart (the table tests use these). */
export type AnswerKind = 'applied' | 'refused' | 'transient' | 'unknown' | 'gone' | 'fatal' | 'interrupted';

/** Classifies a failure: does it prove the call did not apply, and can the same call work later? */
export function failureKind(failure: ServiceFailure): Exclude<AnswerKind, 'applied' | 'interrupted'> {
  if (FATAL_CODES.has(failure.code)) return 'fatal';
  // The token endpoint failed before this attempt of the call was sent: its answer says
  // nothing about this document (an earlier attempt's unknown outcome is recorded by the
  // deciders from `outcomeUnknown`), so it never fails the document nor refuses its key.
  // Retryable waits; anything else stops the run with the token endpoint's reason.
  if (failure.stage === 'token') return failure.retryable ? 'transient' : 'fatal';
  if (failure.outcomeUnknown) return 'unknown';
  if (isNotFoundAtService(failure)) return 'gone';
  if (failure.retryable) return 'transient';
  return 'refused';
}

/** True when an upload can still back a new creation key: its lifetime is unknown, or it ends after the margin. */
export function uploadUsable(upload: UploadRecord | undefined, now: number, marginMs: number): boolean {
  if (!upload) return false;
  return upload.expiresAt === undefined || upload.expiresAt - marginMs > now;
}

/** True when the service's refusal names the upload: it no longer accepts it (PRODUCT.md §3). */
export function refusalNamesUpload(failure: {
  readonly code: ServiceErrorCode | undefined;
  readonly serviceMessage?: string | undefined;
}): boolean {
  return /upload/i.test(failure.code ?? '') || /upload/i.test(failure.serviceMessage ?? '');
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
function mintKey(
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
 * True when the service refused a creation because its key is known with another body: the
 * service holds a request for this contract's key made elsewhere (this app always sends a key
 * with the very body stored with it). Services word it their own way (409
 * `idempotency_key_reused`, Stripe's 400 `idempotency_error`, the IETF draft's 422). A key
 * still in use (Stripe's 409 `idempotency_key_in_use`: its first request is still running, as
 * one of this document's may be) is not a refusal: it is waited out as any 409.
 */
export function refusesKeyReuse(failure: Pick<ServiceFailure, 'code' | 'httpStatus' | 'stage'>): boolean {
  if (failure.stage === 'token') return false;
  const status = failure.httpStatus ?? 0;
  return (
    status >= 400 &&
    status < 500 &&
    /idempotency/i.test(failure.code) &&
    !/invalid_idempotency_key|required|missing|in_use|in_progress|processing/i.test(failure.code)
  );
}

/**
 * True when a new request answered at `now` comes within the service's key retention of the
 * first attempt under `create`'s key: had an earlier attempt created a request, the service
 * would still know the key and replay it. Judged on this computer's clock, and also on the
 * service's own (`serviceNow` against the `Date` of the upload answer before the first attempt)
 * when both are known: this computer's clock may have been wrong at one end, and a clock that
 * went back proves nothing.
 */
function withinKeyRetention(
  create: CreationKey,
  now: number,
  retentionMs: number,
  serviceNow?: number,
): boolean {
  const within = (elapsed: number) => elapsed >= 0 && elapsed < retentionMs;
  const firstAt = Date.parse(create.firstAttemptAt);
  if (Number.isNaN(firstAt) || !within(now - firstAt)) return false;
  if (create.serviceFirstAt === undefined || serviceNow === undefined) return true;
  return within(serviceNow - create.serviceFirstAt);
}

/**
 * The check for a key answered without an id whose id cannot be learnt: a request exists under
 * it, and when that answer came beyond the key retention after an attempt of unknown outcome,
 * another may exist too (the person is told two may exist, not only to find one).
 */
function withoutIdCheck(create: CreationKey): 'created_without_id' | 'new_request_after_unknown' {
  return create.twoMayExist === true ? 'new_request_after_unknown' : 'created_without_id';
}

function itemFailed(documentId: string, words: FailureWords, now: number): BatchEvent {
  const error: ItemError = { ...words, at: new Date(now).toISOString() };
  return { type: 'item_failed', documentId, error };
}

function unknownCause(failure: ServiceFailure): UnknownCause {
  if (failure.httpStatus === 409) return 'key_in_use';
  return failure.httpStatus !== undefined && failure.httpStatus >= 500 ? 'server_error' : 'no_answer';
}

/** The decision after an upload; `document` is the document as it is once the answer came. */
export function decideUpload(
  document: DocumentState,
  step: Extract<Step, { kind: 'upload' }>,
  answer: Answer<UploadAnswer>,
  context: StepContext,
): Decision {
  const documentId = document.draft.id;
  if (answer.kind === 'interrupted') return { events: [], next: 'stop' };
  if (answer.kind === 'failed') {
    const { failure } = answer;
    const kind = failureKind(failure);
    if (kind === 'fatal') return { events: [], next: 'fatal', failure };
    // A repeated upload only leaves an unused temporary upload behind: waiting and trying again is safe.
    if (kind === 'unknown' || kind === 'transient') return { events: [], next: 'wait', failure };
    return { events: [itemFailed(documentId, failureMessage(failure), context.now)], next: 'stop' };
  }
  const upload = answer.value;
  // The document (as it is now, after the call) got another PDF meanwhile: this upload is of
  // the old one and is not used; the next step uploads the new one.
  if (document.draft.pdf.sha256 !== step.sha256) return { events: [], next: 'continue' };
  if (upload.sha256.toLowerCase() !== step.sha256) {
    return {
      events: [
        itemFailed(documentId, failureMessage({ code: 'sha256_mismatch', retryable: true }), context.now),
      ],
      next: 'stop',
    };
  }
  const hours = upload.expires_in_hours;
  const completed: BatchEvent = {
    type: 'upload_completed',
    documentId,
    uploadId: upload.upload_id,
    filename: upload.filename,
    sha256: upload.sha256.toLowerCase(),
    sizeBytes: upload.size_bytes,
    ...(hours === undefined ? {} : { expiresAt: step.startedAt + hours * 3_600_000 }),
    ...(upload.serviceTime === undefined ? {} : { serviceAt: upload.serviceTime }),
  };
  // The creation's key is stored with the upload, in one durable write, before the first attempt.
  return {
    events: [
      completed,
      mintKey(document, { uploadId: upload.upload_id, serviceAt: upload.serviceTime }, context),
    ],
    next: 'continue',
  };
}

/**
 * The decision after a creation attempt under the document's stored key (PRODUCT.md §3,
 * "needs your check"). Once any attempt's outcome is unknown, the key is never released by
 * itself: a refusal, or an answer that is not a replay, asks the user instead.
 */
export function decideCreation(
  document: DocumentState,
  create: CreationKey,
  answer: Answer<CreationAnswer>,
  facts: RunFacts,
  context: StepContext,
): Decision {
  const documentId = document.draft.id;
  if (answer.kind === 'interrupted') {
    const event: BatchEvent = answer.left
      ? { type: 'create_outcome_unknown', documentId, cause: 'interrupted' }
      : { type: 'create_attempt_settled', documentId };
    return { events: [event], next: 'stop' };
  }
  if (answer.kind === 'applied') {
    const { id, replayed, earlierAttemptUnknown, locationId } = answer.value;
    const mayHaveCreated = create.unknown || earlierAttemptUnknown;
    // Within the time the service keeps keys, an earlier attempt that created a request would
    // have been replayed: a new request then proves it created nothing. Beyond, two may exist.
    const beyondRetention =
      mayHaveCreated &&
      !withinKeyRetention(create, context.now, context.keyRetentionMs, answer.value.serviceTime);
    const twoMayExist = (newRequestId: string): Decision => ({
      events: [{ type: 'check_needed', documentId, reason: 'new_request_after_unknown', newRequestId }],
      next: 'stop',
    });
    if (id === undefined) {
      // A request exists under the key; a replay of the key, a moment later, says its id.
      if (create.appliedWithoutId)
        return {
          events: [{ type: 'check_needed', documentId, reason: withoutIdCheck(create) }],
          next: 'stop',
        };
      return {
        events: [
          {
            type: 'create_answered_without_id',
            documentId,
            ...(replayed !== true && beyondRetention ? { twoMayExist: true as const } : {}),
            ...(locationId === undefined ? {} : { locationId }),
          },
        ],
        next: 'continue',
        facts: { ...facts, replayNotBefore: context.now + (context.replayForIdMs ?? REPLAY_FOR_ID_AFTER_MS) },
      };
    }
    if (create.appliedWithoutId) {
      // The replay that tells the id: of the request the earlier answer made, unless it is new.
      // An answer without a body cannot say it replays; naming the request the earlier answer's
      // Location named, it does.
      const sameRequest = replayed === true || (create.locationId !== undefined && id === create.locationId);
      return sameRequest && create.twoMayExist !== true
        ? {
            events: [{ type: 'request_created', documentId, requestId: id, replayed: true }],
            next: 'continue',
          }
        : twoMayExist(id);
    }
    if (replayed === true && !mayHaveCreated) {
      // No attempt of this document can have made it: the service holds this contract's key
      // from another data folder or desk.
      return {
        events: [{ type: 'check_needed', documentId, reason: 'held_at_service', newRequestId: id }],
        next: 'stop',
      };
    }
    if (replayed !== true && beyondRetention) return twoMayExist(id);
    return {
      events: [{ type: 'request_created', documentId, requestId: id, replayed: replayed === true }],
      next: 'continue',
    };
  }

  const { failure } = answer;
  const kind = failureKind(failure);
  const settled: BatchEvent = failure.outcomeUnknown
    ? { type: 'create_outcome_unknown', documentId, cause: unknownCause(failure) }
    : { type: 'create_attempt_settled', documentId };
  if (kind === 'fatal') return { events: [settled], next: 'fatal', failure };
  if (refusesKeyReuse(failure)) {
    return {
      events: [
        {
          type: 'check_needed',
          documentId,
          reason: 'held_at_service',
          code: failure.code,
          ...(failure.serviceMessage ? { serviceMessage: failure.serviceMessage } : {}),
        },
      ],
      next: 'stop',
    };
  }
  // A 409 says the service knows the key: its request is still being processed (the IETF
  // Idempotency-Key draft), so the key's outcome is unknown and a later replay will tell; a
  // few times, then the user is asked (a 409 that never passes would leave it stuck). A key
  // known with another body was answered above (refusesKeyReuse).
  const conflict = failure.httpStatus === 409 && failure.stage !== 'token';
  if (conflict && facts.keyInUse < MAX_KEY_IN_USE_PER_RUN) {
    return {
      events: [{ type: 'create_outcome_unknown', documentId, cause: 'key_in_use' }],
      next: 'wait',
      failure,
      facts: { ...facts, keyInUse: facts.keyInUse + 1 },
    };
  }
  if (kind === 'transient' || (kind === 'unknown' && failure.retryable)) {
    return { events: [settled], next: 'wait', failure };
  }
  // An answer refusing the key. It proves nothing about earlier attempts whose outcome was
  // unknown, nor about the request an answer without its id said exists (the replay that would
  // tell the id met an upload gone, at a service that checks it first): releasing the key would
  // leave that request behind and make a second one.
  if (create.appliedWithoutId || create.unknown || failure.outcomeUnknown || conflict) {
    return {
      // The attempt that may have been applied is recorded as such, whatever the question says.
      events: [
        ...(failure.outcomeUnknown ? [settled] : []),
        {
          type: 'check_needed',
          documentId,
          reason: create.appliedWithoutId ? withoutIdCheck(create) : 'key_refused',
          code: failure.code,
          ...(failure.serviceMessage ? { serviceMessage: failure.serviceMessage } : {}),
        },
      ],
      next: 'stop',
    };
  }
  const upload = document.send.upload;
  const uploadGone =
    refusalNamesUpload(failure) || (upload?.expiresAt !== undefined && upload.expiresAt <= context.now);
  const generation = context.nextGeneration?.(document);
  const next = generation === undefined ? {} : { generation };
  if (!uploadGone) {
    return {
      events: [
        { type: 'create_abandoned', documentId, reason: failure.code, keepUpload: true, ...next },
        itemFailed(documentId, failureMessage(failure), context.now),
      ],
      next: 'stop',
    };
  }
  const abandoned: BatchEvent = { type: 'create_abandoned', documentId, reason: failure.code, ...next };
  if (facts.reuploads >= MAX_REUPLOADS_PER_RUN) {
    return {
      events: [abandoned, itemFailed(documentId, repeatedUploadRefusalMessage(failure), context.now)],
      next: 'stop',
    };
  }
  const reuploads = facts.reuploads + 1;
  return {
    events: [abandoned],
    next: 'continue',
    facts: {
      ...facts,
      reuploads,
      uploadNotBefore: context.now + context.reuploadBackoffMs * 2 ** (reuploads - 1),
    },
  };
}

/**
 * The decision after an extra participant's attempt. `participant_conflict` means "already
 * there" only when an earlier attempt of this same participant had an unknown outcome: the
 * spec also uses it for ceremony-state and signing-order conflicts.
 */
export function decideParticipant(
  document: DocumentState,
  index: number,
  answer: Answer<{ readonly participantId: string | undefined }>,
  context: StepContext,
): Decision {
  const documentId = document.draft.id;
  const progress = document.send.participants[index];
  if (answer.kind === 'interrupted') {
    const event: BatchEvent = answer.left
      ? { type: 'participant_outcome_unknown', documentId, index, cause: 'interrupted' }
      : { type: 'participant_attempt_settled', documentId, index };
    return { events: [event], next: 'stop' };
  }
  if (answer.kind === 'applied') {
    return {
      events: [{ type: 'participant_added', documentId, index, participantId: answer.value.participantId }],
      next: 'continue',
    };
  }
  const { failure } = answer;
  const kind = failureKind(failure);
  const settled: BatchEvent = failure.outcomeUnknown
    ? { type: 'participant_outcome_unknown', documentId, index, cause: unknownCause(failure) }
    : { type: 'participant_attempt_settled', documentId, index };
  const conflict = failure.code === 'participant_conflict' && failure.stage !== 'token';
  if (conflict && (progress?.unknown === true || failure.outcomeUnknown)) {
    return {
      events: [
        { type: 'participant_added', documentId, index, participantId: undefined, alreadyThere: true },
      ],
      next: 'continue',
    };
  }
  if (kind === 'fatal') return { events: [settled], next: 'fatal', failure };
  if (kind === 'transient' || (kind === 'unknown' && failure.retryable))
    return { events: [settled], next: 'wait', failure };
  return { events: [settled, itemFailed(documentId, failureMessage(failure), context.now)], next: 'stop' };
}

/** The decision after a prepare call (repeating it is harmless: a conflict is resolved by a read). */
export function decidePrepare(
  document: DocumentState,
  answer: Answer<PrepareOutcome>,
  context: StepContext,
): Decision {
  const documentId = document.draft.id;
  if (answer.kind === 'interrupted') return { events: [], next: 'stop' };
  if (answer.kind === 'applied') {
    const { revision, sha256, alreadyPrepared } = answer.value;
    return {
      events: [{ type: 'request_prepared', documentId, revision, sha256, alreadyPrepared }],
      next: 'stop',
    };
  }
  const { failure } = answer;
  const kind = failureKind(failure);
  if (kind === 'fatal') return { events: [], next: 'fatal', failure };
  if (kind === 'transient' || (kind === 'unknown' && failure.retryable))
    return { events: [], next: 'wait', failure };
  return { events: [itemFailed(documentId, failureMessage(failure), context.now)], next: 'stop' };
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
