/**
 * Waits, end to end in Chromium through the browser host (every wait is said within a second): a
 * keychain showing its own prompt, a service that stops answering, a service that cannot be reached
 * ("Try now"), a ceremony window that cannot open. Each is said on the page, with what it waits for
 * and a way out, in the person's language.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProfileRegistry } from '../../main/app/ports';
import { launchBrowserHost, profileRegistry, type LaunchedBrowserHost } from '../../main/browser-host/launch';
import { createMemoryCredentialStore } from '../../main/credentials/credential-store';
import type { ConnectionTuning } from '../../main/app/desk-core';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../simulator/simulator';
import { launchChromium } from '../support/browser';
import { makeTempFolder, type TempFolder } from '../support/pdf-files';
import { SAMPLE_MANIFEST, sendBatch } from './journeys';
import { promptingKeychain } from '../support/prompting-keychain';

const DIST = join(import.meta.dirname, '..', '..', 'dist');

/** The browser host over a fresh data folder, with the parts a wait needs swapped in, and its page in Chromium. */
interface WaitsDesk {
  readonly page: Page;
  readonly sim: Simulator;
  readonly host: LaunchedBrowserHost;
  readonly files: TempFolder;
  readonly consoleErrors: string[];
  close(): Promise<void>;
}

let desk: WaitsDesk | undefined;

