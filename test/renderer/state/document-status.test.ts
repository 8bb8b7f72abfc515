import { describe, expect, it } from 'vitest';
import { documentClassSchema } from '../../../shared/domain/document-class';
import type { DocumentView } from '../../../shared/ipc/views';
import type { Participant } from '../../../shared/service/wire';
import {
  STATUS_FILTERS,
  batchProgress,
  countByBucket,
  documentProgress,
  filterDocuments,
  type StatusFilter,
} from '../../../renderer/src/state/document-status';
import type { Progress } from '../../../renderer/src/state/transitions';

type Tracking = NonNullable<DocumentView['tracking']>;

function person(name: string, email: string, overrides: Partial<Participant> = {}): Participant {
  return { participant_type: 'signer', role: 'Signer', name, email, ...overrides };
}

function tracking(status: string, final: boolean): Tracking {
  return { status, evidenceReady: final, readAt: '2026-11-22T10:00:00.000Z', final };
}

function document(id: string, overrides: Partial<DocumentView> = {}): DocumentView {
  // Everyone who receives it, as main lists them: its own recipients and its extra participants unless said.
  const people = overrides.people ?? [
    ...(overrides.recipients ?? []).map((participant) => ({ ...participant, source: 'document' as const })),
    ...(overrides.extraParticipants ?? []).map((participant) => ({
      ...participant,
      source: 'added' as const,
    })),
  ];
  return {
    id,
    externalReference: `REF-${id}`,
    originalName: `${id}.pdf`,
    storedFilename: `${id}.pdf`,
    sizeBytes: 1024,
    sha256: 'a'.repeat(64),
    recipients: [],
    extraParticipants: [],
    people,
    options: {},
    phase: 'draft',
    problems: [],
    locked: false,
    gone: false,
    canOpenCeremony: false,
    updatedAt: '2026-11-20T08:00:00.000Z',
    class: 'not_sent',
    ...overrides,
  };
}

const labelOf = (filter: StatusFilter): string | undefined =>
  STATUS_FILTERS.find((candidate) => candidate.value === filter)?.label;

describe('STATUS_FILTERS', () => {
  it.each(documentClassSchema.options)('has words for every class main sends: %s', (documentClass) => {
    expect(labelOf(documentClass)).toBeDefined();
  });

  it('offers "All" first, then each group once with the words a user reads', () => {
    expect(STATUS_FILTERS.map((filter) => [filter.value, filter.label])).toEqual([
      ['all', 'All'],
      ['not_sent', 'Not sent'],
      ['sending', 'Sending'],
      ['waiting', 'Waiting for signatures'],
      ['completed', 'Completed'],
      ['needs_check', 'Needs your check'],
      ['failed', 'Failed'],
      ['gone', 'No longer at the service'],
    ]);
  });
});

describe('documentProgress', () => {
  it('has no progress for a document not sent or failed', () => {
    expect(documentProgress(document('1', { phase: 'draft' }), undefined)).toBeUndefined();
    expect(documentProgress(document('1', { phase: 'failed' }), undefined)).toBeUndefined();
  });

  it('follows live progress over the stored phase', () => {
    expect(documentProgress(document('1', { phase: 'draft' }), { phase: 'creating' })).toBe(0.6);
    expect(documentProgress(document('1', { phase: 'uploading' }), { phase: 'failed' })).toBeUndefined();
  });

  it.each<[number, number, number]>([
    [0, 1024, 0],
    [512, 1024, 0.3],
    [256, 1024, 0.15],
    [1024, 1024, 0.6],
  ])('counts %i of %i uploaded bytes as %d', (sentBytes, totalBytes, expected) => {
    const live: Progress = { phase: 'uploading', sentBytes, totalBytes };
    expect(documentProgress(document('1', { phase: 'uploading' }), live)).toBeCloseTo(expected, 10);
  });

  it('never goes above the upload’s 60 % even when more bytes are reported than the file holds', () => {
    const live: Progress = { phase: 'uploading', sentBytes: 4096, totalBytes: 1024 };
    expect(documentProgress(document('1', { phase: 'uploading' }), live)).toBe(0.6);
  });

  it('counts an upload without byte counts as not started', () => {
    expect(documentProgress(document('1', { phase: 'uploading' }), { phase: 'uploading' })).toBe(0);
    expect(documentProgress(document('1', { phase: 'uploading' }), undefined)).toBe(0);
    expect(
      documentProgress(document('1', { phase: 'uploading' }), {
        phase: 'uploading',
        sentBytes: 0,
        totalBytes: 0,
      }),
    ).toBe(0);
  });

  it.each<[DocumentView['phase'], number]>([
    ['queued', 0],
    ['creating', 0.6],
    ['adding_participants', 0.75],
    ['preparing', 0.9],
    ['prepared', 1],
  ])('counts the step "%s" as %d', (phase, expected) => {
    expect(documentProgress(document('1', { phase }), undefined)).toBe(expected);
    expect(documentProgress(document('1', { phase: 'queued' }), { phase })).toBe(expected);
  });
});

