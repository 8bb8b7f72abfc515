/**
 * A Chromium app window (`--app`, no tabs or address bar) in a throwaway profile: the browser
 * host's stand-in for an Electron BrowserWindow. The address is never put on the command line,
 * which every local user can read (`ps`, /proc): Chromium opens a start page in the private
 * profile folder (0700, the page 0600) that forwards to the address.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DeskError } from '../app/desk-error';
import type { Logger } from '../log';

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

function startPage(url: string): string {
  return [
    '<!doctype html>',
    '<meta charset="utf-8">',
    '<meta name="referrer" content="no-referrer">',
    `<meta http-equiv="refresh" content="0;url=${escapeAttribute(url)}">`,
    '<title>Opening…</title>',
  ].join('\n');
}

/**
 * Opens `url` in a new Chromium app window with a fresh incognito profile, removed when the
 * window's process exits. Throws DeskError `browser_missing` when there is no browser to run.
 */
export async function openAppWindow(options: AppWindowOptions): Promise<AppWindow> {
  const executable = options.executable ?? CHROMIUM_PATH;
  await access(executable, constants.X_OK).catch(() => {
    throw new DeskError('browser_missing', `No browser was found at ${executable} to open this window.`);
  });
  const folder = await mkdtemp(join(tmpdir(), 'desk-window-'));
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
  const child = spawn(executable, args, { stdio: 'ignore' });
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
      void rm(folder, { recursive: true, force: true })
        .catch(() => undefined)
        .then(() => resolveExit({ code }));
    };
    child.once('error', (error) => finish(null, error));
    child.once('exit', (code) => finish(code));
  });

  return {
    exited,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
