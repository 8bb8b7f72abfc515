import { describe, expect, it } from 'vitest';
import { noDocuments } from '../../../shared/domain/document-counts';
import type { AppInfo, BatchDetail, BatchSummary, DocumentView } from '../../../shared/ipc/views';
import {
  initialState,
  sortedBatches,
  withBatchDetail,
  withBatchList,
  withBatchSummary,
  withLoadError,
  withNotice,
  withoutBatch,
  withoutNotice,
  withProgress,
  withScreen,
  withFirstScreen,
  withProfiles,
  withStarting,
  withTrackingPaused,
  withTrackingChecked,
  withTrackingStatus,
} from '../../../renderer/src/state/transitions';

function summary(id: string, updatedAt: string, overrides: Partial<BatchSummary> = {}): BatchSummary {
  return {
    id,
    name: `Batch ${id}`,
    createdAt: '2026-11-20T08:00:00.000Z',
    updatedAt,
    documentCount: 1,
    counts: { ...noDocuments(), not_sent: 1 },
    engine: { state: 'idle' },
    ...overrides,
  };
}

function document(id: string, overrides: Partial<DocumentView> = {}): DocumentView {
  return {
    id,
    externalReference: `REF-${id}`,
    originalName: 'a.pdf',
    storedFilename: 'a.pdf',
    sizeBytes: 10,
    sha256: 'a'.repeat(64),
    recipients: [],
    extraParticipants: [],
    people: [],
    options: {},
    phase: 'uploading',
    class: 'sending',
    problems: [],
    locked: false,
    gone: false,
    canOpenCeremony: false,
    updatedAt: '2026-11-20T08:00:00.000Z',
    ...overrides,
  };
}

function detail(id: string, documents: DocumentView[]): BatchDetail {
  return { ...summary(id, '2026-11-21T08:00:00.000Z'), defaults: { defaultRecipients: [] }, documents };
}

