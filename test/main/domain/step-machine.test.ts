import { describe, expect, it } from 'vitest';
import type { BatchEvent } from '../../../main/domain/batch-events';
import { applyBatchEvent, emptyBatch } from '../../../main/domain/apply-batch-event';
import type { DocumentState } from '../../../main/domain/batch-state';
import {
  interruptedAttempts,
  nextStep,
  NO_RUN_FACTS,
  type Answer,
  type RunFacts,
  type StepContext,
} from '../../../main/domain/step-machine';
import {
  decideCreation,
  decideParticipant,
  decidePrepare,
  decideUpload,
  MAX_KEY_IN_USE_PER_RUN,
  MAX_REUPLOADS_PER_RUN,
  REPLAY_FOR_ID_AFTER_MS,
} from '../../../main/domain/step-decisions';
import { failureKind } from '../../../main/domain/answer-kinds';
import { checkExplanation } from '../../../main/domain/send-messages';
import type { CreationAnswer } from '../../../main/domain/service-answers';
import type { PrepareOutcome } from '../../../main/domain/service-answers';
import type { ServiceFailure } from '../../../main/domain/service-failure';
import { serviceErrorCode } from '../../../shared/service/error-codes';
import type { Upload } from '../../../shared/service/wire';

/**
 * The step machine as tables: every state a document can be in × every kind of answer
 * (applied, refused, transient, unknown, gone, fatal, interrupted), with the events it stores
 * and what the queue does next. States are built by folding real journal events.
 */
const NOW = Date.parse('2026-11-23T10:00:00.000Z');
const HOUR = 3_600_000;
const SHA = 'a'.repeat(64);
const DOC = 'doc-1';

const context: StepContext = {
  now: NOW,
  defaults: { defaultRecipients: [] },
  keyFor: () => 'key-new',
  holdersOf: () => [],
  keyRetentionMs: HOUR,
  uploadExpiryMarginMs: 10 * 60_000,
  reuploadBackoffMs: 2_000,
};

const signer = {
  participant_type: 'signer' as const,
  role: 'Employee',
  name: 'Anne',
  email: 'anne@example.com',
};
const observer = { participant_type: 'observer' as const, role: 'HR', name: 'Bob', email: 'bob@example.com' };

/** A batch with one queued document (one signer, one extra observer), after `events`. */
function documentAfter(...events: BatchEvent[]): DocumentState {
  const all: BatchEvent[] = [
    { type: 'batch_created', batchId: 'b', name: 'B', defaults: { defaultRecipients: [] } },
    {
      type: 'document_added',
      document: {
        id: DOC,
        externalReference: 'REF-1',
        pdf: { originalName: 'a.pdf', storedFilename: 'a.pdf', sizeBytes: 10, sha256: SHA },
        recipients: [signer],
        extraParticipants: [observer],
        options: {},
      },
    },
    ...events,
  ];
  const state = all.reduce(
    (batch, event, index) =>
      applyBatchEvent(batch, { seq: index + 1, at: new Date(NOW - HOUR).toISOString(), event }),
    emptyBatch('b'),
  );
  const document = state.documents[0];
  if (!document) throw new Error('no document');
  return document;
}

const queued: BatchEvent = { type: 'send_requested', documentIds: [DOC] };
const uploaded = (expiresAt?: number): BatchEvent => ({
  type: 'upload_completed',
  documentId: DOC,
  uploadId: 'upl_1',
  filename: 'a.pdf',
  sha256: SHA,
  sizeBytes: 10,
  ...(expiresAt === undefined ? {} : { expiresAt }),
});
const minted: BatchEvent = {
  type: 'create_attempted',
  documentId: DOC,
  idempotencyKey: 'key-1',
  uploadId: 'upl_1',
  body: { external_reference: 'REF-1', document: { upload_id: 'upl_1' }, recipients: [signer] },
  attemptsMarked: true,
};
const unknownOutcome: BatchEvent = { type: 'create_outcome_unknown', documentId: DOC, cause: 'no_answer' };
const attempting: BatchEvent = { type: 'create_attempt_started', documentId: DOC };
const restarted = attempting;
const participantAttempting: BatchEvent = { type: 'participant_attempted', documentId: DOC, index: 0 };
const created: BatchEvent = { type: 'request_created', documentId: DOC, requestId: 'sr_1', replayed: false };

/** A failure's fields, its code as a service may send it (any string: services word their own). */
type FailureFields = Omit<Partial<ServiceFailure>, 'code'> & { readonly code: string };

function failure(fields: FailureFields): ServiceFailure {
  return {
    operation: 'createSigningRequest',
    message: `message of ${fields.code}`,
    retryable: false,
    outcomeUnknown: false,
    attempts: 1,
    ...fields,
    code: serviceErrorCode(fields.code),
  };
}
const failed = (fields: FailureFields): Answer<never> => ({
  kind: 'failed',
  failure: failure(fields),
});

/** The types of the events a decision stores, with the fields a table row cares about. */
function summary(events: readonly BatchEvent[]): string[] {
  return events.map((event) => {
    switch (event.type) {
      case 'check_needed':
        return `check_needed:${event.reason}`;
      case 'create_abandoned':
        return `create_abandoned${event.keepUpload ? ':keepUpload' : ''}`;
      case 'create_outcome_unknown':
      case 'participant_outcome_unknown':
        return `${event.type}:${event.cause}`;
      case 'participant_added':
        return `participant_added${event.alreadyThere ? ':alreadyThere' : ''}`;
      default:
        return event.type;
    }
  });
}

