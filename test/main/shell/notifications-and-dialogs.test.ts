import type { App, BrowserWindow, OpenDialogOptions, SaveDialogOptions } from 'electron';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeskContext } from '../../../main/app/desk-context';
import { ipcEvents } from '../../../main/app/ipc-events';
import { createSystemDialogs } from '../../../main/shell/dialogs';
import {
  APP_USER_MODEL_ID,
  createSystemNotifier,
  prepareNotifications,
} from '../../../main/shell/notifications';
import {
  app,
  asElectron,
  dialog,
  FakeBrowserWindow,
  FakeNotification,
  resetFakeElectron,
} from './fake-electron';
import { speaking } from '../../../main/base/words';
import type { Language } from '../../../shared/i18n/languages';
import { createTranslator } from '../../../shared/i18n/translator';

vi.mock('electron', () => import('./fake-electron'));

beforeEach(() => resetFakeElectron());

describe('notifications', () => {
  it('shows a system notification that opens the window when clicked', () => {
    const openWindow = vi.fn();
    createSystemNotifier(openWindow).notify(
      'Contract fully signed',
      'REF-001 is completed and its evidence is ready.',
    );
    const [shown] = FakeNotification.shown;
    expect(shown?.options).toEqual({
      title: 'Contract fully signed',
      body: 'REF-001 is completed and its evidence is ready.',
    });
    expect(openWindow).not.toHaveBeenCalled();
    shown?.emit('click');
    expect(openWindow).toHaveBeenCalledOnce();
  });

  it('files notifications under the installer’s app id on Windows only', () => {
    prepareNotifications(asElectron<App>(app), 'linux');
    expect(app.setAppUserModelId).not.toHaveBeenCalled();
    prepareNotifications(asElectron<App>(app), 'win32');
    expect(app.setAppUserModelId).toHaveBeenCalledExactlyOnceWith(APP_USER_MODEL_ID);
    expect(readFileSync('electron-builder.yml', 'utf8')).toContain(`appId: ${APP_USER_MODEL_ID}\n`);
  });

  it('does nothing where the OS has no notifications', () => {
    FakeNotification.supported = false;
    createSystemNotifier(vi.fn()).notify('t', 'b');
    expect(FakeNotification.shown).toHaveLength(0);
  });
});

describe('notifications in the desk’s language', () => {
  /** The desk's events (ipc-events.ts) to the system notifier, speaking whatever `language` is now. */
  function notifierIn(initial: Language) {
    let language = initial;
    const ctx = {
      deps: { emit: () => undefined, notifier: createSystemNotifier(vi.fn()) },
      translator: () => createTranslator(language),
      store: { get: () => ({ name: 'Lot 12' }) },
    } as unknown as DeskContext;
    const events = ipcEvents(ctx);
    return {
      setLanguage: (next: Language) => (language = next),
      completed: (externalReference: string) =>
        events.onPollerEvent({ type: 'completed', batchId: 'b', documentId: 'd', externalReference }),
      ended: (externalReference: string, status: string) =>
        events.onPollerEvent({ type: 'ended', batchId: 'b', documentId: 'd', externalReference, status }),
    };
  }
  const shown = () => FakeNotification.shown.map((notification) => notification.options);

  it('shows a contract signed and a contract ended in French, then in German once the language changed', () => {
    const desk = notifierIn('fr');
    desk.completed('CTR-1');
    desk.ended('CTR-2', 'declined');
    desk.setLanguage('de');
    desk.completed('CTR-3');
    desk.ended('CTR-4', 'expired');
    expect(shown()).toEqual([
      {
        title: 'Contrat entièrement signé',
        body: 'CTR-1 du lot «\u00a0Lot 12\u00a0» est entièrement signé\u00a0; son justificatif est prêt.',
      },
      {
        title: 'Contrat terminé sans signature',
        body: 'CTR-2 du lot «\u00a0Lot 12\u00a0» a pris fin auprès du service\u00a0: declined.',
      },
      {
        title: 'Vertrag vollständig unterschrieben',
        body: 'CTR-3 im Stapel „Lot 12“ ist vollständig unterschrieben; der Nachweis ist bereit.',
      },
      {
        title: 'Vertrag ohne Unterschrift beendet',
        body: 'CTR-4 im Stapel „Lot 12“ wurde beim Dienst beendet: expired.',
      },
    ]);
  });
});

