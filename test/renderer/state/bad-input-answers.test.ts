/**
 * Bad input gets a clear answer in the renderer: a manifest refused at import shows its current
 * problems (not the preview it had before the file changed), and a folder's pick says once what
 * it left out, in every language.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Language } from '../../../shared/i18n/languages';
import type { HostBridge } from '../../../shared/ipc/bridge';
import type { ManifestPreview } from '../../../shared/ipc/views';
import { initialState, withFolderSkippedNotice, withLanguage } from '../../../renderer/src/state/transitions';

const MANIFEST = '/home/ana/monday/manifest.csv';

const brokenPreview: ManifestPreview = {
  path: MANIFEST,
  documents: [],
  documentCount: 0,
  recipientCount: 0,
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
    const answer = await useDesk.getState().actions.manifest.import('batch-1', MANIFEST);

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
    const answer = await useDesk.getState().actions.manifest.import('batch-1', MANIFEST);

    expect(previews).toEqual([]);
    expect(answer).toEqual({ imported: false, preview: undefined });
    expect(useDesk.getState().notices.map((notice) => notice.text)).toEqual(['This batch no longer exists.']);
  });
});

describe('what a folder’s pick left out', () => {
  const texts = (state: typeof initialState) => state.notices.map((notice) => [notice.kind, notice.text]);

  it('is said once, as information that fades, with the counts in words', () => {
    expect(texts(withFolderSkippedNotice(initialState, { subfolders: 1, otherFiles: 2 }))).toEqual([
      [
        'info',
        '2 files that are not PDFs and 1 subfolder were not added; only the PDFs directly in the folder are added.',
      ],
    ]);
    expect(texts(withFolderSkippedNotice(initialState, { subfolders: 0, otherFiles: 1 }))).toEqual([
      ['info', '1 file that is not a PDF was not added; only the PDFs directly in the folder are added.'],
    ]);
    expect(texts(withFolderSkippedNotice(initialState, { subfolders: 3, otherFiles: 0 }))).toEqual([
      ['info', '3 subfolders were not added; only the PDFs directly in the folder are added.'],
    ]);
  });

  it('says nothing when the folder held only PDFs', () => {
    expect(withFolderSkippedNotice(initialState, { subfolders: 0, otherFiles: 0 })).toBe(initialState);
  });

  it('speaks French and German', () => {
    const fr = withFolderSkippedNotice(withLanguage(initialState, 'fr', 'fr-FR'), {
      subfolders: 1,
      otherFiles: 2,
    });
    expect(fr.notices[0]?.text).toBe(
      '2 fichiers qui ne sont pas des PDF et 1 sous-dossier n’ont pas été ajoutés\u00a0; ' +
        'seuls les PDF placés directement dans le dossier sont ajoutés.',
    );
    const de = withFolderSkippedNotice(withLanguage(initialState, 'de', 'de-DE'), {
      subfolders: 0,
      otherFiles: 1,
    });
    expect(de.notices[0]?.text).toBe(
      '1 Datei, die kein PDF ist, wurde nicht hinzugefügt; nur die PDFs direkt im Ordner werden hinzugefügt.',
    );
  });

  describe('through “Add folder…”', () => {
    beforeEach(() => {
      vi.resetModules();
      const bridge = {
        host: 'browser',
        dialogs: {
          pickFolder: async () => ({
            ok: true,
            value: { folder: '/home/ana/scans', paths: [], skipped: { subfolders: 1, otherFiles: 2 } },
          }),
        },
      } as unknown as HostBridge;
      vi.stubGlobal('window', { desk: bridge });
    });
    afterEach(() => vi.unstubAllGlobals());

    it('is said even when the folder held no PDF at all', async () => {
      const { useDesk } = await import('../../../renderer/src/state/store');
      await useDesk.getState().actions.dialogs.pickFolder('batch-1');
      expect(texts(useDesk.getState())).toEqual([
        [
          'info',
          '2 files that are not PDFs and 1 subfolder were not added; only the PDFs directly in the folder are added.',
        ],
      ]);
    });
  });
});

describe('a refusal of the way to main, not of an operation', () => {
  beforeEach(() => vi.resetModules());

  it('is worded by its code in the person’s language: a request main could not read, a window it refuses', async () => {
    const { failureText } = await import('../../../renderer/src/state/call-failures');
    const { BridgeError } = await import('../../../renderer/src/bridge');
    const { createTranslator } = await import('../../../shared/i18n/translator');
    // main's own words for these are English: the page words them.
    const unreadable = new BridgeError('invalid_message', 'The app could not read this request.');
    const refused = new BridgeError('forbidden_sender', 'This window may not use the app.');
    const fr = createTranslator('fr');
    const de = createTranslator('de');
    expect(failureText(unreadable, fr)).toBe('L’application n’a pas pu lire cette requête.');
    expect(failureText(refused, fr)).toBe('Cette fenêtre ne peut pas utiliser l’application.');
    expect(failureText(unreadable, de)).toBe('Die App konnte diese Anfrage nicht lesen.');
    expect(failureText(refused, de)).toBe('Dieses Fenster darf die App nicht verwenden.');
  });

  it.each([
    {
      what: 'a request id used for another request is not called unreadable: it says what happened',
      code: 'request_id_reused',
      mainsWords: 'This request id was already used for another request.',
      words: {
        en: 'This request was not run: its id was already used for another request. Try again.',
        fr: 'Cette requête n’a pas été exécutée\u00a0: son identifiant a déjà servi à une autre requête. Réessayez.',
        de: 'Diese Anfrage wurde nicht ausgeführt: Ihre Kennung wurde bereits für eine andere Anfrage verwendet. Versuchen Sie es erneut.',
      },
    },
    {
      what: 'the app not answering at all (the preload’s ipc_failed) is said',
      code: 'ipc_failed',
      mainsWords: 'The app did not answer. Try again; restart it if this persists.',
      words: {
        fr: 'L’application n’a pas répondu. Réessayez\u00a0; redémarrez-la si le problème persiste.',
        de: 'Die App hat nicht geantwortet. Versuchen Sie es erneut; starten Sie sie neu, wenn das Problem bleibt.',
      },
    },
  ] as const)('$what, in French and German', async ({ code, mainsWords, words }) => {
    const { failureText } = await import('../../../renderer/src/state/call-failures');
    const { BridgeError } = await import('../../../renderer/src/bridge');
    const { createTranslator } = await import('../../../shared/i18n/translator');
    const error = new BridgeError(code, mainsWords);
    for (const [language, text] of Object.entries(words))
      expect(failureText(error, createTranslator(language as Language)), language).toBe(text);
  });

  it('a service’s code named like a member of every object (constructor, toString…) keeps main’s words', async () => {
    const { failureText } = await import('../../../renderer/src/state/call-failures');
    const { BridgeError } = await import('../../../renderer/src/bridge');
    const { createTranslator } = await import('../../../shared/i18n/translator');
    const { serviceErrorCode } = await import('../../../shared/service/error-codes');
    const fr = createTranslator('fr');
    for (const code of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'])
      expect(failureText(new BridgeError(serviceErrorCode(code), 'Le service a refusé.'), fr), code).toBe(
        'Le service a refusé.',
      );
  });
});
