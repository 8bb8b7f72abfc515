/**
 * A bridge that cannot lose a call (README "Running the app in each host"), as a person sees it in
 * real Chromium with the real renderer (built from source here): the line to the host goes silent
 * without closing, the "not reachable" banner shows, and once the line is back nothing was lost —
 * the call answered and applied once, the events sent meanwhile delivered — and the banner leaves
 * only once the page shows what is current.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { build as viteBuild } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../support/browser';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { promptingKeychain } from '../../support/prompting-keychain';
import { startTestHost, type TestHost, type TestHostOptions } from './host-fixtures';
import { startSilentLine, type SilentLine } from './silent-line';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const NOT_REACHABLE = 'The app’s backend is not reachable.';
const KEYCHAIN_WAITING = 'Waiting for the system keychain — a prompt may have opened.';

let folder: TempFolder;
let rendererDir: string;
let bridgeEntry: string;
let browser: Browser;
const contexts: BrowserContext[] = [];
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  folder = makeTempFolder('desk-banner-');
  rendererDir = folder.file('renderer');
  // The page's bridge with short heartbeats, so a silent line is found in a moment.
  bridgeEntry = folder.file('bridge-entry.ts');
  writeFileSync(
    bridgeEntry,
    `import { installDeskBridge } from ${JSON.stringify(join(ROOT, 'renderer', 'browser-host', 'desk-bridge.ts'))};
installDeskBridge({ heartbeatMs: 100, silenceMs: 800, callDeadlineMs: 30_000, queueTimeoutMs: 20_000, reconnectFirstMs: 50, reconnectLongestMs: 300 });
`,
  );
  [browser] = await Promise.all([
    launchChromium(),
    viteBuild({
      configFile: join(ROOT, 'vite.config.ts'),
      root: join(ROOT, 'renderer'),
      build: { outDir: rendererDir, emptyOutDir: true },
      logLevel: 'silent',
    }),
  ]);
}, 180_000);

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
  for (const stop of stops.splice(0).reverse()) await stop();
});

afterAll(async () => {
  await browser?.close();
  folder?.remove();
});

/** A host with the real renderer, a silent line to it, and the app opened through the line. */
async function openApp(
  options: TestHostOptions = {},
): Promise<{ readonly host: TestHost; readonly line: SilentLine; readonly page: Page }> {
  const host = await startTestHost({ rendererDir, bridgeEntry, bridgeTuning: { pingMs: 200 }, ...options });
  stops.push(() => host.close());
  const line = await startSilentLine(host.port);
  stops.push(() => line.close());
  // Chromium sends nothing for loopback through a proxy unless told to (`<-loopback>`).
  const context = await browser.newContext({ proxy: { server: line.proxy, bypass: '<-loopback>' } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(host.launched.url);
  await page.getByRole('button', { name: 'Batches', exact: true }).click();
  await page.getByLabel('New batch name').waitFor();
  return { host, line, page };
}

const notReachable = (page: Page) => page.getByRole('alert').filter({ hasText: NOT_REACHABLE });

/**
 * Starts watching for the "not reachable" banner to leave; resolves with the page's text at that
 * very moment (what the person sees as the banner goes).
 */
async function textWhenBannerLeaves(page: Page): Promise<() => Promise<string>> {
  await page.evaluate((banner) => {
    const up = () =>
      [...document.querySelectorAll('[role="alert"]')].some((element) =>
        element.textContent?.includes(banner),
      );
    (window as unknown as { bannerLeft: Promise<string> }).bannerLeft = new Promise((resolve) => {
      const observer = new MutationObserver(() => {
        if (up()) return;
        observer.disconnect();
        resolve(document.body.innerText);
      });
      observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    });
  }, NOT_REACHABLE);
  return () => page.evaluate(() => (window as unknown as { bannerLeft: Promise<string> }).bannerLeft);
}

async function batchNames(host: TestHost): Promise<string[]> {
  return (await host.launched.service.handlers['batches.list']()).map((batch) => batch.name);
}

describe('the browser host’s page when its line goes silent without closing', () => {
  it('shows the banner, and once the line is back opens the batch it was creating, created once', async () => {
    const { host, line, page } = await openApp();
    await page.getByLabel('New batch name').fill('Through the silence');
    line.silence('to-page');
    await page.getByRole('button', { name: 'Create batch' }).click();
    await notReachable(page).waitFor();
    // The call reached the host; only its answer was lost.
    await expect.poll(() => batchNames(host)).toContain('Through the silence');

    line.restore();
    await page.getByRole('heading', { name: 'Through the silence', level: 2 }).waitFor();
    await notReachable(page).waitFor({ state: 'detached' });
    expect((await batchNames(host)).filter((name) => name === 'Through the silence')).toHaveLength(1);
    await page.getByRole('button', { name: 'Batches', exact: true }).click();
    await expect
      .poll(() => page.getByRole('button', { name: 'Through the silence', exact: true }).count())
      .toBe(1);
  }, 60_000);

  it('delivers what happened meanwhile: the keychain’s wait that ended clears its banner, before the banner leaves', async () => {
    const keychain = promptingKeychain();
    const { line, page } = await openApp({ credentials: keychain.credentials });
    keychain.lock();
    await page.evaluate(() => {
      void window.desk?.profiles.save({
        name: 'Office',
        baseUrl: 'http://127.0.0.1:4010',
        clientId: 'desk',
        secret: 'desk-secret',
      });
    });
    const keychainBanner = page.getByRole('status').filter({ hasText: KEYCHAIN_WAITING });
    await keychainBanner.waitFor();

    line.silence('both');
    await notReachable(page).waitFor();
    keychain.answer(); // main says "no longer waiting" while the page cannot hear it
    const leaving = await textWhenBannerLeaves(page);
    line.restore();
    expect(await leaving()).not.toContain(KEYCHAIN_WAITING);
    await keychainBanner.waitFor({ state: 'detached' });
  }, 60_000);

  it('when what happened meanwhile cannot be replayed, keeps the banner until the page has read everything anew', async () => {
    // The host keeps one event: any two missed cannot be replayed.
    const { host, line, page } = await openApp({ bridgeTuning: { pingMs: 200, events: { maxEvents: 1 } } });
    line.silence('both');
    await notReachable(page).waitFor();
    for (const name of ['Made elsewhere 1', 'Made elsewhere 2']) {
      await host.launched.service.handlers['batches.create'](name);
    }
    const leaving = await textWhenBannerLeaves(page);
    line.restore();
    expect(await leaving()).toContain('Made elsewhere 2');
    await page.getByRole('button', { name: 'Made elsewhere 1', exact: true }).waitFor();
  }, 60_000);
});
