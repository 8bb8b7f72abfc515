/**
 * The browser host's stand-in for native file dialogs. A browser cannot hand out file paths, so
 * the page asks the user for them (`window.prompt`) and sends the answer along with the dialog
 * call itself; the host runs that call with the answer in scope, and these Dialogs return it.
 * The desk service's dialog handlers thus run unchanged (pickFolder still lists the folder's
 * PDFs in main), and concurrent calls from several pages cannot see each other's answers.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, normalize, resolve } from 'node:path';
import { DeskError } from '../app/desk-error';
import type { Dialogs } from '../app/ports';
import type { DialogAnswer } from '../../shared/ipc/browser-host-protocol';

const answers = new AsyncLocalStorage<DialogAnswer>();

/** Runs `call` (a dialog channel's dispatch) with what the user answered in the page. */
export function withDialogAnswer<T>(answer: DialogAnswer | undefined, call: () => Promise<T>): Promise<T> {
  return answers.run(answer ?? { paths: [] }, call);
}

/** `~/x` and relative paths are taken from the home folder: a prompt has no current folder. */
export function absolutePath(path: string, home: string = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? normalize(path) : resolve(home, path);
}

/** Dialogs that return the answer sent with the current call; no answer reads as "cancelled". */
export function createPromptedDialogs(home: string = homedir()): Dialogs {
  const answered = (): string[] => (answers.getStore()?.paths ?? []).map((path) => absolutePath(path, home));
  const single = (): string | undefined => {
    const paths = answered();
    return paths.length === 1 ? paths[0] : undefined;
  };
  return {
    pickPdfs: async () => answered(),
    pickFolder: async () => {
      const folder = single();
      if (folder === undefined) return undefined;
      const found = await stat(folder).catch(() => undefined);
      if (!found?.isDirectory()) throw new DeskError('folder_not_found', `There is no folder at ${folder}.`);
      return folder;
    },
    pickManifest: async () => single(),
    pickReportPath: async () => single(),
  };
}
