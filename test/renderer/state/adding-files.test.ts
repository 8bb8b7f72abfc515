/**
 * Adding many files: a pick of any size reaches main (in calls the contract accepts), and the
 * files main refuses make one notice that names a few and counts the rest, in every language.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ADD_PATHS_MAX } from '../../../shared/ipc/contract';
import type { HostBridge } from '../../../shared/ipc/bridge';
import type { AddDocumentsResult } from '../../../shared/ipc/views';
import {
  initialState,
  withLanguage,
  withNotAddedNotice,
  withNotice,
} from '../../../renderer/src/state/transitions';

const rejectedFiles = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    path: `/home/ana/scans/scan-${index + 1}.pdf`,
    message: 'The file is empty.',
  }));

describe('the notice for files that were not added', () => {
  it('names a single file with its reason', () => {
    const state = withNotAddedNotice(initialState, rejectedFiles(1));
    expect(state.notices.map((notice) => [notice.kind, notice.text])).toEqual([
      ['error', 'scan-1.pdf was not added: The file is empty.'],
    ]);
  });

  it('is one notice for 3,000 files: five named with their reasons, then "and N more"', () => {
    const state = withNotAddedNotice(
      withNotice(initialState, 'success', '2 documents added.'),
      rejectedFiles(3000),
    );
    expect(state.notices).toHaveLength(2);
    expect(state.notices[0]?.text).toBe('2 documents added.');
    expect(state.notices[1]?.kind).toBe('error');
    expect(state.notices[1]?.text).toBe(
      '3,000 files were not added: scan-1.pdf: The file is empty. scan-2.pdf: The file is empty. ' +
        'scan-3.pdf: The file is empty. scan-4.pdf: The file is empty. scan-5.pdf: The file is empty. ' +
        '…and 2,995 more.',
    );
  });

  it('lists up to five files without "more", and says nothing when every file was added', () => {
    const text = withNotAddedNotice(initialState, rejectedFiles(5)).notices[0]?.text ?? '';
    expect(text).toMatch(/^5 files were not added: scan-1\.pdf: .* scan-5\.pdf: The file is empty\.$/);
    expect(text).not.toContain('more');
    expect(withNotAddedNotice(initialState, [])).toBe(initialState);
  });

  it('speaks French and German, counts included', () => {
    const fr = withNotAddedNotice(withLanguage(initialState, 'fr', 'fr-FR'), rejectedFiles(7));
    expect(fr.notices[0]?.text).toMatch(/^7 fichiers n’ont pas été ajoutés\u00a0: scan-1\.pdf\u00a0: /);
    expect(fr.notices[0]?.text).toMatch(/ …et 2 autres\.$/);
    const de = withNotAddedNotice(withLanguage(initialState, 'de', 'de-DE'), rejectedFiles(1006));
    expect(de.notices[0]?.text).toMatch(/^1\.006 Dateien wurden nicht hinzugefügt: scan-1\.pdf: /);
    expect(de.notices[0]?.text).toMatch(/ …und 1\.001 weitere\.$/);
  });
});

describe('adding a pick of files', () => {
  const calls: { paths: string[]; folder: string | undefined }[] = [];

  beforeEach(() => {
    vi.resetModules();
    calls.length = 0;
    const addPaths = async (
      _batchId: string,
      paths: string[],
      folder?: string,
    ): Promise<{ ok: true; value: AddDocumentsResult }> => {
      calls.push({ paths, folder });
      // Main refuses any list the contract does not allow; here, every file whose name says "empty".
      if (paths.length > ADD_PATHS_MAX) throw new Error('too many paths in one call');
      const rejected = paths
        .filter((path) => path.includes('empty'))
        .map((path) => ({ path, code: 'missing_pdf' as const, message: 'The file is empty.' }));
      return { ok: true, value: { added: paths.length - rejected.length, rejected } };
    };
    const bridge = {
      host: 'electron',
      documents: { addPaths },
      batches: { get: async () => ({ ok: false, error: { code: 'batch_not_found', message: 'gone' } }) },
    } as unknown as HostBridge;
    vi.stubGlobal('window', { desk: bridge });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('sends 25,000 files in calls of at most 10,000 and says it in two notices', async () => {
    const { useDesk } = await import('../../../renderer/src/state/store');
    const paths = Array.from({ length: 25_000 }, (_, index) =>
      index % 1000 === 0 ? `/scans/empty-${index}.pdf` : `/scans/scan-${index}.pdf`,
    );
    await useDesk.getState().actions.documents.addPaths('batch-1', paths);

    expect(calls.map((call) => call.paths.length)).toEqual([10_000, 10_000, 5_000]);
    expect(calls.flatMap((call) => call.paths)).toEqual(paths);
    const notices = useDesk.getState().notices.map((notice) => notice.text);
    expect(notices).toEqual([
      '24,975 documents added.',
      expect.stringMatching(/^25 files were not added: empty-0\.pdf: The file is empty\. .* …and 20 more\.$/),
    ]);
  });
});
