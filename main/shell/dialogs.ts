/**
 * The Dialogs port over Electron's native open and save dialogs, attached to the main window.
 * Their titles and filters are in the language of the call that opens them (`words()`: the
 * handler runs speaking the person's language).
 */
import { join } from 'node:path';
import { dialog, type BrowserWindow, type OpenDialogOptions, type SaveDialogOptions } from 'electron';
import type { Dialogs } from '../app/ports';
import { safeReportName } from '../report/report-file-name';
import { words } from '../base/words';

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
        title: words()('shell.pickPdfsTitle'),
        properties: ['openFile', 'multiSelections'],
        filters: [{ name: words()('shell.pdfFilter'), extensions: ['pdf'] }],
      }),
    pickFolder: async () =>
      (await open({ title: words()('shell.pickFolderTitle'), properties: ['openDirectory'] }))[0],
    pickManifest: async () =>
      (
        await open({
          title: words()('shell.pickManifestTitle'),
          properties: ['openFile'],
          filters: [{ name: words()('shell.manifestFilter'), extensions: ['csv'] }],
        })
      )[0],
    pickReportPath: (defaultName) =>
      save({
        title: words()('shell.saveReportTitle'),
        defaultPath: join(options.documentsDir, safeReportName(defaultName)),
        filters: [{ name: words()('shell.reportFilter'), extensions: ['csv'] }],
      }),
  };
}