describe('nextStep', () => {
  const rows: [string, DocumentState, RunFacts, string][] = [
    ['not queued', documentAfter(), NO_RUN_FACTS, 'finished:not_queued'],
    ['queued, nothing sent', documentAfter(queued), NO_RUN_FACTS, 'upload'],
    [
      'queued, fresh upload held back',
      documentAfter(queued),
      { reuploads: 1, uploadNotBefore: NOW + 2_000, keyInUse: 0, replayNotBefore: 0 },
      'wait',
    ],
    [
      'upload usable',
      documentAfter(queued, uploaded(NOW + 20 * HOUR)),
      NO_RUN_FACTS,
      'record:create_attempted',
    ],
    [
      'upload of unknown lifetime is used',
      documentAfter(queued, uploaded()),
      NO_RUN_FACTS,
      'record:create_attempted',
    ],
    [
      'upload expired, no key',
      documentAfter(queued, uploaded(NOW - HOUR)),
      NO_RUN_FACTS,
      'record:upload_discarded',
    ],
    [
      'upload near its expiry, no key',
      documentAfter(queued, uploaded(NOW + 60_000)),
      NO_RUN_FACTS,
      'record:upload_discarded',
    ],
    [
      'key stored, no attempt yet: marker, then the call',
      documentAfter(queued, uploaded(NOW + HOUR), minted),
      NO_RUN_FACTS,
      'create+marker',
    ],
    [
      'key stored by an earlier version: an attempt may be in flight',
      documentAfter(queued, uploaded(NOW + HOUR), { ...minted, attemptsMarked: undefined } as BatchEvent),
      NO_RUN_FACTS,
      'create',
    ],
    [
      'attempt marked in flight',
      documentAfter(queued, uploaded(NOW + HOUR), minted, attempting),
      NO_RUN_FACTS,
      'create',
    ],
    [
      'key stored, upload expired: the key is used, never dropped',
      documentAfter(queued, uploaded(NOW - HOUR), minted),
      NO_RUN_FACTS,
      'create+marker',
    ],
    [
      'key settled after a definite answer',
      documentAfter(queued, uploaded(), minted, attempting, {
        type: 'create_attempt_settled',
        documentId: DOC,
      }),
      NO_RUN_FACTS,
      'create+marker',
    ],
    [
      'key unknown',
      documentAfter(queued, uploaded(), minted, attempting, unknownOutcome),
      NO_RUN_FACTS,
      'create+marker',
    ],
    [
      'request created, participant not marked',
      documentAfter(queued, uploaded(), minted, created),
      NO_RUN_FACTS,
      'add-participant+marker',
    ],
    [
      'participant marked',
      documentAfter(queued, uploaded(), minted, created, {
        type: 'participant_attempted',
        documentId: DOC,
        index: 0,
      }),
      NO_RUN_FACTS,
      'add-participant',
    ],
    [
      'participant added',
      documentAfter(queued, uploaded(), minted, created, {
        type: 'participant_added',
        documentId: DOC,
        index: 0,
        participantId: 'par_1',
      }),
      NO_RUN_FACTS,
      'prepare',
    ],
    [
      'needs check',
      documentAfter(queued, uploaded(), minted, attempting, unknownOutcome, {
        type: 'check_needed',
        documentId: DOC,
        reason: 'key_refused',
      }),
      NO_RUN_FACTS,
      'finished:needs_check',
    ],
    [
      'failed',
      documentAfter(queued, {
        type: 'item_failed',
        documentId: DOC,
        error: { code: 'invalid_pdf', message: 'm', retryable: false, at: '' },
      }),
      NO_RUN_FACTS,
      'finished:failed',
    ],
    [
      'prepared',
      documentAfter(queued, uploaded(), minted, created, {
        type: 'request_prepared',
        documentId: DOC,
        revision: 1,
        sha256: 'x',
        alreadyPrepared: false,
      }),
      NO_RUN_FACTS,
      'finished:prepared',
    ],
  ];
  it.each(rows)('%s → %s', (_name, document, facts, expected) => {
    const step = nextStep(document, facts, context);
    const described =
      step.kind === 'finished'
        ? `finished:${step.why}`
        : step.kind === 'record'
          ? `record:${step.events.map((event) => event.type).join('+')}`
          : (step.kind === 'create' || step.kind === 'add-participant') && step.marker.length > 0
            ? `${step.kind}+marker`
            : step.kind;
    expect(described).toBe(expected);
  });

  it('never mints a key from an upload of another PDF than the document now has', () => {
    const replaced = { ...documentAfter(queued, uploaded(NOW + HOUR)) };
    const changed: DocumentState = {
      ...replaced,
      draft: { ...replaced.draft, pdf: { ...replaced.draft.pdf, sha256: 'b'.repeat(64) } },
    };
    expect(nextStep(changed, NO_RUN_FACTS, context)).toEqual({
      kind: 'record',
      events: [{ type: 'upload_discarded', documentId: DOC, reason: 'pdf_changed' }],
    });
  });

  it('stores a participant marker alone, right before its call, never with another record', () => {
    const step = nextStep(documentAfter(queued, uploaded(), minted, created), NO_RUN_FACTS, context);
    expect(step).toMatchObject({ kind: 'add-participant', index: 0, marker: [participantAttempting] });
  });

  it('marks a creation attempt right before it leaves, with the stored key and body', () => {
    const step = nextStep(documentAfter(queued, uploaded(), minted), NO_RUN_FACTS, context);
    expect(step).toEqual({
      kind: 'create',
      key: 'key-1',
      body: (minted as Extract<BatchEvent, { type: 'create_attempted' }>).body,
      marker: [attempting],
    });
  });
});