afterEach(async () => {
  const errors = desk?.consoleErrors ?? [];
  await desk?.close();
  desk = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

async function launchWaitsDesk(
  options: {
    readonly profiles?: (dataDir: string) => ProfileRegistry;
    readonly chromiumPath?: string;
    readonly tuning?: ConnectionTuning;
    readonly systemLocales?: readonly string[];
  } = {},
): Promise<WaitsDesk> {
  const files = makeTempFolder('desk-waits-');
  const sim = await startSimulator({ evidenceDelayMs: 300 });
  const dataDir = files.file('data');
  let browser: Browser | undefined;
  let host: LaunchedBrowserHost | undefined;
  try {
    host = await launchBrowserHost({
      dataDir,
      port: 0,
      demo: false,
      ...(options.profiles ? { profiles: options.profiles(dataDir) } : {}),
      ...(options.chromiumPath ? { chromiumPath: options.chromiumPath } : {}),
      rendererDir: join(DIST, 'renderer'),
      bridgeScriptPath: join(DIST, 'browser-host', 'desk-bridge.js'),
      systemLocales: options.systemLocales ?? ['en-GB'],
      tuning: { retry: { baseDelayMs: 50, maxDelayMs: 500 }, ...options.tuning },
    });
    browser = await launchChromium();
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    const consoleErrors: string[] = [];
    page.on('pageerror', (error) => consoleErrors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await page.goto(host.url);
    const launched = host;
    const openBrowser = browser;
    return {
      page,
      sim,
      host: launched,
      files,
      consoleErrors,
      async close() {
        await openBrowser.close().catch(() => undefined);
        await launched.close();
        await sim.close();
        files.remove();
      },
    };
  } catch (error) {
    await browser?.close();
    await host?.close();
    await sim.close();
    files.remove();
    throw error;
  }
}

/** A saved connection to the simulator and a batch of the sample manifest (3 documents), opened on the page. */
async function openSampleBatch(waits: WaitsDesk, name: string): Promise<string> {
  const { handlers } = waits.host.service;
  await handlers['profiles.save']({
    name: 'Office',
    baseUrl: waits.sim.baseUrl,
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
  const batch = await handlers['batches.create'](name);
  await handlers['manifest.import'](batch.id, SAMPLE_MANIFEST);
  await waits.page.getByRole('button', { name: /^(Batches|Lots|Stapel)$/ }).click();
  await waits.page.getByRole('button', { name, exact: true }).click();
  await waits.page.getByRole('heading', { name, level: 2 }).waitFor();
  return batch.id;
}

/** How many documents of the batch are prepared at the service, as main sees it. */
async function preparedCount(waits: WaitsDesk, batchId: string): Promise<number> {
  const detail = await waits.host.service.handlers['batches.get'](batchId);
  return detail.documents.filter(
    (document) => document.requestId !== undefined && document.class !== 'sending',
  ).length;
}

/**
 * A stand-in for the browser: Debian's Chromium until `displayFlag` exists (with no display it
 * stops at once, as on a server session), then a window that follows its link and stays open.
 */
function browserUntilDisplay(files: TempFolder): { executable: string; displayFlag: string } {
  const displayFlag = files.file('display-connected');
  const window = files.file('window.cjs');
  writeFileSync(
    window,
    `const { readFileSync } = require('node:fs');
const { fileURLToPath } = require('node:url');
const app = process.argv.slice(2).find((arg) => arg.startsWith('--app='));
const page = readFileSync(fileURLToPath(app.slice('--app='.length)), 'utf8');
const link = /url=([^"]+)"/.exec(page)[1].replace(/&amp;/g, '&');
fetch(link, { redirect: 'manual' }).then(() => setInterval(() => {}, 1000));
`,
  );
  const executable = files.file('browser');
  writeFileSync(
    executable,
    `#!/bin/sh
if [ -e ${JSON.stringify(displayFlag)} ]; then exec ${JSON.stringify(process.execPath)} ${JSON.stringify(window)} "$@"; fi
exec /usr/bin/chromium "$@"
`,
  );
  chmodSync(executable, 0o700);
  return { executable, displayFlag };
}

/** The words of the keychain journey in each language. */
const KEYCHAIN_WORDS = {
  en: {
    locale: 'en-GB',
    connections: 'Connections',
    name: 'Name',
    baseUrl: 'Service address (base URL)',
    clientId: 'Client id',
    secret: 'Client secret',
    save: 'Save connection',
    waiting: 'Waiting for the system keychain — a prompt may have opened.',
    stop: 'Stop waiting',
    left: 'You stopped waiting for “Office”.',
    savedLater: 'Connection “Office” saved, once the keychain answered.',
    savedInKeychain: 'Saved in keychain',
  },
  fr: {
    locale: 'fr-FR',
    connections: 'Connexions',
    name: 'Nom',
    baseUrl: 'Adresse du service (URL de base)',
    clientId: 'Identifiant client',
    secret: 'Secret client',
    save: 'Enregistrer la connexion',
    waiting: 'En attente du trousseau du système — une fenêtre de saisie s’est peut-être ouverte.',
    stop: 'Ne plus attendre',
    left: 'Vous n’attendez plus «\u00a0Office\u00a0».',
    savedLater: 'Connexion «\u00a0Office\u00a0» enregistrée, une fois que le trousseau a répondu.',
    savedInKeychain: 'Enregistré dans le trousseau',
  },
  de: {
    locale: 'de-DE',
    connections: 'Verbindungen',
    name: 'Name',
    baseUrl: 'Dienstadresse (Basis-URL)',
    clientId: 'Client-ID',
    secret: 'Client-Secret',
    save: 'Verbindung speichern',
    waiting: 'Warten auf den Schlüsselbund des Systems — möglicherweise hat sich eine Abfrage geöffnet.',
    stop: 'Nicht mehr warten',
    left: 'Sie warten nicht mehr auf „Office“.',
    savedLater: 'Verbindung „Office“ gespeichert, nachdem der Schlüsselbund geantwortet hat.',
    savedInKeychain: 'Im Schlüsselbund gespeichert',
  },
} as const;

describe('waits, end to end in Chromium through the browser host', () => {
  for (const [language, words] of Object.entries(KEYCHAIN_WORDS)) {
    it(`${language}: saving a connection while the system keychain shows its own prompt says so while it waits, lets the person stop waiting, and says how the save ended`, async () => {
      const keychain = promptingKeychain();
      desk = await launchWaitsDesk({
        profiles: (dataDir) => profileRegistry(dataDir, keychain.credentials),
        systemLocales: [words.locale],
      });
      const { page, sim } = desk;
      // The navigation is another part's: its name in any of the languages.
      await page.getByRole('button', { name: /^(Connections|Connexions|Verbindungen)$/ }).click();
      await page.getByRole('heading', { name: words.connections, level: 2 }).waitFor();
      await page.getByLabel(words.name, { exact: true }).fill('Office');
      await page.getByLabel(words.baseUrl).fill(sim.baseUrl);
      await page.getByLabel(words.clientId).fill(DEMO_CLIENT.clientId);
      await page.getByLabel(words.secret).fill(DEMO_CLIENT.clientSecret);

      keychain.lock(); // its unlock prompt opens on the desktop
      const form = page.locator('form');
      await page.getByRole('button', { name: words.save }).click();
      // Said while the keychain has not answered (it answers only when the test says so below).
      await form.getByRole('status').filter({ hasText: words.waiting }).waitFor();

      // The way out: the form is free again, and the page says what becomes of the save.
      await form.getByRole('button', { name: words.stop }).click();
      await page.getByRole('status').filter({ hasText: words.left }).waitFor();
      expect(await page.getByRole('button', { name: words.save }).isEnabled()).toBe(true);

      keychain.answer(); // the person typed the keychain's password
      await page.getByText(words.savedLater).waitFor();
      await page
        .getByRole('row', { name: /Office/ })
        .getByText(words.savedInKeychain)
        .waitFor();
      await expect.poll(() => page.getByText(words.waiting).count()).toBe(0);
      await expect.poll(() => page.getByText(words.left).count()).toBe(0);
    }, 60_000);
  }

  it('testing a connection whose secret is behind the keychain prompt says so while it waits, and the test ends once it is answered', async () => {
    const keychain = promptingKeychain();
    desk = await launchWaitsDesk({ profiles: (dataDir) => profileRegistry(dataDir, keychain.credentials) });
    const { page, sim } = desk;
    await desk.host.service.handlers['profiles.save']({
      name: 'Office',
      baseUrl: sim.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      secret: DEMO_CLIENT.clientSecret,
    });
    await page.getByRole('button', { name: 'Connections' }).click();
    const row = page.getByRole('row', { name: /Office/ });
    await row.getByText('Saved in keychain').waitFor();

    keychain.lock();
    await row.getByRole('button', { name: 'Test connection' }).click();
    const waiting = page
      .getByRole('status')
      .filter({ hasText: 'Waiting for the system keychain — a prompt may have opened.' });
    await waiting.waitFor();
    await row.getByRole('status').filter({ hasText: 'Testing…' }).waitFor();

    keychain.answer();
    await row.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
    await expect.poll(() => waiting.count()).toBe(0);
  }, 60_000);

  it('saving a connection the service address of which is refused: the reason is said in the form, not behind it', async () => {
    desk = await launchWaitsDesk({
      profiles: (dataDir) => profileRegistry(dataDir, createMemoryCredentialStore()),
    });
    const { page } = desk;
    await page.getByRole('button', { name: 'Connections' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Office');
    // An address the browser accepts as a URL, and the app does not (no plain http to a remote host).
    await page.getByLabel('Service address (base URL)').fill('http://sign.example.com');
    await page.getByLabel('Client id').fill('client');
    await page.getByLabel('Client secret').fill('secret');
    await page.getByRole('button', { name: 'Save connection' }).click();
    const problem = page.locator('form').getByRole('alert');
    await problem.filter({ hasText: 'The connection was not saved:' }).waitFor();
    // Nothing was saved, and the form keeps what was typed so it can be corrected.
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Office');
    expect(await page.getByRole('row', { name: /Office/ }).count()).toBe(0);
    expect(await page.locator('.notices').getByRole('alert').count()).toBe(0);
  }, 60_000);
  it('a service that stops answering: while its calls are unanswered the batch says it is slow to answer, with Pause sending, and stops saying so once answers come again', async () => {
    desk = await launchWaitsDesk({
      profiles: (dataDir) => profileRegistry(dataDir, createMemoryCredentialStore()),
    });
    const { page, sim } = desk;
    const batchId = await openSampleBatch(desk, 'Quiet service');
    // The service takes the creations in, and says nothing for 8 s.
    sim.faults.set({ latencyMs: 8_000, pathPattern: '^/api/v1/signing-requests$' });
    await sendBatch(page);
    const slow = page.getByRole('status').filter({ hasText: 'The service is slow to answer; still trying.' });
    await slow.waitFor();
    // Said while the calls are still unanswered, not after.
    expect(await preparedCount(desk, batchId)).toBe(0);
    await slow.getByRole('button', { name: 'Pause sending' }).waitFor();

    sim.faults.set({ latencyMs: 0 }); // the service answers again (the late answers come in)
    await expect.poll(() => preparedCount(desk!, batchId), { timeout: 30_000 }).toBe(3);
    await expect.poll(() => slow.count(), { timeout: 5_000 }).toBe(0);
  }, 90_000);

  it('Pause sending from the slow-service banner pauses the batch; the banner goes with the silent calls', async () => {
    desk = await launchWaitsDesk({
      profiles: (dataDir) => profileRegistry(dataDir, createMemoryCredentialStore()),
    });
    const { page, sim } = desk;
    await openSampleBatch(desk, 'Quiet service');
    sim.faults.set({ latencyMs: 30_000, pathPattern: '^/api/v1/signing-requests$' });
    await sendBatch(page);
    const slow = page.getByRole('status').filter({ hasText: 'The service is slow to answer; still trying.' });
    await slow.getByRole('button', { name: 'Pause sending' }).click();
    await page.getByRole('status').filter({ hasText: 'Sending is paused;' }).waitFor();
    await expect.poll(() => slow.count(), { timeout: 5_000 }).toBe(0);
  }, 90_000);

  it('"Try now" in the banner of a service that cannot be reached sends at once instead of at the end of the wait', async () => {
    desk = await launchWaitsDesk({
      profiles: (dataDir) => profileRegistry(dataDir, createMemoryCredentialStore()),
      // The engine's own next try is far beyond the test's time, and a call cut off is not tried
      // again inside its own call: once the banner shows, nothing is on its way or about to retry,
      // so only "Try now" can send (with retries, a retry already under way when the service came
      // back sent the batch by itself on a loaded machine, and the banner left before the click).
      tuning: { engineWaitMs: { first: 3_600_000, longest: 3_600_000 }, retry: { maxAttempts: 1 } },
    });
    const { page, sim } = desk;
    const batchId = await openSampleBatch(desk, 'Offline Monday');
    sim.faults.set({ dropBeforeRate: 1 }); // every connection is cut
    await sendBatch(page);
    const waiting = page.getByRole('status').filter({ hasText: 'The signing service cannot be reached.' });
    await waiting.waitFor({ timeout: 20_000 });

    sim.faults.set({ dropBeforeRate: 0 }); // the service is back; the engine's next try is an hour away
    await waiting.getByRole('button', { name: 'Try now' }).click();
    await expect.poll(() => preparedCount(desk!, batchId), { timeout: 30_000 }).toBe(3);
    await expect.poll(() => waiting.count()).toBe(0);
  }, 90_000);

  it('"Open ceremony" with no display: the page says why the window did not open, and Try again opens it once it can', async () => {
    const files = makeTempFolder('desk-waits-browser-');
    const browser = browserUntilDisplay(files);
    try {
      desk = await launchWaitsDesk({
        profiles: (dataDir) => profileRegistry(dataDir, createMemoryCredentialStore()),
        chromiumPath: browser.executable,
      });
      const { page } = desk;
      const batchId = await openSampleBatch(desk, 'Signing day');
      await sendBatch(page);
      await expect.poll(() => preparedCount(desk!, batchId), { timeout: 30_000 }).toBe(3);

      // This test process has no display: Debian's Chromium stops at once with exit code 1.
      expect(process.env.DISPLAY ?? '').toBe('');
      await page.getByRole('button', { name: /Open ceremony.*NDA-2026-017/ }).click();
      const problem = page
        .getByRole('alert')
        .filter({ hasText: 'The signing ceremony of NDA-2026-017 did not open.' });
      await problem.waitFor({ timeout: 10_000 });
      await problem.getByText('there is no display to show it on').waitFor();

      writeFileSync(browser.displayFlag, ''); // a display is there now
      await problem.getByRole('button', { name: 'Try again' }).click();
      await page.getByText('The ceremony opened in its own window').waitFor({ timeout: 10_000 });
      expect(await problem.count()).toBe(0);
    } finally {
      await desk?.close();
      desk = undefined;
      files.remove();
    }
  }, 90_000);
});
