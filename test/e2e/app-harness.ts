/**
 * The `App` test wrapper for end-to-end journeys (modelled on Signal's playwright harness): it
 * starts the service simulator and launches the app on one of its two hosts, then gives the
 * journey the same handles either way.
 *
 * - `browser`: the browser host in-process over a fresh data folder, the real built renderer in
 *   Debian's Chromium, ceremonies in pages of their own browser contexts.
 * - `electron`: the real app with Playwright's `_electron.launch` (a fresh user-data folder,
 *   `--no-sandbox` as root, Xvfb when there is no display), native dialogs answered through
 *   the main process, ceremonies in the app's own ceremony windows.
 *
 * It records what could leak a secret (log lines, bridge frames) for `expectNoSecretLeft`, and
 * fails a test when the app's page logged an error or an Electron security warning.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import {
  _electron as electron,
  type Browser,
  type BrowserContext,
  type ElectronApplication,
  type Page,
} from 'playwright-core';
import { expect } from 'vitest';
import type { CeremonyOpener } from '../../main/app/ports';
import type { DeskService } from '../../main/app/desk-service';
import type { InvokeChannel } from '../../shared/ipc/contract';
import { launchBrowserHost, profileRegistry, type LaunchedBrowserHost } from '../../main/browser-host/launch';
import { createKeytarCredentialStore } from '../../main/credentials/credential-store';
import { createJsonLogger } from '../../main/base/log';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../simulator/simulator';
import { launchChromium } from '../support/browser';
import { startVirtualDisplay, type VirtualDisplay } from '../support/display';
import { makeTempFolder, type TempFolder } from '../support/pdf-files';

const ROOT = join(import.meta.dirname, '..', '..');
const DIST = join(ROOT, 'dist');

export type HostKind = 'browser' | 'electron';

/** A call main takes only when the test says: the way to make an answer come late, without a clock. */
export interface HeldCall {
  /** Resolves when the page's call has reached main (and is held there). */
  readonly arrived: Promise<void>;
  /** Lets main take the call. */
  release(): void;
  /** Resolves once main has answered it (the answer is then on its way to the page). */
  readonly answered: Promise<void>;
}