describe('batchProgress', () => {
  it('counts sent documents and averages the progress of those in flight', () => {
    const documents = [
      document('1', { phase: 'prepared', class: 'waiting' }),
      document('2', { phase: 'prepared', class: 'completed', tracking: tracking('completed', true) }),
      document('3', { phase: 'uploading' }),
      document('4', { phase: 'adding_participants' }),
    ];
    const progress: Record<string, Progress> = {
      'b/3': { phase: 'uploading', sentBytes: 512, totalBytes: 1024 },
    };
    const result = batchProgress(documents, progress, 'b');
    expect(result).toMatchObject({ sent: 2, inScope: 4, total: 4 });
    expect(result.fraction).toBeCloseTo((1 + 1 + 0.3 + 0.75) / 4, 10);
  });

  it('leaves documents not sent and failed ones out of the bar, but counts them in the total', () => {
    const documents = [
      document('1', { phase: 'prepared', class: 'waiting' }),
      document('2', { phase: 'draft' }),
      document('3', { phase: 'failed' }),
      document('4', { phase: 'preparing' }),
      // Its service no longer knows it: main says so, whatever its phase.
      document('5', { phase: 'prepared', class: 'gone', gone: true }),
    ];
    const result = batchProgress(documents, {}, 'b');
    expect(result).toMatchObject({ sent: 1, inScope: 2, total: 5 });
    expect(result.fraction).toBeCloseTo((1 + 0.9) / 2, 10);
  });

  it('reads live progress of its own batch only', () => {
    const documents = [document('1', { phase: 'uploading' })];
    const progress: Record<string, Progress> = {
      'other/1': { phase: 'uploading', sentBytes: 1024, totalBytes: 1024 },
    };
    expect(batchProgress(documents, progress, 'b').fraction).toBe(0);
    expect(batchProgress(documents, progress, 'other').fraction).toBeCloseTo(0.6, 10);
  });

  it('is at 0 with nothing in scope', () => {
    expect(batchProgress([], {}, 'b')).toEqual({ sent: 0, inScope: 0, total: 0, fraction: 0 });
    expect(batchProgress([document('1'), document('2', { phase: 'failed' })], {}, 'b')).toEqual({
      sent: 0,
      inScope: 0,
      total: 2,
      fraction: 0,
    });
  });

  it('is full once every document in scope is sent', () => {
    const documents = [
      document('1', { phase: 'prepared', class: 'waiting' }),
      document('2', { phase: 'draft' }),
    ];
    expect(batchProgress(documents, {}, 'b')).toEqual({ sent: 1, inScope: 1, total: 2, fraction: 1 });
  });
});

