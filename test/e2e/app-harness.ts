/**
 * The `App` test wrapper for end-to-end journeys (modelled on Signal's playwright harness):
 * starts the service simulator, launches the app in the browser host over a fresh data folder
 * with the real built renderer, opens it in Debian's Chromium, and opens ceremonies in pages of
 * their own. It fails a test when the app's page logs an error or an Electron security warning.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { CeremonyOpener } from '../../main/app/ports';
import { launchBrowserHost, type LaunchedBrowserHost } from '../../main/browser-host/launch';
import { startSimulator, type Simulator, type SimulatorOptions } from '../simulator/simulator';
import { launchChromium } from '../support/browser';
import { makeTempFolder, type TempFolder } from '../support/pdf-files';

const DIST = join(import.meta.dirname, '..', '..', 'dist');

export interface App {
  readonly page: Page;
  readonly sim: Simulator;
  readonly host: LaunchedBrowserHost;
  readonly files: TempFolder;
  /** Ceremony pages opened by the app, newest last. */
  readonly ceremonies: Page[];
  /** Errors the app's page logged; the wrapper fails the test when any is left at close. */
  readonly consoleErrors: string[];
  /** Answers the next path prompt (the browser host's stand-in for file dialogs). */
  answerNextDialog(answer: string): void;
  close(): Promise<void>;
}

/** Starts everything a journey needs; `close()` stops it all, even after a failure. */
export async function launchApp(options: { simulator?: SimulatorOptions } = {}): Promise<App> {
  if (
    !existsSync(join(DIST, 'renderer', 'index.html')) ||
    !existsSync(join(DIST, 'browser-host', 'desk-bridge.js'))
  ) {
    throw new Error('The app is not built: run `npm run build` (npm test does it first).');
  }
  const files = makeTempFolder('desk-e2e-');
  const sim = await startSimulator({ evidenceDelayMs: 300, ...options.simulator });
  const browser: Browser = await launchChromium();
  const ceremonyContexts: BrowserContext[] = [];
  const ceremonies: Page[] = [];
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
  const host = await launchBrowserHost({
    dataDir: files.file('data'),
    port: 0,
    ceremonyOpener: opener,
    demo: false,
    rendererDir: join(DIST, 'renderer'),
    bridgeScriptPath: join(DIST, 'browser-host', 'desk-bridge.js'),
    tuning: { engineWaitMs: { first: 200, longest: 1_000 }, retry: { baseDelayMs: 50, maxDelayMs: 500 } },
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.text().includes('Electron Security Warning'))
      consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(String(error)));
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
  await page.goto(host.url);
  return {
    page,
    sim,
    host,
    files,
    ceremonies,
    consoleErrors,
    answerNextDialog: (answer) => {
      nextAnswer = answer;
    },
    async close() {
      await browser.close().catch(() => undefined);
      await host.close();
      await sim.close();
      files.remove();
    },
  };
}
