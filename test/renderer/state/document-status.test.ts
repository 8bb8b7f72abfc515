import { describe, expect, it } from 'vitest';
import { documentClassSchema } from '../../../shared/domain/document-class';
import type { DocumentView } from '../../../shared/ipc/views';
import type { Participant } from '../../../shared/service/wire';
import { createTranslator } from '../../../shared/i18n/translator';
import {
  STATUS_FILTERS,
  batchProgress,
  countDocuments,
  documentProgress,
  editRefusal,
  filterDocuments,
  nextSort,
  sortDocuments,
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

const english = createTranslator('en');
const labelOf = (filter: StatusFilter): string | undefined => {
  const label = STATUS_FILTERS.find((candidate) => candidate.value === filter)?.label;
  return label && english.t(label);
};

describe('STATUS_FILTERS', () => {
  it.each(documentClassSchema.options)('has words for every class main sends: %s', (documentClass) => {
    expect(labelOf(documentClass)).toBeDefined();
  });

  it('offers "All" first, then each group once with the words a user reads', () => {
    expect(STATUS_FILTERS.map((filter) => [filter.value, english.t(filter.label)])).toEqual([
      ['all', 'All'],
      ['not_sent', 'Not sent'],
      ['sending', 'Sending'],
      ['waiting', 'Waiting for signatures'],
      ['unknown_status', 'Status not recognized'],
      ['completed', 'Completed'],
      ['ended', 'Ended without signing'],
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
  /** A batch as main sends it, with the batch screen's one count of its documents. */
  const progressOf = (id: string, documents: DocumentView[], progress: Record<string, Progress>) =>
    batchProgress({ id, documents }, countDocuments(documents), progress);

  it('counts as sent the documents sent all the way, and averages the progress of those in flight', () => {
    const documents = [
      document('1', { phase: 'prepared', class: 'waiting' }),
      document('2', { phase: 'prepared', class: 'completed', tracking: tracking('completed', true) }),
      document('3', { phase: 'uploading' }),
      document('4', { phase: 'adding_participants', class: 'sending', requestId: 'sr_4' }),
    ];
    const progress: Record<string, Progress> = {
      'b/3': { phase: 'uploading', sentBytes: 512, totalBytes: 1024 },
    };
    // 4's request exists, but participants are still being added: it is sending, as its filter
    // says, not sent yet; "2 of 4 sent" and "Sending (1)" never tell two stories.
    const result = progressOf('b', documents, progress);
    expect(result).toMatchObject({ sent: 2, total: 4 });
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
    const result = progressOf('b', documents, {});
    expect(result).toMatchObject({ sent: 1, total: 5 });
    expect(result.fraction).toBeCloseTo((1 + 0.9) / 2, 10);
  });

  it('reads live progress of its own batch only', () => {
    const documents = [document('1', { phase: 'uploading' })];
    const progress: Record<string, Progress> = {
      'other/1': { phase: 'uploading', sentBytes: 1024, totalBytes: 1024 },
    };
    expect(progressOf('b', documents, progress).fraction).toBe(0);
    expect(progressOf('other', documents, progress).fraction).toBeCloseTo(0.6, 10);
  });

  it('is at 0 with nothing in scope', () => {
    expect(progressOf('b', [], {})).toEqual({ sent: 0, total: 0, fraction: 0 });
    expect(progressOf('b', [document('1'), document('2', { phase: 'failed' })], {})).toEqual({
      sent: 0,
      total: 2,
      fraction: 0,
    });
  });

  it('is full once every document in scope is sent', () => {
    const documents = [
      document('1', { phase: 'prepared', class: 'waiting' }),
      document('2', { phase: 'draft' }),
    ];
    expect(progressOf('b', documents, {})).toEqual({ sent: 1, total: 2, fraction: 1 });
  });

  it('counts a request that ended, or stands in a status not recognized, as sent all the way', () => {
    const documents = [
      // Linked while already prepared, its extra participant refused, then declined at the service.
      document('1', { phase: 'failed', class: 'ended', tracking: tracking('declined', true) }),
      document('2', { phase: 'prepared', class: 'unknown_status', tracking: tracking('on_hold', false) }),
      document('3', { phase: 'uploading', class: 'sending' }),
    ];
    const progress = { 'b/3': { phase: 'uploading', sentBytes: 0, totalBytes: 10 } } as Record<
      string,
      Progress
    >;
    expect(progressOf('b', documents, progress)).toEqual({ sent: 2, total: 3, fraction: 2 / 3 });
  });
});

describe('editRefusal: Edit and Remove are offered only when main would accept them', () => {
  const idle = { state: 'idle' } as const;
  const running = { state: 'running' } as const;

  it('allows a document not sent, whatever the batch does', () => {
    expect(editRefusal(document('1'), running, undefined)).toBeUndefined();
    expect(
      editRefusal(document('1', { class: 'failed', phase: 'failed' }), running, undefined),
    ).toBeUndefined();
  });

  it('refuses a document in flight, with the reason, while its batch is being sent', () => {
    const queued = document('1', { class: 'sending', phase: 'queued' });
    expect(editRefusal(queued, running, undefined)).toBe('documents.action.inFlight');
    expect(editRefusal(queued, { state: 'waiting' }, undefined)).toBe('documents.action.inFlight');
    // Live progress says it is uploading before main's next view does.
    expect(editRefusal(queued, idle, { phase: 'uploading', sentBytes: 1, totalBytes: 2 })).toBe(
      'documents.action.inFlight',
    );
  });

  it('allows a queued document again once sending is paused', () => {
    expect(
      editRefusal(document('1', { class: 'sending', phase: 'uploading' }), { state: 'paused' }, undefined),
    ).toBeUndefined();
  });

  it('refuses a document already sent', () => {
    expect(
      editRefusal(document('1', { class: 'waiting', phase: 'prepared', locked: true }), idle, undefined),
    ).toBeDefined();
  });
});

describe('sortDocuments', () => {
  const documents = [
    document('a', {
      externalReference: 'NDA-10',
      storedFilename: 'zoe.pdf',
      class: 'waiting',
      updatedAt: '2026-11-20T10:00:00Z',
    }),
    document('b', {
      externalReference: 'nda-9',
      storedFilename: 'Émile.pdf',
      class: 'not_sent',
      updatedAt: '2026-11-20T12:00:00Z',
    }),
    document('c', {
      externalReference: 'NDA-11',
      storedFilename: 'anne.pdf',
      class: 'failed',
      updatedAt: '2026-11-20T08:00:00Z',
    }),
  ];
  const ids = (sorted: readonly DocumentView[]) => sorted.map((document) => document.id);

  it('keeps the batch order without a sort', () => {
    expect(ids(sortDocuments(documents, undefined, 'en'))).toEqual(['a', 'b', 'c']);
  });

  it('sorts references as people read them: case ignored, numbers by value', () => {
    expect(ids(sortDocuments(documents, { key: 'reference', direction: 'ascending' }, 'en'))).toEqual([
      'b',
      'a',
      'c',
    ]);
    expect(ids(sortDocuments(documents, { key: 'reference', direction: 'descending' }, 'en'))).toEqual([
      'c',
      'a',
      'b',
    ]);
  });

  it('sorts files with accents where the locale puts them', () => {
    expect(ids(sortDocuments(documents, { key: 'file', direction: 'ascending' }, 'fr'))).toEqual([
      'c',
      'b',
      'a',
    ]);
  });

  it("sorts states in the filter's order, and the last change by time", () => {
    expect(ids(sortDocuments(documents, { key: 'state', direction: 'ascending' }, 'en'))).toEqual([
      'b',
      'a',
      'c',
    ]);
    expect(ids(sortDocuments(documents, { key: 'updated', direction: 'descending' }, 'en'))).toEqual([
      'b',
      'a',
      'c',
    ]);
  });

  it('sorts ascending first, then descending on a second press', () => {
    const first = nextSort(undefined, 'state');
    expect(first).toEqual({ key: 'state', direction: 'ascending' });
    expect(nextSort(first, 'state')).toEqual({ key: 'state', direction: 'descending' });
    expect(nextSort(nextSort(first, 'state'), 'state')).toEqual({ key: 'state', direction: 'ascending' });
    expect(nextSort(first, 'file')).toEqual({ key: 'file', direction: 'ascending' });
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
    ['the end of one field and the start of the next', '001bail', []],
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

describe('countDocuments: the batch screen’s one count', () => {
  it('counts each group and the total', () => {
    const documents = [
      // The class as main sends it (main/domain/document-class.ts decides it; tested there).
      document('1', { phase: 'draft', class: 'not_sent' }),
      document('2', { phase: 'draft', class: 'not_sent' }),
      document('3', { phase: 'uploading', class: 'sending' }),
      document('4', { phase: 'queued', class: 'sending' }),
      document('5', { phase: 'prepared', class: 'waiting' }),
      document('6', { phase: 'prepared', class: 'completed', tracking: tracking('completed', true) }),
      document('7', { phase: 'failed', class: 'failed' }),
      document('8', { phase: 'prepared', class: 'gone', gone: true, tracking: tracking('completed', true) }),
      document('9', { phase: 'needs_check', class: 'needs_check' }),
      document('10', { phase: 'prepared', class: 'ended', tracking: tracking('declined', true) }),
      document('11', { phase: 'prepared', class: 'unknown_status', tracking: tracking('on_hold', false) }),
      document('12', { phase: 'prepared', class: 'ended', tracking: tracking('expired', true) }),
    ];
    expect(countDocuments(documents)).toEqual({
      not_sent: 2,
      sending: 2,
      waiting: 1,
      unknown_status: 1,
      completed: 1,
      ended: 2,
      needs_check: 1,
      failed: 1,
      gone: 1,
    });
    // Each filter finds its own: a request that ended is neither completed nor failed.
    expect(filterDocuments(documents, 'ended', '').map((row) => row.id)).toEqual(['10', '12']);
    expect(filterDocuments(documents, 'unknown_status', '').map((row) => row.id)).toEqual(['11']);
    expect(filterDocuments(documents, 'failed', '').map((row) => row.id)).toEqual(['7']);
  });

  it('counts zero everywhere for an empty batch', () => {
    expect(countDocuments([])).toEqual({
      not_sent: 0,
      sending: 0,
      waiting: 0,
      unknown_status: 0,
      completed: 0,
      ended: 0,
      needs_check: 0,
      failed: 0,
      gone: 0,
    });
  });
});
