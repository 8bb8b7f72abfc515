import { describe, expect, it } from 'vitest';
import type { BatchEvent } from '../../../main/domain/batch-events';
import { applyBatchEvent, emptyBatch } from '../../../main/domain/apply-batch-event';
import type { DocumentState } from '../../../main/domain/batch-state';
import { ceremonyRefusal, classOf, needsTracking } from '../../../main/domain/document-class';
import type { TrackedStatus } from '../../../shared/domain/batch';
import { createTranslator } from '../../../shared/i18n/translator';
import { serviceErrorCode } from '../../../shared/service/error-codes';

/** The one classification, from documents built by folding real journal events. */
const DOC = 'doc-1';

function documentAfter(...events: BatchEvent[]): DocumentState {
  const all: BatchEvent[] = [
    { type: 'batch_created', batchId: 'b', name: 'B', defaults: { defaultRecipients: [] } },
    {
      type: 'document_added',
      document: {
        id: DOC,
        externalReference: 'REF-1',
        pdf: { originalName: 'a.pdf', storedFilename: 'a.pdf', sizeBytes: 10, sha256: 'a'.repeat(64) },
        recipients: [
          { participant_type: 'signer', role: 'Employee', name: 'Anne', email: 'anne@example.com' },
        ],
        extraParticipants: [],
        options: {},
      },
    },
    ...events,
  ];
  const state = all.reduce(
    (batch, event, index) =>
      applyBatchEvent(batch, { seq: index + 1, at: '2026-11-23T10:00:00.000Z', event }),
    emptyBatch('b'),
  );
  return state.documents[0]!;
}

const queued: BatchEvent = { type: 'send_requested', documentIds: [DOC] };
const created: BatchEvent = { type: 'request_created', documentId: DOC, requestId: 'sr_1', replayed: false };
const prepared: BatchEvent = {
  type: 'request_prepared',
  documentId: DOC,
  revision: 1,
  sha256: 'b'.repeat(64),
  alreadyPrepared: false,
};
const status = (value: string, final: boolean): BatchEvent => ({
  type: 'status_read',
  documentId: DOC,
  status: { status: value, evidenceReady: final, readAt: '2026-11-23T10:00:00.000Z', final } as TrackedStatus,
});
const gone: BatchEvent = { type: 'request_gone', documentId: DOC };
const needsCheck: BatchEvent = {
  type: 'check_needed',
  documentId: DOC,
  reason: 'key_refused',
  code: serviceErrorCode('not_found'),
};
const linked = (participantsMayExist: boolean): BatchEvent => ({
  type: 'check_resolved_linked',
  documentId: DOC,
  requestId: 'sr_1',
  participantsMayExist,
});
const participantRefused: BatchEvent = {
  type: 'item_failed',
  documentId: DOC,
  error: {
    code: 'participant_conflict',
    message: 'refused',
    retryable: false,
    at: '2026-11-23T10:00:00.000Z',
  },
};

describe('classOf: the group a user thinks of a document in', () => {
  it.each<[string, BatchEvent[], string, boolean]>([
    ['never sent', [], 'not_sent', false],
    ['queued', [queued], 'sending', false],
    ['created, not prepared yet', [queued, created], 'sending', false],
    ['prepared', [queued, created, prepared], 'waiting', true],
    ['opened by a signer', [queued, created, prepared, status('in_progress', false)], 'waiting', true],
    ['completed, evidence ready', [queued, created, prepared, status('completed', true)], 'completed', false],
    ['gone', [queued, created, prepared, gone], 'gone', false],
    ['gone beats completed', [queued, created, prepared, status('completed', true), gone], 'gone', false],
    ['declined at the service', [queued, created, prepared, status('declined', false)], 'ended', false],
    ['declined, stored as final', [queued, created, prepared, status('declined', true)], 'ended', false],
    [
      'in a status the app does not know',
      [queued, created, prepared, status('on_hold', false)],
      'unknown_status',
      true,
    ],
    [
      'back in a known status',
      [queued, created, prepared, status('on_hold', false), status('in_progress', false)],
      'waiting',
      true,
    ],
    ['gone beats ended', [queued, created, prepared, status('expired', false), gone], 'gone', false],
    // Tracking follows the request, not the way it got there (README "Tracking politely").
    [
      'linked to a request already prepared, then its extra participant refused',
      [queued, needsCheck, linked(false), participantRefused],
      'waiting',
      true,
    ],
    [
      'linked to a request already prepared, refused, then read as declined',
      [queued, needsCheck, linked(false), participantRefused, status('declined', false)],
      'ended',
      false,
    ],
    [
      'linked to a request not prepared yet, then its extra participant refused',
      [queued, needsCheck, linked(true), participantRefused],
      'failed',
      false,
    ],
    [
      'found again after "Check again"',
      [queued, created, prepared, gone, { type: 'request_found', documentId: DOC }],
      'waiting',
      true,
    ],
    [
      'waiting for the user',
      [queued, { type: 'check_needed', documentId: DOC, reason: 'created_without_id' }],
      'needs_check',
      false,
    ],
    [
      'failed',
      [
        queued,
        {
          type: 'item_failed',
          documentId: DOC,
          error: {
            code: serviceErrorCode('x'),
            message: 'refused',
            retryable: false,
            at: '2026-11-23T10:00:00.000Z',
          },
        },
      ],
      'failed',
      false,
    ],
  ])('%s → %s (tracked: %s)', (_name, events, expected, tracked) => {
    const document = documentAfter(...events);
    expect(classOf(document)).toBe(expected);
    expect(needsTracking(document)).toBe(tracked);
  });
});

describe('ceremonyRefusal: whether a signing ceremony can open (the page and the handler both follow it)', () => {
  it.each<[string, BatchEvent[], string | undefined]>([
    ['never sent', [], 'not been prepared'],
    ['created, not prepared yet', [queued, created], 'not been prepared'],
    ['prepared', [queued, created, prepared], undefined],
    ['opened by a signer', [queued, created, prepared, status('in_progress', false)], undefined],
    [
      'signed, evidence not ready yet',
      [queued, created, prepared, status('completed', false)],
      'already signed',
    ],
    ['completed, evidence ready', [queued, created, prepared, status('completed', true)], 'already signed'],
    ['gone', [queued, created, prepared, gone], 'no longer knows'],
    [
      'ended at the service',
      [queued, created, prepared, status('cancelled', true)],
      'can no longer be signed',
    ],
    // The service knows whether its ceremony can open; it says so if not.
    ['in a status the app does not know', [queued, created, prepared, status('on_hold', false)], undefined],
    [
      'linked as prepared, a participant refused',
      [queued, needsCheck, linked(false), participantRefused],
      undefined,
    ],
  ])('%s → %s', (_name, events, refusal) => {
    const message = ceremonyRefusal(documentAfter(...events));
    const answer = message && createTranslator('en').t(message);
    if (refusal === undefined) expect(answer).toBeUndefined();
    else expect(answer).toContain(refusal);
  });
});