describe('the data folder is asked before a key is made (held elsewhere)', () => {
  const holder = {
    batchId: 'other',
    batchName: 'Sent - Batch',
    documentId: 'doc-9',
    fileName: 'offer.pdf',
    requestId: 'sr_1',
    claimed: false,
  };
  const held: StepContext = { ...context, holdersOf: () => [holder] };
  const expectHeld = (events: readonly BatchEvent[]) =>
    expect(events.at(-1)).toEqual({
      type: 'check_needed',
      documentId: DOC,
      reason: 'held_elsewhere',
      holder: {
        batchId: 'other',
        batchName: 'Sent - Batch',
        documentId: 'doc-9',
        fileName: 'offer.pdf',
        requestId: 'sr_1',
      },
    });

  it('holds a document back before anything is uploaded for it', () => {
    const step = nextStep(documentAfter(queued), NO_RUN_FACTS, held);
    expect(step.kind).toBe('record');
    expectHeld(step.kind === 'record' ? step.events : []);
  });

  it('holds it back when its key would be made from an upload it has', () => {
    const step = nextStep(documentAfter(queued, uploaded()), NO_RUN_FACTS, held);
    expect(step.kind === 'record' && step.events.map((event) => event.type)).toEqual(['check_needed']);
  });

  it('holds it back when its upload is answered, keeping the upload', () => {
    const document = documentAfter(queued);
    const upload: Upload = {
      upload_id: 'upl_2',
      filename: 'a.pdf',
      sha256: SHA,
      size_bytes: 10,
      expires_in_hours: 24,
    };
    const decision = decideUpload(
      document,
      { kind: 'upload', startedAt: NOW, sha256: SHA },
      { kind: 'applied', value: upload },
      held,
    );
    expect(summary(decision.events)).toEqual(['upload_completed', 'check_needed:held_elsewhere']);
    expectHeld(decision.events);
  });

  it("never asks again about a key already made: it is the document's own", () => {
    const step = nextStep(documentAfter(queued, uploaded(), minted), NO_RUN_FACTS, held);
    expect(step.kind).toBe('create');
  });

  it('lets it go once the user chose to send it anew on purpose', () => {
    const accepted: BatchEvent = { type: 'reference_reuse_accepted', documentId: DOC, generation: 1 };
    expect(nextStep(documentAfter(accepted, queued), NO_RUN_FACTS, held).kind).toBe('upload');
    const minting = nextStep(documentAfter(accepted, queued, uploaded()), NO_RUN_FACTS, {
      ...held,
      keyFor: (document) => `key-of-generation-${document.send.generation}`,
    });
    expect(minting.kind === 'record' && minting.events[0]).toMatchObject({
      type: 'create_attempted',
      idempotencyKey: 'key-of-generation-1',
    });
  });
});

