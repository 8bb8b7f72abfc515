/**
 * The browser host's stand-in for native file dialogs. A browser cannot hand out file paths, so
 * for the files to read the page asks the user for them (`window.prompt`) and sends the answer
 * along with the dialog call itself; the host runs that call with the answer in scope, and these
 * Dialogs return it. The desk service's dialog handlers thus run unchanged (pickFolder still
 * lists the folder's PDFs in main), and concurrent calls from several pages cannot see each
 * other's answers. Where a report is written is never the page's to say: the host chooses, as
 * main does in Electron with its native save dialog (the Downloads folder, a name of its own).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { open, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, normalize, resolve } from 'node:path';
import { DeskError } from '../app/desk-error';
import { safeReportName } from '../report/report-file-name';
import { words } from '../base/words';
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
  /** Where `user-dirs.dirs` is (`$XDG_CONFIG_HOME`, else `~/.config`): it names the Downloads folder. */
  readonly configHome: string;
}

/** The bases of this process: its home folder, working folder and XDG configuration folder. */
export function processPathBases(home: string = homedir()): PathBases {
  const fromEnvironment = process.env.XDG_CONFIG_HOME;
  return {
    home,
    workingDir: process.cwd(),
    // A home given on purpose (tests) brings its own configuration, never the real user's.
    configHome:
      home === homedir() && fromEnvironment && isAbsolute(fromEnvironment)
        ? fromEnvironment
        : join(home, '.config'),
  };
}

const isDirectory = async (path: string) => (await stat(path).catch(() => undefined))?.isDirectory() === true;

/** XDG_DOWNLOAD_DIR of `user-dirs.dirs` ("$HOME/…" or absolute, per the spec), when it says one. */
async function xdgDownloadDir(bases: PathBases): Promise<string | undefined> {
  const file = join(bases.configHome, 'user-dirs.dirs');
  // A small regular file only: a FIFO or a device there must not hang the save.
  const found = await stat(file).catch(() => undefined);
  if (!found?.isFile() || found.size > 64 * 1024) return undefined;
  const text = await readFile(file, 'utf8').catch(() => '');
  const value = /^\s*XDG_DOWNLOAD_DIR\s*=\s*"([^"]*)"\s*$/m.exec(text)?.[1];
  if (value === undefined) return undefined;
  if (value === '$HOME' || value.startsWith('$HOME/')) return join(bases.home, value.slice('$HOME'.length));
  return isAbsolute(value) ? normalize(value) : undefined;
}

/**
 * The folder reports are saved in: the XDG download folder when it exists, else ~/Downloads
 * when it exists, else the home folder (as `xdg-user-dir DOWNLOAD` falls back to it).
 */
export async function reportsFolder(bases: PathBases): Promise<string> {
  for (const candidate of [await xdgDownloadDir(bases), join(bases.home, 'Downloads')])
    if (candidate !== undefined && (await isDirectory(candidate))) return candidate;
  return bases.home;
}

/** The most "name (n).csv" tried before saying the folder is full of them. */
const MAX_NAME_ATTEMPTS = 1000;

/**
 * A new file in `folder` for the report `defaultName`: `name.csv`, else `name (2).csv`, … It is
 * created empty here (exclusively, so a file that appears meanwhile is never overwritten) and the
 * report is then written into it.
 */
export async function newReportFile(folder: string, defaultName: string): Promise<string> {
  const name = safeReportName(defaultName);
  const stem = name.slice(0, -'.csv'.length);
  for (let attempt = 1; attempt <= MAX_NAME_ATTEMPTS; attempt++) {
    const path = join(folder, attempt === 1 ? name : `${stem} (${attempt}).csv`);
    try {
      await (await open(path, 'wx', 0o600)).close();
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new DeskError(
          'report_not_saved',
          words()('errors.reportNotSaved', { path, code: (error as NodeJS.ErrnoException).code ?? 'error' }),
        );
      }
    }
  }
  throw new DeskError(
    'report_not_saved',
    words()('errors.reportNotSaved', { path: join(folder, name), code: 'EEXIST' }),
  );
}

/**
 * The file a typed path names. A relative path is taken from the folder the host was started
 * in, as a shell would (the README's `samples/manifest.csv`), never silently from the home
 * folder; `~/x` is the home folder's. A manifest's own document paths are then resolved against
 * the manifest file main reads (main/manifest/manifest.ts), not against either.
 */
export function absolutePath(path: string, bases: PathBases): string {
  if (path === '~') return bases.home;
  if (path.startsWith('~/')) return join(bases.home, path.slice(2));
  return isAbsolute(path) ? normalize(path) : resolve(bases.workingDir, path);
}

/**
 * Dialogs that return the answer sent with the current call (no answer reads as "cancelled"),
 * but for the report, which goes to a new file of the host's choosing whatever the page sent.
 */
export function createPromptedDialogs(bases: PathBases = processPathBases()): Dialogs {
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
    pickReportPath: async (defaultName) => newReportFile(await reportsFolder(bases), defaultName),
  };
}