export interface App {
  readonly host: HostKind;
  /** The app's main window. */
  readonly page: Page;
  readonly sim: Simulator;
  readonly files: TempFolder;
  /** The data folder: batches, PDF copies, profiles. */
  readonly dataDir: string;
  /** Ceremony windows opened by the app, oldest first. */
  readonly ceremonies: Page[];
  /** Errors the app's page logged; the journey fails when any is left at close. */
  readonly consoleErrors: string[];
  /** Everything the app logged (read from its log file for Electron), for secret scans. */
  logLines(): string[];
  /**
   * Every message main sent to the page that the harness can see (IPC results and events over
   * the browser host's bridge). Messages from the page are not here: a secret the user types
   * goes to main once, to be stored; it must never come back.
   */
  readonly bridgeFramesToPage: string[];
  /**
   * Browser host only (empty for Electron): the channels of the calls main took, in the order it
   * took them — the app's own log of what the page asked, for "nothing was asked" after a known
   * later call instead of a wait.
   */
  readonly callsToMain: readonly string[];
  /** Browser host only: main takes the next call on `channel` only once the test releases it. */
  holdNextCall(channel: InvokeChannel): HeldCall;
  /** Answers the next file dialog (open or save) with these paths; null cancels it. */
  answerNextDialog(paths: string | readonly string[] | null): Promise<void>;
  /**
   * Where the next report of the batch `batchName` is saved: the browser host chooses it itself
   * (its home's XDG download folder, `reportsFolder`), Electron's save dialog is answered with a
   * file of `files`.
   */
  saveNextReport(batchName: string): Promise<string>;
  /** Browser host only: the XDG download folder of the host's own home (never the real user's). */
  readonly reportsFolder: string | undefined;
  /**
   * A screenshot of the main window, for the README: written to docs/screenshots/<name>.png
   * when UPDATE_SCREENSHOTS=1 (browser host only, so the pictures stay the same), else to the
   * run's temporary folder, so a test run never changes the repository.
   */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export interface LaunchOptions {
  readonly host: HostKind;
  readonly simulator?: SimulatorOptions;
  /** Browser host only: offer the built-in simulator as the demo connection, as `npm start` does. */
  readonly demo?: boolean;
  /**
   * Browser host only: the system's preferred languages (e.g. ["fr-FR"]), for main and for the
   * page's browser alike, as on a computer set up in that language. Default: the environment's.
   */
  readonly systemLocales?: readonly string[];
  /** Browser host only: this data folder (kept at close), to start the app again on the same data. */
  readonly dataDir?: string;
  /**
   * Browser host only: the page reaches its host through this HTTP proxy, loopback included
   * (a `CuttableLine`'s server), so a test can cut the line between them.
   */
  readonly proxy?: string;
}

/** The Electron runtime, when `npm run setup` could download it. */
export function electronBinary(): string | undefined {
  const pathFile = join(ROOT, 'node_modules', 'electron', 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join(ROOT, 'node_modules', 'electron', 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

function requireBuild(): void {
  if (
    !existsSync(join(DIST, 'renderer', 'index.html')) ||
    !existsSync(join(DIST, 'browser-host', 'desk-bridge.js')) ||
    !existsSync(join(DIST, 'main', 'index.js'))
  ) {
    throw new Error('The app is not built: run `npm run build` (npm test does it first).');
  }
}

function watchConsole(page: Page, consoleErrors: string[]): void {
  page.on('console', (message) => {
    if (message.type() === 'error' || message.text().includes('Electron Security Warning'))
      consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(String(error)));
}

/** Starts everything a journey needs on the chosen host; `close()` stops it all, even after a failure. */
export async function launchApp(options: LaunchOptions): Promise<App> {
  requireBuild();
  const files = makeTempFolder('desk-e2e-');
  const sim = await startSimulator({ evidenceDelayMs: 300, ...options.simulator });
  try {
    return options.host === 'electron'
      ? await launchElectron(files, sim)
      : await launchBrowser(files, sim, options);
  } catch (error) {
    await sim.close();
    files.remove();
    throw error;
  }
}

async function launchBrowser(files: TempFolder, sim: Simulator, options: LaunchOptions): Promise<App> {
  const demo = options.demo === true;
  const browser: Browser = await launchChromium();
  const ceremonyContexts: BrowserContext[] = [];
  const ceremonies: Page[] = [];
  const lines: string[] = [];
  const opener: CeremonyOpener = {
    async open(request) {
      // A context of its own: like the app's ceremony window, it shares nothing with the app page.
      const context = await browser.newContext();
      ceremonyContexts.push(context);
      const page = await context.newPage();
      page.once('close', () => request.onClosed());
      const session =
        Date.now() >= request.session.expiresAt
          ? await request.renew()
          : { ok: true as const, value: request.session };
      if (!session.ok) throw new Error(session.error.message);
      await page.goto(session.value.widgetUrl.reveal());
      ceremonies.push(page);
    },
  };
  const dataDir = options.dataDir ?? files.file('data');
  // A home of the host's own, set up like a French desktop's: reports land in its XDG download
  // folder, never in the real user's Downloads.
  const home = files.file('home');
  const reportsFolder = join(home, 'Téléchargements');
  mkdirSync(join(home, '.config'), { recursive: true });
  mkdirSync(reportsFolder);
  writeFileSync(join(home, '.config', 'user-dirs.dirs'), 'XDG_DOWNLOAD_DIR="$HOME/Téléchargements"\n');
  let host: LaunchedBrowserHost;
  try {
    host = await launchBrowserHost({
      dataDir,
      home,
      port: 0,
      // The real keychain, with entries of this data folder's own: journeys running side by side
      // each save an "Office" connection, which must not replace one another's secret.
      profiles: profileRegistry(
        dataDir,
        createKeytarCredentialStore(
          `signing-batch-desk-test-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`,
        ),
      ),
      ceremonyOpener: opener,
      // Undefined: the host starts its own built-in simulator when the demo is chosen.
      ...(demo ? {} : { demo: false as const }),
      logger: createJsonLogger((line) => lines.push(line)),
      rendererDir: join(DIST, 'renderer'),
      bridgeScriptPath: join(DIST, 'browser-host', 'desk-bridge.js'),
      ...(options.systemLocales ? { systemLocales: options.systemLocales } : {}),
      tuning: {
        engineWaitMs: { first: 200, longest: 1_000 },
        retry: { baseDelayMs: 50, maxDelayMs: 500 },
      },
    });
  } catch (error) {
    await browser.close();
    throw error;
  }
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    ...(options.systemLocales?.[0] ? { locale: options.systemLocales[0] } : {}),
    // Chromium sends nothing for loopback through a proxy unless told to (`<-loopback>`).
    ...(options.proxy ? { proxy: { server: options.proxy, bypass: '<-loopback>' } } : {}),
  });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  watchConsole(page, consoleErrors);
  const bridgeFramesToPage: string[] = [];
  page.on('websocket', (socket) => {
    socket.on('framereceived', (frame) => bridgeFramesToPage.push(String(frame.payload)));
  });
  let nextAnswer: string | undefined;
  page.on('dialog', (dialog) => {
    if (dialog.type() === 'prompt' && nextAnswer !== undefined) {
      void dialog.accept(nextAnswer);
      nextAnswer = undefined;
    } else if (dialog.type() === 'confirm') {
      void dialog.accept();
    } else {
      void dialog.dismiss();
    }
  });
  const { callsToMain, holdNextCall } = watchCalls(host.service);
  await page.goto(host.url);
  return {
    host: 'browser',
    page,
    sim,
    files,
    dataDir,
    ceremonies,
    consoleErrors,
    logLines: () => [...lines],
    bridgeFramesToPage,
    callsToMain,
    holdNextCall,
    screenshot: (name) => screenshotOf(page, files, name, true),
    async answerNextDialog(paths) {
      // The browser host's stand-in for a file dialog is a prompt: several paths are separated by ";".
      nextAnswer = paths === null ? undefined : typeof paths === 'string' ? paths : paths.join(';');
    },
    reportsFolder,
    // Nothing to answer: the host names the file after the batch, in its download folder.
    saveNextReport: async (batchName) => join(reportsFolder, `${batchName}.csv`),
    async close() {
      await browser.close().catch(() => undefined);
      await host.close();
      await sim.close();
      files.remove();
    },
  };
}

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/**
 * Wraps each of the service's handlers, which the host looks up by channel at every call: main's
 * calls are logged in order, and the next call on a held channel waits for the test's release.
 */
function watchCalls(service: DeskService): Pick<App, 'callsToMain' | 'holdNextCall'> {
  const callsToMain: string[] = [];
  const holds = new Map<string, { arrive(): void; released: Promise<void>; answer(): void }>();
  const handlers = service.handlers as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const [channel, handler] of Object.entries(handlers)) {
    handlers[channel] = async (...args) => {
      callsToMain.push(channel);
      const hold = holds.get(channel);
      if (!hold) return handler(...args);
      holds.delete(channel);
      hold.arrive();
      await hold.released;
      try {
        return await handler(...args);
      } finally {
        hold.answer();
      }
    };
  }
  return {
    callsToMain,
    holdNextCall(channel) {
      if (holds.has(channel)) throw new Error(`a call on ${channel} is held already`);
      const arrived = signal();
      const released = signal();
      const answered = signal();
      holds.set(channel, { arrive: arrived.resolve, released: released.promise, answer: answered.resolve });
      return { arrived: arrived.promise, release: released.resolve, answered: answered.promise };
    },
  };
}

async function launchElectron(files: TempFolder, sim: Simulator): Promise<App> {
  const binary = electronBinary();
  if (!binary)
    throw new Error('The Electron runtime is not installed (npm run setup downloads it when it can).');
  const userData = files.file('user-data');
  let display: VirtualDisplay | undefined;
  if (!process.env.DISPLAY) display = await startVirtualDisplay();
  let app: ElectronApplication;
  try {
    app = await electron.launch({
      executablePath: binary,
      // The project folder is the app (package.json "main"), as `npm start` runs it.
      args: [
        ROOT,
        `--user-data-dir=${userData}`,
        // Chromium's sandbox refuses to run as root (CI containers).
        ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      ],
      env: {
        ...process.env,
        ...(display ? { DISPLAY: display.display } : {}),
        ELECTRON_ENABLE_SECURITY_WARNINGS: 'true',
      },
    });
  } catch (error) {
    display?.close();
    throw error;
  }
  const page = await app.firstWindow();
  const consoleErrors: string[] = [];
  watchConsole(page, consoleErrors);
  const ceremonies: Page[] = [];
  app.on('window', (window) => {
    if (window !== page) {
      watchConsole(window, []);
      ceremonies.push(window);
    }
  });
  const logFile = join(userData, 'logs', 'main.log');
  /** The next native open or save dialog answers these paths, then the real one is back. */
  const answerNextDialog = async (paths: string | readonly string[] | null): Promise<void> => {
    const answer = paths === null ? null : typeof paths === 'string' ? [paths] : [...paths];
    await app.evaluate(({ dialog }, chosen) => {
      const patched = dialog as unknown as Record<string, unknown>;
      const originals = { open: dialog.showOpenDialog, save: dialog.showSaveDialog };
      const restore = () => {
        patched.showOpenDialog = originals.open;
        patched.showSaveDialog = originals.save;
      };
      patched.showOpenDialog = async () => {
        restore();
        return chosen === null ? { canceled: true, filePaths: [] } : { canceled: false, filePaths: chosen };
      };
      patched.showSaveDialog = async () => {
        restore();
        return chosen === null ? { canceled: true } : { canceled: false, filePath: chosen[0] };
      };
    }, answer);
  };
  return {
    host: 'electron',
    page,
    sim,
    files,
    dataDir: join(userData, 'data'),
    ceremonies,
    consoleErrors,
    logLines: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').filter(Boolean) : []),
    bridgeFramesToPage: [],
    callsToMain: [],
    holdNextCall() {
      throw new Error('Holding a call is for the browser host only (Electron runs main out of reach).');
    },
    screenshot: (name) => screenshotOf(page, files, name, false),
    reportsFolder: undefined,
    async saveNextReport(batchName) {
      const path = files.file(`${batchName}.csv`);
      await answerNextDialog(path);
      return path;
    },
    answerNextDialog,
    async close() {
      // The app lives in the tray: closing its window does not quit it.
      await app.evaluate(({ app: electronApp }) => electronApp.quit()).catch(() => undefined);
      await app.close().catch(() => undefined);
      display?.close();
      await sim.close();
      files.remove();
    },
  };
}

const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');

async function screenshotOf(
  page: Page,
  files: TempFolder,
  name: string,
  forReadme: boolean,
): Promise<string> {
  const path =
    forReadme && process.env.UPDATE_SCREENSHOTS === '1'
      ? join(SCREENSHOTS, `${name}.png`)
      : files.file(`${name}.png`);
  mkdirSync(dirname(path), { recursive: true });
  // Still pictures: no blinking caret, no animation caught halfway.
  await page.screenshot({ path, animations: 'disabled', caret: 'hide' });
  return path;
}

/** Every file under `folder`, recursively. */
function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/**
 * After a journey: none of `secrets` (client secret, access tokens, widget URLs) appears in a
 * log line, a message from main to the page, the page itself, or any file of the data folder.
 */
export async function expectNoSecretLeft(app: App, secrets: readonly string[]): Promise<void> {
  const wanted = secrets.filter((secret) => secret.length >= 6);
  expect(wanted.length, 'secrets to look for').toBeGreaterThan(0);
  const logs = app.logLines().join('\n');
  const frames = app.bridgeFramesToPage.join('\n');
  const pageText = await app.page.content();
  const files = filesUnder(app.dataDir).filter((path) => statSync(path).size < 64 * 1024 * 1024);
  for (const secret of wanted) {
    expect(logs.includes(secret), 'a secret in the log').toBe(false);
    expect(frames.includes(secret), 'a secret in a message to the page').toBe(false);
    expect(pageText.includes(secret), 'a secret in the page').toBe(false);
    for (const path of files) {
      expect(readFileSync(path).includes(secret), `a secret in ${path}`).toBe(false);
    }
  }
  expect(files.length, 'data folder files scanned').toBeGreaterThan(0);
  expect(logs.length, 'log lines scanned').toBeGreaterThan(0);
}
