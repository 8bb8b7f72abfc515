/**
 * Bad input gets a clear answer in the renderer: a manifest refused at import shows its current
 * problems (not the preview it had before the file changed).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HostBridge } from '../../../shared/ipc/bridge';
import type { ManifestPreview } from '../../../shared/ipc/views';

const MANIFEST = '/home/ana/monday/manifest.csv';

const brokenPreview: ManifestPreview = {
  path: MANIFEST,
  documents: [],
  issues: [
    {
      row: 2,
      column: 'recipient_email',
      message: '"ana.example.com" is not an e-mail address.',
      text: 'Line 2, column recipient_email: "ana.example.com" is not an e-mail address.',
    },
  ],
  problemCount: 1,
};

describe('a manifest refused at import', () => {
  const previews: string[] = [];
  let importAnswer: { ok: false; error: { code: string; message: string } };

  beforeEach(() => {
    vi.resetModules();
    previews.length = 0;
    importAnswer = {
      ok: false,
      error: {
        code: 'manifest_invalid',
        message: 'The manifest has 1 problem; nothing was imported. Fix it and import again.',
      },
    };
    const bridge = {
      host: 'browser',
      manifest: {
        import: async () => importAnswer,
        preview: async (path: string) => {
          previews.push(path);
          return { ok: true, value: brokenPreview };
        },
      },
    } as unknown as HostBridge;
    vi.stubGlobal('window', { desk: bridge });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('for problems in the file: its preview is read anew, with the problems and without an Import', async () => {
    const { useDesk } = await import('../../../renderer/src/state/store');
    const answer = await useDesk.getState().importManifest('batch-1', MANIFEST);

    expect(previews).toEqual([MANIFEST]);
    expect(answer).toEqual({ imported: false, preview: brokenPreview });
    // main's refusal is said too: nothing was imported.
    expect(useDesk.getState().notices.map((notice) => [notice.kind, notice.text])).toEqual([
      ['error', 'The manifest has 1 problem; nothing was imported. Fix it and import again.'],
    ]);
  });

  it('for another reason: the preview stays, and the reason is said', async () => {
    importAnswer = { ok: false, error: { code: 'batch_not_found', message: 'This batch no longer exists.' } };
    const { useDesk } = await import('../../../renderer/src/state/store');
    const answer = await useDesk.getState().importManifest('batch-1', MANIFEST);

    expect(previews).toEqual([]);
    expect(answer).toEqual({ imported: false, preview: undefined });
    expect(useDesk.getState().notices.map((notice) => notice.text)).toEqual(['This batch no longer exists.']);
  });
});
