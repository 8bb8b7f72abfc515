/**
 * A Chromium app window (`--app`, no tabs or address bar) in a throwaway profile: the browser
 * host's stand-in for an Electron BrowserWindow. The address is never put on the command line,
 * which every local user can read (`ps`, /proc): Chromium opens a start page in the private
 * profile folder (0700, the page 0600) that forwards to the address.
 *
 * Nothing of a window is left behind: its folder holds the profile and Chromium's own temporary
 * files (TMPDIR points inside it), and goes when the window closes or the host stops; a folder
 * whose host was killed before it could tidy up is removed by the next host that starts.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DeskError } from '../app/desk-error';
import { words } from '../base/words';
import type { Logger } from '../base/log';

/** Each window's folder in the system's temporary folder: `desk-window-XXXXXX`. */
const FOLDER_PREFIX = 'desk-window-';
/** The process id of the host that opened the window, so a later host knows whether it is orphaned. */
const OWNER_FILE = 'host.pid';

/** Debian's Chromium. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** No sign-in, sync, updates, field trials or first-run pages: the window talks to its page only. */
export const QUIET_CHROMIUM_FLAGS: readonly string[] = [
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-dev-shm-usage',
];

/** Removes a window's folder, retrying while the browser's last helper processes let go of it. */
function removeFolder(folder: string): Promise<void> {
  return rm(folder, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }).catch(() => undefined);
}

/** Whether `pid` (or, negative, a process group) still has a process. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the window folders of hosts that are no longer running (killed before they could
 * tidy up), in `parent` (default: the system's temporary folder). Folders of running hosts,
 * and anything that is not a window folder of this user, are left alone. Returns how many went.
 */
export async function removeOrphanedWindowFolders(parent: string = tmpdir()): Promise<number> {
  const entries = await readdir(parent, { withFileTypes: true }).catch(() => []);
  let removed = 0;
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith(FOLDER_PREFIX)) continue;
    const folder = join(parent, entry.name);
    const owner = Number((await readFile(join(folder, OWNER_FILE), 'utf8').catch(() => '')).trim());
    if (!Number.isInteger(owner) || owner <= 0 || running(owner)) continue;
    await removeFolder(folder);
    removed += 1;
  }
  return removed;
}

export interface AppWindowOptions {
  /** Where the window goes; only ever written to the private start page. */
  readonly url: string;
  /** For the log: which window this is (never its address). */
  readonly label: string;
  readonly logger: Logger;
  readonly executable?: string;
}

/** A running window: its browser process and private profile. */
export interface AppWindow {
  /** Resolves once the browser process has exited and its profile folder is removed, with its exit code. */
  readonly exited: Promise<{ readonly code: number | null }>;
  /** Ends the browser process (SIGTERM) and waits for `exited`. */
  close(): Promise<void>;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The page a window starts on, for a moment: its title in the language of the call that opens it. */
function startPage(url: string): string {
  return [
    '<!doctype html>',
    '<meta charset="utf-8">',
    '<meta name="referrer" content="no-referrer">',
    `<meta http-equiv="refresh" content="0;url=${escapeAttribute(url)}">`,
    `<title>${escapeAttribute(words()('host.opening'))}</title>`,
  ].join('\n');
}

/**
 * Opens `url` in a new Chromium app window with a fresh incognito profile, removed when the
 * window's process exits. Throws DeskError `browser_missing` when there is no browser to run.
 */
export async function openAppWindow(options: AppWindowOptions): Promise<AppWindow> {
  const executable = options.executable ?? CHROMIUM_PATH;
  await access(executable, constants.X_OK).catch(() => {
    throw new DeskError('browser_missing', words()('host.browserMissing', { executable }));
  });
  const folder = await mkdtemp(join(tmpdir(), FOLDER_PREFIX));
  await writeFile(join(folder, OWNER_FILE), `${process.pid}\n`, { mode: 0o600 });
  // Chromium's own temporary files (its singleton socket, shared memory) go inside the folder too.
  const temporary = join(folder, 'tmp');
  await mkdir(temporary, { mode: 0o700 });
  const startFile = join(folder, 'start.html');
  await writeFile(startFile, startPage(options.url), { mode: 0o600 });
  const args = [
    `--app=${pathToFileURL(startFile).href}`,
    `--user-data-dir=${join(folder, 'profile')}`,
    '--incognito',
    ...QUIET_CHROMIUM_FLAGS,
    // Chromium refuses to start as root with its sandbox on; as any other user it keeps it.
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
  ];
  // Its own process group: Chromium's helpers (zygote, GPU, crash handler) outlive its main
  // process for a moment and write into the profile; the folder goes once the whole group is gone.
  const child = spawn(executable, args, {
    stdio: 'ignore',
    detached: true,
    env: { ...process.env, TMPDIR: temporary },
  });
  const group = child.pid === undefined ? undefined : -child.pid;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (group !== undefined) process.kill(group, signal);
    } catch {
      // The group is gone already.
    }
  };
  /** Waits up to 5 s for the helpers to leave, then ends them. */
  const groupGone = async () => {
    for (let waited = 0; group !== undefined && running(group) && waited < 5_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    signalGroup('SIGKILL');
  };
  options.logger.log('info', 'app_window.opened', { window: options.label, pid: child.pid });

  const exited = new Promise<{ readonly code: number | null }>((resolveExit) => {
    let finished = false;
    const finish = (code: number | null, error?: Error) => {
      if (finished) return;
      finished = true;
      options.logger.log('info', 'app_window.closed', {
        window: options.label,
        code,
        ...(error ? { error: error.message } : {}),
      });
      void groupGone()
        .then(() => removeFolder(folder))
        .then(() => resolveExit({ code }));
    };
    child.once('error', (error) => finish(null, error));
    child.once('exit', (code) => finish(code));
  });

  return {
    exited,
    async close() {
      if (child.exitCode === null && child.signalCode === null) signalGroup('SIGTERM');
      await exited;
    },
  };
}
