/**
 * What an answer means for one document, step by step (the second half of the step machine,
 * step-machine.ts): the events to store, and what the queue does next. Once any creation
 * attempt's outcome is unknown, its key is never released by a guess.
 */
import type { ItemError } from '../../shared/domain/batch';
import type { CreationAnswer, PrepareOutcome, UploadAnswer } from './service-answers';
import type { BatchEvent } from './batch-events';
import type { CreationKey, DocumentState } from './batch-state';
import { failureMessage, repeatedUploadRefusalMessage, type FailureWords } from './send-messages';
import { failureKind, refusalNamesUpload, refusesKeyReuse, unknownCause } from './answer-kinds';
import { withinKeyRetention, withoutIdCheck } from './key-retention';
import {
  mintKey,
  type Answer,
  type Decision,
  type RunFacts,
  type Step,
  type StepContext,
} from './step-machine';

/** How long after a creation answered without an id its key is replayed to learn the id. */
export const REPLAY_FOR_ID_AFTER_MS = 2_000;

/**
 * 409s to a creation before the app stops waiting for the key to settle and asks the user: a
 * service may answer 409 for a reason of its own that never passes (the spec shows no creation
 * errors), and waiting forever would leave the document stuck.
 */
export const MAX_KEY_IN_USE_PER_RUN = 5;

/** Fresh uploads per document and run after the service said its upload was gone (README "Sending exactly once"). */
export const MAX_REUPLOADS_PER_RUN = 2;

function itemFailed(documentId: string, words: FailureWords, now: number): BatchEvent {
  const error: ItemError = { ...words, at: new Date(now).toISOString() };
  return { type: 'item_failed', documentId, error };
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
 * The decision after a creation attempt under the document's stored key (README "Sending exactly once",
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
