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
import { words } from '../words';
import type { Dialogs } from '../app/ports';
import type { DialogAnswer } from '../../shared/ipc/browser-host-protocol';

const answers = new AsyncLocalStorage<DialogAnswer>();

/** Runs `call` (a dialog channel's dispatch) with what the user answered in the page. */
export function withDialogAnswer<T>(answer: DialogAnswer | undefined, call: () => Promise<T>): Promise<T> {
  return answers.run(answer ?? { paths: [] }, call);
}

/** Where a typed path starts: `~` is the home folder, a relative path the host's working folder. */
export interface PathBases {
  readonly home: string;
  /** The folder the host was started in (`npm start` in the project: `samples/manifest.csv` works). */
  readonly workingDir: string;
}

/**
 * The file a typed path names. A relative path is taken from the folder the host was started
 * in, as a shell would (the README's `samples/manifest.csv`), never silently from the home
 * folder; `~/x` is the home folder's. A manifest's own document paths are then resolved against
 * the manifest file main reads (main/batch/manifest.ts), not against either.
 */
export function absolutePath(path: string, bases: PathBases): string {
  if (path === '~') return bases.home;
  if (path.startsWith('~/')) return join(bases.home, path.slice(2));
  return isAbsolute(path) ? normalize(path) : resolve(bases.workingDir, path);
}

/** Dialogs that return the answer sent with the current call; no answer reads as "cancelled". */
export function createPromptedDialogs(
  bases: PathBases = { home: homedir(), workingDir: process.cwd() },
): Dialogs {
  const answered = (): string[] => (answers.getStore()?.paths ?? []).map((path) => absolutePath(path, bases));
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
      if (!found?.isDirectory())
        throw new DeskError('folder_not_found', words()('host.folderNotFound', { folder }));
      return folder;
    },
    pickManifest: async () => single(),
    pickReportPath: async () => single(),
  };
}