describe('renderer transitions', () => {
  it('lists batches by last activity, newest first', () => {
    const state = withBatchList(initialState, [
      summary('a', '2026-11-20T09:00:00Z'),
      summary('b', '2026-11-21T09:00:00Z'),
    ]);
    expect(sortedBatches(state.batches).map((batch) => batch.id)).toEqual(['b', 'a']);
  });

  it('applies a changed summary to the list and to the open detail, keeping its documents', () => {
    const open = withBatchDetail(initialState, detail('a', [document('1')]));
    const next = withBatchSummary(open, summary('a', '2026-11-22T09:00:00Z', { name: 'Renamed' }));
    expect(next.batches.a?.name).toBe('Renamed');
    expect(next.details.a?.name).toBe('Renamed');
    expect(next.details.a?.documents).toHaveLength(1);
    expect(open.batches.a?.name).toBe('Batch a');
  });

  it('clears the open detail’s connection problem once a summary no longer has it (the connection added back)', () => {
    const gone = summary('a', '2026-11-22T09:00:00Z', { connectionProblem: 'Its connection is gone.' });
    const open = withBatchSummary(withBatchDetail(initialState, detail('a', [document('1')])), gone);
    expect(open.details.a?.connectionProblem).toBe('Its connection is gone.');
    const back = withBatchSummary(open, summary('a', '2026-11-22T10:00:00Z'));
    expect(back.details.a?.connectionProblem).toBeUndefined();
  });

  it('keeps upload bytes while a document uploads, and drops live progress once main reports it prepared', () => {
    let state = withProgress(initialState, {
      batchId: 'a',
      documentId: '1',
      phase: 'uploading',
      sentBytes: 50,
      totalBytes: 100,
    });
    state = withProgress(state, { batchId: 'a', documentId: '1', phase: 'uploading' });
    expect(state.progress['a/1']).toEqual({ phase: 'uploading', sentBytes: 50, totalBytes: 100 });
    state = withProgress(state, { batchId: 'a', documentId: '1', phase: 'creating' });
    expect(state.progress['a/1']).toEqual({ phase: 'creating' });
    state = withBatchDetail(state, detail('a', [document('1', { phase: 'prepared', class: 'waiting' })]));
    expect(state.progress['a/1']).toBeUndefined();
  });

  it('shows one document as main now sees it once its tracked status changes (its ceremony action closed by main)', () => {
    const state = withBatchDetail(
      initialState,
      detail('a', [document('1', { phase: 'prepared', canOpenCeremony: true }), document('2')]),
    );
    const completed = document('1', {
      phase: 'prepared',
      canOpenCeremony: false,
      tracking: { status: 'completed', evidenceReady: false, readAt: '2026-11-22T10:00:00Z', final: false },
    });
    const next = withTrackingStatus(state, { batchId: 'a', documentId: '1', document: completed });
    expect(next.details.a?.documents[0]).toBe(completed);
    expect(next.details.a?.documents[1]).toBe(state.details.a?.documents[1]);
  });

  it('shows when one document was last checked at its service', () => {
    const state = withBatchDetail(initialState, detail('a', [document('1'), document('2')]));
    const next = withTrackingChecked(state, {
      batchId: 'a',
      documentId: '2',
      at: '2026-11-23T12:40:00.000Z',
    });
    expect(next.details.a?.documents[1]?.lastCheckedAt).toBe('2026-11-23T12:40:00.000Z');
    expect(next.details.a?.documents[0]).toBe(state.details.a?.documents[0]);
    expect(withTrackingChecked(initialState, { batchId: 'zzz', documentId: '1', at: 'x' })).toBe(
      initialState,
    );
  });

  it('ignores tracking news of a batch that is not loaded', () => {
    const next = withTrackingStatus(initialState, {
      batchId: 'zzz',
      documentId: '1',
      document: document('1'),
    });
    expect(next).toBe(initialState);
  });

  it('marks a batch as starting while its Send is on its way, and only that batch', () => {
    let state = withStarting(initialState, 'b1', true);
    state = withStarting(state, 'b2', true);
    expect(state.starting).toEqual({ b1: true, b2: true });
    state = withStarting(state, 'b1', false);
    expect(state.starting).toEqual({ b2: true });
  });

  it('leaves a deleted batch’s screen for the list', () => {
    let state = withBatchDetail(initialState, detail('a', []));
    state = withScreen(state, { name: 'batch', batchId: 'a' });
    state = withoutBatch(state, 'a');
    expect(state.screen).toEqual({ name: 'batches' });
    expect(state.batches.a).toBeUndefined();
    expect(state.details.a).toBeUndefined();
  });

  it('keeps at most four notices and dismisses by id', () => {
    let state = initialState;
    for (let index = 1; index <= 6; index += 1) state = withNotice(state, 'info', `n${index}`);
    expect(state.notices.map((notice) => notice.text)).toEqual(['n3', 'n4', 'n5', 'n6']);
    state = withoutNotice(state, state.notices[0]!.id);
    expect(state.notices.map((notice) => notice.text)).toEqual(['n4', 'n5', 'n6']);
  });

  it('dismisses the messages of a screen when the user goes to another one, errors included', () => {
    let state = withScreen(initialState, { name: 'batch', batchId: 'a' });
    state = withNotice(state, 'error', 'The service refused a.pdf.');
    state = withNotice(state, 'success', 'Report saved.');
    // Loading the same screen again keeps them.
    expect(withScreen(state, { name: 'batch', batchId: 'a' }).notices).toHaveLength(2);
    // Another batch, the list or Connections: they do not follow.
    expect(withScreen(state, { name: 'batch', batchId: 'b' }).notices).toEqual([]);
    expect(withScreen(state, { name: 'batches' }).notices).toEqual([]);
    expect(withScreen(state, { name: 'connections' }).notices).toEqual([]);
  });

  it('starts a first launch (no connection, no batch) on Connections, and any other on the batches', () => {
    expect(withFirstScreen(initialState).screen).toEqual({ name: 'connections' });
    // A message from the start (say, the batches could not be listed) stays.
    expect(withFirstScreen(withNotice(initialState, 'error', 'Unreadable.')).notices).toHaveLength(1);
    const withBatch = withBatchList(initialState, [summary('a', '2026-11-20T08:00:00.000Z')]);
    expect(withFirstScreen(withBatch).screen).toEqual({ name: 'batches' });
    const withConnection = withProfiles(initialState, [
      { name: 'Office', baseUrl: 'https://x', clientId: 'c', hasSecret: true, active: true, demo: false },
    ]);
    expect(withFirstScreen(withConnection).screen).toEqual({ name: 'batches' });
    // A user who already went somewhere stays there.
    const elsewhere = withScreen(initialState, { name: 'batch', batchId: 'a' });
    expect(withFirstScreen(elsewhere).screen).toEqual({ name: 'batch', batchId: 'a' });
    const chose = withScreen(initialState, { name: 'batches' });
    expect(withFirstScreen(chose).screen).toEqual({ name: 'batches' });
  });

  it('records why a batch could not be loaded, next to other batches’ errors', () => {
    const state = withLoadError(
      withLoadError(initialState, 'a', 'The batch file is damaged.'),
      'b',
      'Missing.',
    );
    expect(state.loadErrors).toEqual({ a: 'The batch file is damaged.', b: 'Missing.' });
    expect(initialState.loadErrors).toEqual({});
    expect(withLoadError(state, 'a', 'Still unreadable.').loadErrors).toEqual({
      a: 'Still unreadable.',
      b: 'Missing.',
    });
  });

  it('clears a batch’s load error once it loads, keeping other batches’ errors', () => {
    let state = withLoadError(initialState, 'a', 'The batch file is damaged.');
    state = withLoadError(state, 'b', 'Missing.');
    state = withBatchDetail(state, detail('a', [document('1')]));
    expect(state.loadErrors).toEqual({ b: 'Missing.' });
    expect(state.details.a?.documents).toHaveLength(1);
  });

  it('ignores tracking being paused before the app’s info is known', () => {
    expect(withTrackingPaused(initialState, true)).toBe(initialState);
  });

  it('shows tracking paused and resumed once the app’s info is known', () => {
    const info: AppInfo = {
      host: 'electron',
      version: '0.1.0',
      dataDir: '/data',
      trackingPaused: false,
      language: 'en',
      locale: 'en',
      languageSetting: 'system',
      systemLanguage: 'en',
      damagedBatches: [],
    };
    const paused = withTrackingPaused({ ...initialState, info }, true);
    expect(paused.info).toEqual({ ...info, trackingPaused: true });
    expect(info.trackingPaused).toBe(false);
    expect(withTrackingPaused(paused, false).info?.trackingPaused).toBe(false);
  });
});