describe('decideCreation', () => {
  const fresh = documentAfter(queued, uploaded(NOW + 20 * HOUR), minted, attempting);
  const afterUnknown = documentAfter(
    queued,
    uploaded(NOW + 20 * HOUR),
    minted,
    attempting,
    unknownOutcome,
    restarted,
  );
  const expiredUpload = documentAfter(queued, uploaded(NOW - HOUR), minted, attempting);
  const answeredWithoutId = documentAfter(
    queued,
    uploaded(NOW + 20 * HOUR),
    minted,
    attempting,
    { type: 'create_answered_without_id', documentId: DOC },
    attempting,
  );
  const applied = (value: Partial<CreationAnswer>): Answer<CreationAnswer> => ({
    kind: 'applied',
    value: { id: 'sr_9', replayed: false, earlierAttemptUnknown: false, locationId: undefined, ...value },
  });
  const uploadExpired = {
    httpStatus: 422,
    code: 'upload_expired',
    serviceMessage: 'document.upload_id: expired',
  };
  const invalidUpload = { httpStatus: 422, code: 'invalid_upload' };
  const recipientsRefused = {
    httpStatus: 422,
    code: 'invalid_signing_request',
    serviceMessage: 'recipients[0].email: invalid',
  };
  type Row = [string, DocumentState, Answer<CreationAnswer>, RunFacts, string[], string];
  const rows: Row[] = [
    ['fresh key, created', fresh, applied({}), NO_RUN_FACTS, ['request_created'], 'continue'],
    [
      'fresh key, a replay: no attempt of this document can have made it, the contract came from elsewhere',
      fresh,
      applied({ replayed: true }),
      NO_RUN_FACTS,
      ['check_needed:held_at_service'],
      'stop',
    ],
    [
      'fresh key, replay not said',
      fresh,
      applied({ replayed: undefined }),
      NO_RUN_FACTS,
      ['request_created'],
      'continue',
    ],
    [
      'fresh key, 2xx without an id: the key is replayed to learn it',
      fresh,
      applied({ id: undefined }),
      NO_RUN_FACTS,
      ['create_answered_without_id'],
      'continue',
    ],
    [
      'answered without an id, the replay says it',
      answeredWithoutId,
      applied({ replayed: true }),
      NO_RUN_FACTS,
      ['request_created'],
      'continue',
    ],
    [
      'answered without an id, the replay does not say it either',
      answeredWithoutId,
      applied({ id: undefined, replayed: undefined }),
      NO_RUN_FACTS,
      ['check_needed:created_without_id'],
      'stop',
    ],
    [
      'answered without an id, then a new request: two exist',
      answeredWithoutId,
      applied({}),
      NO_RUN_FACTS,
      ['check_needed:new_request_after_unknown'],
      'stop',
    ],
    [
      'fresh key, created after an unknown attempt in the same call',
      fresh,
      applied({ earlierAttemptUnknown: true }),
      NO_RUN_FACTS,
      ['check_needed:new_request_after_unknown'],
      'stop',
    ],
    [
      'fresh key, replay after an unknown attempt in the same call',
      fresh,
      applied({ replayed: true, earlierAttemptUnknown: true }),
      NO_RUN_FACTS,
      ['request_created'],
      'continue',
    ],
    [
      'unknown key, a replay',
      afterUnknown,
      applied({ replayed: true }),
      NO_RUN_FACTS,
      ['request_created'],
      'continue',
    ],
    [
      'unknown key, a new request: the key was forgotten',
      afterUnknown,
      applied({}),
      NO_RUN_FACTS,
      ['check_needed:new_request_after_unknown'],
      'stop',
    ],
    [
      'unknown key, replay not said',
      afterUnknown,
      applied({ replayed: undefined }),
      NO_RUN_FACTS,
      ['check_needed:new_request_after_unknown'],
      'stop',
    ],
    [
      'fresh key, upload gone (code)',
      fresh,
      failed(uploadExpired),
      NO_RUN_FACTS,
      ['create_abandoned'],
      'continue',
    ],
    [
      'fresh key, upload gone (invalid_upload)',
      fresh,
      failed(invalidUpload),
      NO_RUN_FACTS,
      ['create_abandoned'],
      'continue',
    ],
    [
      'fresh key, upload gone (message names it)',
      fresh,
      failed({ httpStatus: 400, code: 'bad_request', serviceMessage: 'no such upload' }),
      NO_RUN_FACTS,
      ['create_abandoned'],
      'continue',
    ],
    [
      'fresh key, refusal after the upload expired here',
      expiredUpload,
      failed({ httpStatus: 422, code: 'rejected' }),
      NO_RUN_FACTS,
      ['create_abandoned'],
      'continue',
    ],
    [
      `fresh key, upload gone after ${MAX_REUPLOADS_PER_RUN} fresh uploads`,
      fresh,
      failed(uploadExpired),
      { reuploads: MAX_REUPLOADS_PER_RUN, uploadNotBefore: 0, keyInUse: 0, replayNotBefore: 0 },
      ['create_abandoned', 'item_failed'],
      'stop',
    ],
    [
      'fresh key, recipients refused',
      fresh,
      failed(recipientsRefused),
      NO_RUN_FACTS,
      ['create_abandoned:keepUpload', 'item_failed'],
      'stop',
    ],
    [
      'fresh key, refused by a gateway 404 (retryable)',
      fresh,
      failed({ httpStatus: 404, code: 'gateway_not_found', retryable: true }),
      NO_RUN_FACTS,
      ['create_attempt_settled'],
      'wait',
    ],
    [
      'fresh key, 503',
      fresh,
      failed({ httpStatus: 503, code: 'upstream_unavailable', retryable: true }),
      NO_RUN_FACTS,
      ['create_attempt_settled'],
      'wait',
    ],
    [
      'fresh key, refused connection',
      fresh,
      failed({ code: 'network_unreachable', retryable: true }),
      NO_RUN_FACTS,
      ['create_attempt_settled'],
      'wait',
    ],
    [
      'fresh key, no answer',
      fresh,
      failed({ code: 'timeout', retryable: true, outcomeUnknown: true }),
      NO_RUN_FACTS,
      ['create_outcome_unknown:no_answer'],
      'wait',
    ],
    [
      'fresh key, 502 after sending',
      fresh,
      failed({ httpStatus: 502, code: 'service_error', retryable: true, outcomeUnknown: true }),
      NO_RUN_FACTS,
      ['create_outcome_unknown:server_error'],
      'wait',
    ],
    [
      'fresh key, 409: still being processed',
      fresh,
      failed({ httpStatus: 409, code: 'conflict' }),
      NO_RUN_FACTS,
      ['create_outcome_unknown:key_in_use'],
      'wait',
    ],
    [
      'fresh key, 409: reused with another body (the contract came from elsewhere)',
      fresh,
      failed({ httpStatus: 409, code: 'idempotency_key_reused' }),
      NO_RUN_FACTS,
      ['check_needed:held_at_service'],
      'stop',
    ],
    [
      "fresh key, Stripe's 400 idempotency_error",
      fresh,
      failed({ httpStatus: 400, code: 'idempotency_error' }),
      NO_RUN_FACTS,
      ['check_needed:held_at_service'],
      'stop',
    ],
    [
      "fresh key, the IETF draft's 422 for another body",
      fresh,
      failed({ httpStatus: 422, code: 'idempotency_key_mismatch' }),
      NO_RUN_FACTS,
      ['check_needed:held_at_service'],
      'stop',
    ],
    [
      'fresh key, a key the service finds malformed is not a key it holds',
      fresh,
      failed({ httpStatus: 400, code: 'invalid_idempotency_key' }),
      NO_RUN_FACTS,
      ['create_abandoned:keepUpload', 'item_failed'],
      'stop',
    ],
    [
      'fresh key, refused after an unknown attempt in the same call',
      fresh,
      failed({ ...uploadExpired, outcomeUnknown: true }),
      NO_RUN_FACTS,
      // The attempt that may have been applied is on record, not only in the question.
      ['create_outcome_unknown:no_answer', 'check_needed:key_refused'],
      'stop',
    ],
    [
      'unknown key, upload gone',
      afterUnknown,
      failed(uploadExpired),
      NO_RUN_FACTS,
      ['check_needed:key_refused'],
      'stop',
    ],
    [
      'unknown key, a gateway 404 with a service body',
      afterUnknown,
      failed({ httpStatus: 404, code: 'not_found' }),
      NO_RUN_FACTS,
      ['check_needed:key_refused'],
      'stop',
    ],
    [
      'unknown key, recipients refused',
      afterUnknown,
      failed(recipientsRefused),
      NO_RUN_FACTS,
      ['check_needed:key_refused'],
      'stop',
    ],
    [
      'unknown key, 503',
      afterUnknown,
      failed({ httpStatus: 503, code: 'upstream_unavailable', retryable: true }),
      NO_RUN_FACTS,
      ['create_attempt_settled'],
      'wait',
    ],
    [
      'fresh key, credentials rejected',
      fresh,
      failed({ httpStatus: 401, code: 'credentials_rejected' }),
      NO_RUN_FACTS,
      ['create_attempt_settled'],
      'fatal',
    ],
    [
      'fresh key, credentials rejected after an unknown attempt',
      fresh,
      failed({ httpStatus: 401, code: 'credentials_rejected', outcomeUnknown: true }),
      NO_RUN_FACTS,
      ['create_outcome_unknown:no_answer'],
      'fatal',
    ],
    [
      'fresh key, stopped in flight',
      fresh,
      { kind: 'interrupted', left: true },
      NO_RUN_FACTS,
      ['create_outcome_unknown:interrupted'],
      'stop',
    ],
    [
      'fresh key, stopped before it left',
      fresh,
      { kind: 'interrupted', left: false },
      NO_RUN_FACTS,
      ['create_attempt_settled'],
      'stop',
    ],
  ];
  it.each(rows)('%s', (_name, document, answer, facts, events, next) => {
    const create = document.send.create;
    if (!create) throw new Error('no key');
    const decision = decideCreation(document, create, answer, facts, context);
    expect(summary(decision.events)).toEqual(events);
    expect(decision.next).toBe(next);
  });

  it('never replays a key answered without an id once the service may have forgotten it: that would make a second request', () => {
    // The key was stored an hour before NOW; the service is assumed to keep it an hour.
    const waiting = documentAfter(queued, uploaded(NOW + 20 * HOUR), minted, attempting, {
      type: 'create_answered_without_id',
      documentId: DOC,
    });
    expect(nextStep(waiting, NO_RUN_FACTS, context)).toEqual({
      kind: 'record',
      events: [{ type: 'check_needed', documentId: DOC, reason: 'created_without_id' }],
    });
    expect(nextStep(waiting, NO_RUN_FACTS, { ...context, keyRetentionMs: 2 * HOUR }).kind).toBe('create');
    // Its words are true on this path, where the app did not ask the service again.
    const step = nextStep(waiting, NO_RUN_FACTS, context);
    const checked = documentAfter(
      queued,
      uploaded(NOW + 20 * HOUR),
      minted,
      attempting,
      { type: 'create_answered_without_id', documentId: DOC },
      ...(step.kind === 'record' ? step.events : []),
    );
    const words = checkExplanation(checked);
    expect(words).toContain('did not say its id');
    expect(words).not.toContain('asked again');
    expect(words).toContain('safe only while it still keeps the request');
  });

  it('a key answered without an id after a lost answer, beyond the retention: two may exist, and the person is told so', () => {
    // The bare answer was a new request that came too late to prove the first attempt created nothing.
    const twoMayExist = documentAfter(queued, uploaded(NOW + 20 * HOUR), minted, attempting, unknownOutcome, {
      type: 'create_answered_without_id',
      documentId: DOC,
      twoMayExist: true,
    });
    const expected: BatchEvent[] = [
      { type: 'check_needed', documentId: DOC, reason: 'new_request_after_unknown' },
    ];
    expect(nextStep(twoMayExist, NO_RUN_FACTS, context)).toEqual({ kind: 'record', events: expected });
    // Within the retention the replay that tells the id answers without one again: the same.
    const replayedBare = decideCreation(
      twoMayExist,
      twoMayExist.send.create!,
      applied({ id: undefined }),
      NO_RUN_FACTS,
      { ...context, keyRetentionMs: 2 * HOUR },
    );
    expect(replayedBare.events).toEqual(expected);
    const checked = documentAfter(
      queued,
      uploaded(NOW + 20 * HOUR),
      minted,
      attempting,
      unknownOutcome,
      { type: 'create_answered_without_id', documentId: DOC, twoMayExist: true },
      ...expected,
    );
    expect(checkExplanation(checked)).toContain('REF-1 may now have two signing requests at the service.');
  });

  it('replays a key answered without an id a moment later, not at once', () => {
    const decision = decideCreation(
      fresh,
      fresh.send.create!,
      applied({ id: undefined }),
      NO_RUN_FACTS,
      context,
    );
    expect(decision.facts?.replayNotBefore).toBe(NOW + REPLAY_FOR_ID_AFTER_MS);
    const waiting = documentAfter(queued, uploaded(NOW + 20 * HOUR), minted, attempting, {
      type: 'create_answered_without_id',
      documentId: DOC,
    });
    // Within the time the service keeps keys (the key was stored an hour ago).
    const within: StepContext = { ...context, keyRetentionMs: 2 * HOUR };
    expect(nextStep(waiting, decision.facts!, within)).toEqual({
      kind: 'wait',
      until: NOW + REPLAY_FOR_ID_AFTER_MS,
    });
    expect(
      nextStep(waiting, decision.facts!, { ...within, now: NOW + REPLAY_FOR_ID_AFTER_MS }),
    ).toMatchObject({
      kind: 'create',
      key: 'key-1',
    });
  });

  it('an answer without an id after an attempt of unknown outcome, beyond the retention, may be a second request: its replay asks the user', () => {
    const bare = decideCreation(
      afterUnknown,
      afterUnknown.send.create!,
      applied({ id: undefined }),
      NO_RUN_FACTS,
      context,
    );
    expect(bare.events).toEqual([{ type: 'create_answered_without_id', documentId: DOC, twoMayExist: true }]);
    const replaying = documentAfter(
      queued,
      uploaded(NOW + 20 * HOUR),
      minted,
      attempting,
      unknownOutcome,
      restarted,
      ...bare.events,
      attempting,
    );
    const replay = decideCreation(
      replaying,
      replaying.send.create!,
      applied({ replayed: true }),
      NO_RUN_FACTS,
      context,
    );
    expect(summary(replay.events)).toEqual(['check_needed:new_request_after_unknown']);
    // Within the retention, the same answers are the one request.
    const within: StepContext = { ...context, keyRetentionMs: 2 * HOUR };
    const calm = decideCreation(
      afterUnknown,
      afterUnknown.send.create!,
      applied({ id: undefined }),
      NO_RUN_FACTS,
      within,
    );
    expect(calm.events).toEqual([{ type: 'create_answered_without_id', documentId: DOC }]);
  });

  describe('a new request after an attempt of unknown outcome, and the key retention', () => {
    // The key was stored an hour before NOW (documentAfter's clock).
    const retention = (ms: number): StepContext => ({ ...context, keyRetentionMs: ms });
    it.each([
      [
        'within the retention: the service would have replayed, so it is the only one',
        2 * HOUR,
        ['request_created'],
      ],
      ['exactly at the retention: it may have forgotten', HOUR, ['check_needed:new_request_after_unknown']],
      ['beyond the retention', HOUR - 1, ['check_needed:new_request_after_unknown']],
    ] as const)('%s', (_name, retentionMs, events) => {
      for (const answer of [applied({}), applied({ replayed: undefined })]) {
        const decision = decideCreation(
          afterUnknown,
          afterUnknown.send.create!,
          answer,
          NO_RUN_FACTS,
          retention(retentionMs),
        );
        expect(summary(decision.events)).toEqual(events);
      }
      const sameCall = decideCreation(
        fresh,
        fresh.send.create!,
        applied({ earlierAttemptUnknown: true }),
        NO_RUN_FACTS,
        retention(retentionMs),
      );
      expect(summary(sameCall.events)).toEqual(events);
    });

    it("judged on the service's clock too: this computer's says within, the service's says beyond", () => {
      const serviceFirstAt = NOW - HOUR;
      const keyed = documentAfter(
        queued,
        uploaded(NOW + 20 * HOUR),
        { ...(minted as Extract<BatchEvent, { type: 'create_attempted' }>), serviceFirstAt },
        attempting,
        unknownOutcome,
        restarted,
      );
      const within = retention(2 * HOUR);
      const agree = decideCreation(
        keyed,
        keyed.send.create!,
        applied({ serviceTime: NOW }),
        NO_RUN_FACTS,
        within,
      );
      expect(summary(agree.events)).toEqual(['request_created']);
      // The service says three hours passed (this computer's clock was wrong at one end).
      const differ = decideCreation(
        keyed,
        keyed.send.create!,
        applied({ serviceTime: serviceFirstAt + 3 * HOUR }),
        NO_RUN_FACTS,
        within,
      );
      expect(summary(differ.events)).toEqual(['check_needed:new_request_after_unknown']);
    });

    it('a clock set back before the first attempt proves nothing', () => {
      const decision = decideCreation(afterUnknown, afterUnknown.send.create!, applied({}), NO_RUN_FACTS, {
        ...retention(2 * HOUR),
        now: NOW - 2 * HOUR,
      });
      expect(summary(decision.events)).toEqual(['check_needed:new_request_after_unknown']);
    });

    it('a refusal proves nothing, within the retention or not', () => {
      const decision = decideCreation(
        afterUnknown,
        afterUnknown.send.create!,
        failed(uploadExpired),
        NO_RUN_FACTS,
        retention(2 * HOUR),
      );
      expect(summary(decision.events)).toEqual(['check_needed:key_refused']);
    });
  });

  it('backs off before a fresh upload, doubling, and counts it against the run', () => {
    const first = decideCreation(fresh, fresh.send.create!, failed(uploadExpired), NO_RUN_FACTS, context);
    expect(first.facts).toEqual({
      reuploads: 1,
      uploadNotBefore: NOW + 2_000,
      keyInUse: 0,
      replayNotBefore: 0,
    });
    const second = decideCreation(fresh, fresh.send.create!, failed(uploadExpired), first.facts!, context);
    expect(second.facts).toEqual({
      reuploads: 2,
      uploadNotBefore: NOW + 4_000,
      keyInUse: 0,
      replayNotBefore: 0,
    });
  });

  it(`waits on a 409 ${MAX_KEY_IN_USE_PER_RUN} times in a run, then asks the user instead of waiting forever`, () => {
    let facts: RunFacts = NO_RUN_FACTS;
    const conflict = failed({ httpStatus: 409, code: 'duplicate_reference', serviceMessage: 'already used' });
    for (let round = 1; round <= MAX_KEY_IN_USE_PER_RUN; round += 1) {
      const decision = decideCreation(fresh, fresh.send.create!, conflict, facts, context);
      expect(summary(decision.events)).toEqual(['create_outcome_unknown:key_in_use']);
      expect(decision.next).toBe('wait');
      facts = decision.facts!;
    }
    const last = decideCreation(fresh, fresh.send.create!, conflict, facts, context);
    expect(summary(last.events)).toEqual(['check_needed:key_refused']);
    expect(last.events[0]).toMatchObject({ code: 'duplicate_reference', serviceMessage: 'already used' });
    expect(last.next).toBe('stop');
  });

  it("fails with the service's own reason once the fresh uploads are spent", () => {
    const decision = decideCreation(
      fresh,
      fresh.send.create!,
      failed(uploadExpired),
      { reuploads: MAX_REUPLOADS_PER_RUN, uploadNotBefore: 0, keyInUse: 0, replayNotBefore: 0 },
      context,
    );
    const failure = decision.events.find((event) => event.type === 'item_failed');
    expect(failure?.type === 'item_failed' && failure.error.message).toContain('upload_expired');
    expect(failure?.type === 'item_failed' && failure.error.message).toContain('document.upload_id: expired');
  });
});

