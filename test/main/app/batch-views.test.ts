import { describe, expect, it } from 'vitest';
import { countsOf, documentViewOf } from '../../../main/app/batch-views';
import { sentCount } from '../../../shared/domain/document-counts';
import type { BatchEvent } from '../../../main/domain/batch-events';
import { applyBatchEvent, emptyBatch } from '../../../main/domain/apply-batch-event';
import type { BatchState } from '../../../main/domain/batch-state';
import type { TrackedStatus } from '../../../shared/domain/batch';

/** Batches built by folding real journal events, as main reads them from disk. */
const PREPARED_AT = '2026-11-23T10:05:00.000Z';

function batchAfter(documentIds: readonly string[], ...events: [BatchEvent, string?][]): BatchState {
  const all: [BatchEvent, string?][] = [
    [{ type: 'batch_created', batchId: 'b', name: 'B', defaults: { defaultRecipients: [] } }],
    ...documentIds.map((id): [BatchEvent] => [
      {
        type: 'document_added',
        document: {
          id,
          externalReference: `REF-${id}`,
          pdf: { originalName: 'a.pdf', storedFilename: `${id}.pdf`, sizeBytes: 10, sha256: 'a'.repeat(64) },
          recipients: [
            { participant_type: 'signer', role: 'Employee', name: 'Anne', email: 'anne@example.com' },
          ],
          extraParticipants: [],
          options: {},
        },
      },
    ]),
    ...events,
  ];
  return all.reduce(
    (batch, [event, at], index) =>
      applyBatchEvent(batch, { seq: index + 1, at: at ?? '2026-11-23T10:00:00.000Z', event }),
    emptyBatch('b'),
  );
}

const created = (documentId: string): [BatchEvent] => [
  { type: 'request_created', documentId, requestId: `sr_${documentId}`, replayed: false },
];
const prepared = (documentId: string): [BatchEvent, string] => [
  { type: 'request_prepared', documentId, revision: 1, sha256: 'b'.repeat(64), alreadyPrepared: false },
  PREPARED_AT,
];
const status = (documentId: string, value: string, extra: Partial<TrackedStatus> = {}): [BatchEvent] => [
  {
    type: 'status_read',
    documentId,
    status: {
      status: value,
      evidenceReady: false,
      readAt: '2026-11-23T11:00:00.000Z',
      final: false,
      preparedAt: undefined,
      openedAt: undefined,
      finalizedAt: undefined,
      documentStatus: undefined,
      ...extra,
    } as TrackedStatus,
  },
];

describe('countsOf: the batch counts from the one classification', () => {
  it('counts each document in its one group: sent all the way only once prepared at its service', () => {
    const batch = batchAfter(
      ['1', '2', '3', '4', '5'],
      [{ type: 'send_requested', documentIds: ['1', '2', '3', '4'] }],
      created('1'),
      prepared('1'),
      created('2'),
      prepared('2'),
      status('2', 'completed', { final: true, evidenceReady: true }),
      created('3'),
      created('4'),
      prepared('4'),
      [{ type: 'request_gone', documentId: '4' }],
    );
    // 1 waits for signatures, 2 is completed: sent. 3's request exists but is still being
    // prepared: sending, as its row and the filter say. 4 is gone from its service, 5 was never sent.
    expect(countsOf(batch)).toEqual({
      not_sent: 1,
      sending: 1,
      waiting: 1,
      unknown_status: 0,
      completed: 1,
      ended: 0,
      needs_check: 0,
      failed: 0,
      gone: 1,
    });
    expect(sentCount(countsOf(batch))).toBe(2);
  });

  it('counts requests that ended at their service, and those in a status not recognized, apart', () => {
    const batch = batchAfter(
      ['1', '2', '3'],
      [{ type: 'send_requested', documentIds: ['1', '2', '3'] }],
      created('1'),
      prepared('1'),
      status('1', 'declined', { final: true }),
      created('2'),
      prepared('2'),
      status('2', 'on_hold'),
      created('3'),
      prepared('3'),
      status('3', 'in_progress'),
    );
    expect(countsOf(batch)).toMatchObject({
      ended: 1,
      unknown_status: 1,
      waiting: 1,
      completed: 0,
      failed: 0,
    });
    expect(sentCount(countsOf(batch))).toBe(3);
    expect(batch.documents.map((document) => documentViewOf(batch, document).class)).toEqual([
      'ended',
      'unknown_status',
      'waiting',
    ]);
    // A request that ended cannot be signed; one in a status the app does not know may be: the service says.
    expect(batch.documents.map((document) => documentViewOf(batch, document).canOpenCeremony)).toEqual([
      false,
      true,
      true,
    ]);
  });
});

describe('documentViewOf: the timeline', () => {
  it('shows when the request was prepared right after sending, before its service was read', () => {
    const batch = batchAfter(
      ['1'],
      [{ type: 'send_requested', documentIds: ['1'] }],
      created('1'),
      prepared('1'),
    );
    expect(documentViewOf(batch, batch.documents[0]!).preparedAt).toBe(PREPARED_AT);
  });

  it("takes the service's own time once it was read", () => {
    const batch = batchAfter(
      ['1'],
      [{ type: 'send_requested', documentIds: ['1'] }],
      created('1'),
      prepared('1'),
      status('1', 'prepared', { preparedAt: '2026-11-23T10:04:59.000Z' }),
    );
    expect(documentViewOf(batch, batch.documents[0]!).preparedAt).toBe('2026-11-23T10:04:59.000Z');
  });

  it('has no prepared time for a document not prepared yet', () => {
    const batch = batchAfter(['1'], [{ type: 'send_requested', documentIds: ['1'] }], created('1'));
    expect(documentViewOf(batch, batch.documents[0]!).preparedAt).toBeUndefined();
  });
});