describe('dialogs', () => {
  const documentsDir = '/home/ana/Documents';
  const visibleWindow = () => {
    const window = new FakeBrowserWindow({});
    window.visible = true;
    return asElectron<BrowserWindow>(window);
  };

  it('picks PDFs with a PDF filter, attached to the shown window', async () => {
    const window = visibleWindow();
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/a.pdf', '/b.pdf'] });
    const picked = await createSystemDialogs({ window: () => window, documentsDir }).pickPdfs();
    expect(picked).toEqual(['/a.pdf', '/b.pdf']);
    expect(dialog.showOpenDialog).toHaveBeenCalledWith(
      window,
      expect.objectContaining({
        properties: ['openFile', 'multiSelections'],
        filters: [{ name: 'PDF documents', extensions: ['pdf'] }],
      }),
    );
  });

  it('picks a manifest with a CSV filter, without a window when it is hidden', async () => {
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/m.csv'] });
    expect(await createSystemDialogs({ window: () => undefined, documentsDir }).pickManifest()).toBe(
      '/m.csv',
    );
    expect(dialog.showOpenDialog).toHaveBeenCalledWith(
      expect.objectContaining({
        properties: ['openFile'],
        filters: [{ name: 'Manifest (CSV)', extensions: ['csv'] }],
      }),
    );
  });

  it('picks a folder', async () => {
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/contracts'] });
    expect(await createSystemDialogs({ window: () => undefined, documentsDir }).pickFolder()).toBe(
      '/contracts',
    );
    expect(dialog.showOpenDialog).toHaveBeenCalledWith(
      expect.objectContaining({ properties: ['openDirectory'] }),
    );
  });

  it('answers a cancelled dialog with nothing', async () => {
    const dialogs = createSystemDialogs({ window: () => undefined, documentsDir });
    expect(await dialogs.pickPdfs()).toEqual([]);
    expect(await dialogs.pickFolder()).toBeUndefined();
    expect(await dialogs.pickManifest()).toBeUndefined();
    expect(await dialogs.pickReportPath('r.csv')).toBeUndefined();
  });

  it('titles every dialog and names its filter in the language of the call: French and German', async () => {
    const dialogs = createSystemDialogs({ window: () => undefined, documentsDir });
    const openedWith = () => dialog.showOpenDialog.mock.calls.at(-1)?.[0] as OpenDialogOptions;
    const savedWith = () => dialog.showSaveDialog.mock.calls.at(-1)?.[0] as SaveDialogOptions;
    const asked = async (language: Language) => {
      const { t } = createTranslator(language);
      const all: { title?: string; filter?: string }[] = [];
      for (const pick of [dialogs.pickPdfs, dialogs.pickFolder, dialogs.pickManifest] as const) {
        await speaking(t, () => pick());
        all.push({ title: openedWith().title, filter: openedWith().filters?.[0]?.name });
      }
      await speaking(t, () => dialogs.pickReportPath('r.csv'));
      all.push({ title: savedWith().title, filter: savedWith().filters?.[0]?.name });
      return all;
    };
    expect(await asked('fr')).toEqual([
      { title: 'Ajouter des documents PDF', filter: 'Documents PDF' },
      { title: 'Ajouter tous les PDF d’un dossier', filter: undefined },
      { title: 'Importer un manifeste', filter: 'Manifeste (CSV)' },
      { title: 'Enregistrer le rapport d’état', filter: 'Rapport CSV' },
    ]);
    expect(await asked('de')).toEqual([
      { title: 'PDF-Dokumente hinzufügen', filter: 'PDF-Dokumente' },
      { title: 'Alle PDFs eines Ordners hinzufügen', filter: undefined },
      { title: 'Ein Manifest importieren', filter: 'Manifest (CSV)' },
      { title: 'Statusbericht speichern', filter: 'CSV-Bericht' },
    ]);
  });

  it('proposes the report in the documents folder under a safe name', async () => {
    dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: '/home/ana/Documents/r.csv' });
    const path = await createSystemDialogs({ window: () => undefined, documentsDir }).pickReportPath(
      '../../etc/passwd',
    );
    expect(path).toBe('/home/ana/Documents/r.csv');
    expect(dialog.showSaveDialog).toHaveBeenCalledWith(
      expect.objectContaining({
        defaultPath: join(documentsDir, '_.._etc_passwd.csv'),
        filters: [{ name: 'CSV report', extensions: ['csv'] }],
      }),
    );
  });
});