describe('decideParticipant', () => {
  const marked = documentAfter(queued, uploaded(), minted, created, {
    type: 'participant_attempted',
    documentId: DOC,
    index: 0,
  });
  const afterUnknown = documentAfter(
    queued,
    uploaded(),
    minted,
    created,
    { type: 'participant_attempted', documentId: DOC, index: 0 },
    { type: 'participant_outcome_unknown', documentId: DOC, index: 0, cause: 'interrupted' },
    { type: 'participant_attempted', documentId: DOC, index: 0 },
  );
  const conflict = { httpStatus: 409, code: 'participant_conflict', operation: 'addParticipant' as const };
  type Row = [string, DocumentState, Answer<{ participantId: string | undefined }>, string[], string];
  const rows: Row[] = [
    [
      'first attempt, added',
      marked,
      { kind: 'applied', value: { participantId: 'par_2' } },
      ['participant_added'],
      'continue',
    ],
    [
      'first attempt, added (no body)',
      marked,
      { kind: 'applied', value: { participantId: undefined } },
      ['participant_added'],
      'continue',
    ],
    [
      'first attempt, conflict: a real conflict',
      marked,
      failed(conflict),
      ['participant_attempt_settled', 'item_failed'],
      'stop',
    ],
    [
      'after an unknown outcome, conflict: already there',
      afterUnknown,
      failed(conflict),
      ['participant_added:alreadyThere'],
      'continue',
    ],
    [
      'conflict after an unknown attempt in the same call',
      marked,
      failed({ ...conflict, outcomeUnknown: true }),
      ['participant_added:alreadyThere'],
      'continue',
    ],
    [
      'first attempt, 503',
      marked,
      failed({ httpStatus: 503, code: 'upstream_unavailable', retryable: true }),
      ['participant_attempt_settled'],
      'wait',
    ],
    [
      'first attempt, no answer',
      marked,
      failed({ code: 'timeout', retryable: true, outcomeUnknown: true }),
      ['participant_outcome_unknown:no_answer'],
      'wait',
    ],
    [
      'request gone',
      marked,
      failed({ httpStatus: 404, code: 'signing_request_not_found' }),
      ['participant_attempt_settled', 'item_failed'],
      'stop',
    ],
    [
      'refused',
      marked,
      failed({ httpStatus: 422, code: 'invalid_participant_request' }),
      ['participant_attempt_settled', 'item_failed'],
      'stop',
    ],
    [
      'credentials rejected',
      marked,
      failed({ httpStatus: 401, code: 'credentials_rejected' }),
      ['participant_attempt_settled'],
      'fatal',
    ],
    [
      'stopped in flight',
      marked,
      { kind: 'interrupted', left: true },
      ['participant_outcome_unknown:interrupted'],
      'stop',
    ],
    [
      'stopped before it left',
      marked,
      { kind: 'interrupted', left: false },
      ['participant_attempt_settled'],
      'stop',
    ],
  ];
  it.each(rows)('%s', (_name, document, answer, events, next) => {
    const decision = decideParticipant(document, 0, answer, context);
    expect(summary(decision.events)).toEqual(events);
    expect(decision.next).toBe(next);
  });
});