describe('filterDocuments', () => {
  const anne = document('anne', {
    externalReference: 'CONTRAT-2026-001',
    storedFilename: 'bail_chateau.pdf',
    phase: 'prepared',
    class: 'waiting',
    recipients: [person('Anne Dupré', 'anne.dupre@example.fr')],
  });
  const bob = document('bob', {
    externalReference: 'Château Margaux',
    storedFilename: 'vente.pdf',
    phase: 'draft',
    class: 'not_sent',
    recipients: [person('Bob Martin', 'bob@example.com')],
    extraParticipants: [person('Zoë Notaire', 'office@notaires.example', { participant_type: 'observer' })],
  });
  const carl = document('carl', {
    externalReference: 'INV-77',
    storedFilename: 'invoice.pdf',
    phase: 'failed',
    class: 'failed',
    recipients: [person('Carl Svensson', 'carl@example.se')],
    people: [
      { ...person('Carl Svensson', 'carl@example.se'), source: 'document' },
      { ...person('Service paie', 'paie@example.com', { participant_type: 'observer' }), source: 'batch' },
    ],
  });
  const all = [anne, bob, carl];
  const ids = (documents: readonly DocumentView[]) => documents.map((candidate) => candidate.id);

  it('keeps every document with "All" and no search', () => {
    expect(ids(filterDocuments(all, 'all', ''))).toEqual(['anne', 'bob', 'carl']);
  });

  it('keeps only the documents of the chosen group', () => {
    expect(ids(filterDocuments(all, 'waiting', ''))).toEqual(['anne']);
    expect(ids(filterDocuments(all, 'not_sent', ''))).toEqual(['bob']);
    expect(ids(filterDocuments(all, 'failed', ''))).toEqual(['carl']);
    expect(ids(filterDocuments(all, 'completed', ''))).toEqual([]);
  });

  it.each<[string, string, string[]]>([
    ['a reference', 'inv-77', ['carl']],
    ['part of a reference', '2026', ['anne']],
    ['a file name', 'invoice.pdf', ['carl']],
    ['a recipient name', 'martin', ['bob']],
    ['a recipient e-mail', 'CARL@EXAMPLE', ['carl']],
    ['a name without its accent', 'dupre', ['anne']],
    ['a name with its accent', 'Dupré', ['anne']],
    ['upper case without accent', 'CHATEAU', ['anne', 'bob']],
    ['an extra participant’s name', 'zoe', ['bob']],
    ['an extra participant’s e-mail', 'notaires', ['bob']],
    ['a batch default recipient', 'paie', ['carl']],
    ['surrounding spaces', '  svensson  ', ['carl']],
    ['text nobody has', 'nothing-like-this', []],
  ])('finds documents by %s ("%s")', (_name, search, expected) => {
    expect(ids(filterDocuments(all, 'all', search))).toEqual(expected);
  });

  it('treats a search of spaces only as no search', () => {
    expect(ids(filterDocuments(all, 'all', '   '))).toEqual(['anne', 'bob', 'carl']);
  });

  it('applies the group and the search together', () => {
    expect(ids(filterDocuments(all, 'not_sent', 'chateau'))).toEqual(['bob']);
    expect(ids(filterDocuments(all, 'failed', 'chateau'))).toEqual([]);
  });
});

describe('countByBucket', () => {
  it('counts each group and the total', () => {
    const documents = [
      // The class as main sends it (main/batch/document-class.ts decides it; tested there).
      document('1', { phase: 'draft', class: 'not_sent' }),
      document('2', { phase: 'draft', class: 'not_sent' }),
      document('3', { phase: 'uploading', class: 'sending' }),
      document('4', { phase: 'queued', class: 'sending' }),
      document('5', { phase: 'prepared', class: 'waiting' }),
      document('6', { phase: 'prepared', class: 'completed', tracking: tracking('completed', true) }),
      document('7', { phase: 'failed', class: 'failed' }),
      document('8', { phase: 'prepared', class: 'gone', gone: true, tracking: tracking('completed', true) }),
      document('9', { phase: 'needs_check', class: 'needs_check' }),
    ];
    expect(countByBucket(documents)).toEqual({
      all: 9,
      not_sent: 2,
      sending: 2,
      waiting: 1,
      completed: 1,
      needs_check: 1,
      failed: 1,
      gone: 1,
    });
  });

  it('counts zero everywhere for an empty batch', () => {
    expect(countByBucket([])).toEqual({
      all: 0,
      not_sent: 0,
      sending: 0,
      waiting: 0,
      completed: 0,
      needs_check: 0,
      failed: 0,
      gone: 0,
    });
  });
});
