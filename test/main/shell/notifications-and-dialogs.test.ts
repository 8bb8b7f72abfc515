import type { App, BrowserWindow } from 'electron';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
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