describe('decideUpload and decidePrepare', () => {
  const ready = documentAfter(queued);
  const upload = (hours: number | undefined, sha256 = SHA): Answer<Upload> => ({
    kind: 'applied',
    value: { upload_id: 'upl_2', filename: 'a.pdf', sha256, size_bytes: 10, expires_in_hours: hours },
  });
  it('stores the upload with its expiry and a new key together', () => {
    const decision = decideUpload(
      ready,
      { kind: 'upload', startedAt: NOW, sha256: SHA },
      upload(24),
      context,
    );
    expect(summary(decision.events)).toEqual(['upload_completed', 'create_attempted']);
    expect(decision.events[0]).toMatchObject({ expiresAt: NOW + 24 * HOUR });
    expect(decision.next).toBe('continue');
  });
  it('does not use an upload of the PDF the document had before it was replaced during the upload', () => {
    const replaced: DocumentState = {
      ...ready,
      draft: { ...ready.draft, pdf: { ...ready.draft.pdf, sha256: 'c'.repeat(64) } },
    };
    const decision = decideUpload(
      replaced,
      { kind: 'upload', startedAt: NOW, sha256: SHA },
      upload(24),
      context,
    );
    expect(decision).toEqual({ events: [], next: 'continue' });
  });

  it('keeps an upload of unknown lifetime without an expiry', () => {
    const decision = decideUpload(
      ready,
      { kind: 'upload', startedAt: NOW, sha256: SHA },
      upload(undefined),
      context,
    );
    expect(decision.events[0]).not.toHaveProperty('expiresAt');
  });
  it.each([
    ['digest differs', upload(24, 'b'.repeat(64)), ['item_failed'], 'stop'],
    ['503', failed({ httpStatus: 503, code: 'upstream_unavailable', retryable: true }), [], 'wait'],
    ['no answer', failed({ code: 'timeout', retryable: true, outcomeUnknown: true }), [], 'wait'],
    ['refused', failed({ httpStatus: 422, code: 'invalid_pdf' }), ['item_failed'], 'stop'],
    ['credentials rejected', failed({ httpStatus: 401, code: 'credentials_rejected' }), [], 'fatal'],
  ] as const)('upload: %s', (_name, answer, events, next) => {
    const decision = decideUpload(ready, { kind: 'upload', startedAt: NOW, sha256: SHA }, answer, context);
    expect(summary(decision.events)).toEqual(events);
    expect(decision.next).toBe(next);
  });

  const toPrepare = documentAfter(queued, uploaded(), minted, created);
  const prepared = (value: Partial<PrepareOutcome>): Answer<PrepareOutcome> => ({
    kind: 'applied',
    value: { alreadyPrepared: false, revision: 1, sha256: 'x', ...value },
  });
  it.each([
    ['applied', prepared({}), ['request_prepared'], 'stop'],
    [
      'applied without revision or digest',
      prepared({ revision: undefined, sha256: undefined }),
      ['request_prepared'],
      'stop',
    ],
    ['already prepared by a lost attempt', prepared({ alreadyPrepared: true }), ['request_prepared'], 'stop'],
    ['503', failed({ httpStatus: 503, code: 'upstream_unavailable', retryable: true }), [], 'wait'],
    ['no answer', failed({ code: 'timeout', retryable: true, outcomeUnknown: true }), [], 'wait'],
    ['gone', failed({ httpStatus: 404, code: 'signing_request_not_found' }), ['item_failed'], 'stop'],
    ['refused', failed({ httpStatus: 409, code: 'prepare_conflict' }), ['item_failed'], 'stop'],
    ['credentials rejected', failed({ httpStatus: 401, code: 'credentials_rejected' }), [], 'fatal'],
  ] as const)('prepare: %s', (_name, answer, events, next) => {
    const decision = decidePrepare(toPrepare, answer, context);
    expect(summary(decision.events)).toEqual(events);
    expect(decision.next).toBe(next);
  });
});

