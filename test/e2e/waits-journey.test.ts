/**
 * Waits, end to end in Chromium through the browser host (issue 11, "Every wait is visible within
 * a second"): a keychain showing its own prompt, a service that stops answering, a service that
 * cannot be reached ("Try now"), a ceremony window that cannot open. Each is said on the page,
 * with what it waits for and a way out, in the person's language.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProfileRegistry } from '../../main/app/ports';
import { launchBrowserHost, profileRegistry, type LaunchedBrowserHost } from '../../main/browser-host/launch';
import { createMemoryCredentialStore, type CredentialStore } from '../../main/credentials/credential-store';
import type { ConnectionTuning } from '../../main/desk-core';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../simulator/simulator';
import { launchChromium } from '../support/browser';
import { makeTempFolder, type TempFolder } from '../support/pdf-files';
import { SAMPLE_MANIFEST } from './journeys';

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

/** A keychain that, once locked, answers only when its own unlock prompt is answered. */
function promptingKeychain(): { credentials: CredentialStore; lock: () => void; answer: () => void } {
  const memory = createMemoryCredentialStore();
  let gate: Promise<void> | undefined;
  let release: (() => void) | undefined;
  const prompt = async () => {
    if (gate) await gate;
  };
  return {
    credentials: {
      ...memory,
      saveSecret: async (name, secret) => {
        await prompt();
        return memory.saveSecret(name, secret);
      },
      readSecret: async (name) => {
        await prompt();
        return memory.readSecret(name);
      },
    },
    lock: () => {
      gate = new Promise<void>((resolve) => (release = resolve));
    },
    answer: () => {
      gate = undefined;
      release?.();
    },
  };
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
    it(`${language}: saving a connection while the system keychain shows its own prompt says so within a second, lets the person stop waiting, and says how the save ended`, async () => {
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
      const clicked = Date.now();
      await page.getByRole('button', { name: words.save }).click();
      await form.getByRole('status').filter({ hasText: words.waiting }).waitFor({ timeout: 1_500 });
      expect(Date.now() - clicked).toBeLessThan(1_500);

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
});
