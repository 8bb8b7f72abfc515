/** The Dialogs port over Electron's native open and save dialogs, attached to the main window. */
import { join } from 'node:path';
import { dialog, type BrowserWindow, type OpenDialogOptions, type SaveDialogOptions } from 'electron';
import type { Dialogs } from '../app/ports';
import { safeReportName } from '../report/report-file-name';

export const PDF_FILTER = { name: 'PDF documents', extensions: ['pdf'] };
export const MANIFEST_FILTER = { name: 'Manifest (CSV)', extensions: ['csv'] };
export const REPORT_FILTER = { name: 'CSV report', extensions: ['csv'] };

export interface SystemDialogsOptions {
  /** The window the dialogs belong to, when it is shown. */
  readonly window: () => BrowserWindow | undefined;
  /** Where reports are proposed (`app.getPath('documents')`). */
  readonly documentsDir: string;
}

/** Native dialogs; a cancelled dialog gives [] or undefined, as the port says. */
export function createSystemDialogs(options: SystemDialogsOptions): Dialogs {
  const parent = () => {
    const window = options.window();
    return window && !window.isDestroyed() && window.isVisible() ? window : undefined;
  };
  const open = async (settings: OpenDialogOptions): Promise<string[]> => {
    const window = parent();
    const answer = window
      ? await dialog.showOpenDialog(window, settings)
      : await dialog.showOpenDialog(settings);
    return answer.canceled ? [] : answer.filePaths;
  };
  const save = async (settings: SaveDialogOptions): Promise<string | undefined> => {
    const window = parent();
    const answer = window
      ? await dialog.showSaveDialog(window, settings)
      : await dialog.showSaveDialog(settings);
    return answer.canceled || !answer.filePath ? undefined : answer.filePath;
  };

  return {
    pickPdfs: () =>
      open({
        title: 'Add PDF documents',
        properties: ['openFile', 'multiSelections'],
        filters: [PDF_FILTER],
      }),
    pickFolder: async () =>
      (await open({ title: 'Add every PDF of a folder', properties: ['openDirectory'] }))[0],
    pickManifest: async () =>
      (await open({ title: 'Import a manifest', properties: ['openFile'], filters: [MANIFEST_FILTER] }))[0],
    pickReportPath: (defaultName) =>
      save({
        title: 'Save the status report',
        defaultPath: join(options.documentsDir, safeReportName(defaultName)),
        filters: [REPORT_FILTER],
      }),
  };
}