describe('failureKind and interrupted attempts', () => {
  it.each([
    [{ code: 'credentials_rejected', httpStatus: 401 }, 'fatal'],
    [{ code: 'timeout', retryable: true, outcomeUnknown: true }, 'unknown'],
    [{ code: 'signing_request_not_found', httpStatus: 404 }, 'gone'],
    [{ code: 'upstream_unavailable', httpStatus: 503, retryable: true }, 'transient'],
    [{ code: 'invalid_signing_request', httpStatus: 422 }, 'refused'],
  ] as const)('%o is %s', (fields, kind) => {
    expect(failureKind(failure(fields))).toBe(kind);
  });

  it('turns attempts left in flight by a crash or a pause into unknown outcomes at the next start', () => {
    const creating = documentAfter(queued, uploaded(), minted, attempting);
    const adding = documentAfter(queued, uploaded(), minted, created, participantAttempting);
    const settled = documentAfter(queued, uploaded(), minted, attempting, {
      type: 'create_attempt_settled',
      documentId: DOC,
    });
    const keyOnly = documentAfter(queued, uploaded(), minted);
    const batch = (document: DocumentState) => ({ ...emptyBatch('b'), documents: [document] });
    expect(summary(interruptedAttempts(batch(creating)))).toEqual(['create_outcome_unknown:interrupted']);
    expect(summary(interruptedAttempts(batch(adding)))).toEqual(['participant_outcome_unknown:interrupted']);
    expect(interruptedAttempts(batch(settled))).toEqual([]);
    // A key stored while no attempt left yet (stopped while waiting for a call slot) is not unknown.
    expect(interruptedAttempts(batch(keyOnly))).toEqual([]);
  });
});
