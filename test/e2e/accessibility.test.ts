/**
 * An accessibility scan (axe-core, from npm) of every screen of the desk, in light and dark
 * themes, through the browser host in Chromium: no serious or critical violation is allowed.
 */
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { launchApp, type App } from './app-harness';
import { seriousViolations } from './axe-scan';
import {
  createBatch,
  importSampleManifest,
  registerJourneyClient,
  saveConnection,
  sendBatch,
} from './journeys';

const SAMPLES = join(import.meta.dirname, '..', '..', 'samples');

/** Presses Tab until `target` has the focus, as a keyboard user would; fails after `limit` presses. */
async function tabTo(page: Page, target: Locator, limit = 40): Promise<void> {
  for (let presses = 0; presses < limit; presses += 1) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`not reached with ${limit} presses of Tab`);
}

let app: App | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

describe('accessibility of every screen (axe)', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`finds no serious or critical violation, ${colorScheme} theme`, async () => {
      app = await launchApp({ host: 'browser' });
      const { page, sim } = app;
      await page.emulateMedia({ colorScheme });
      const found: string[] = [];
      const scan = async (screen: string) => found.push(...(await seriousViolations(page, screen)));

      // A first launch (no connection, no batch) opens on Connections.
      await page.getByRole('heading', { name: 'Connections', level: 2 }).waitFor();
      await scan('connections, empty');
      await page.getByRole('button', { name: 'Batches', exact: true }).click();
      await page.getByRole('heading', { name: 'Batches', level: 2 }).waitFor();
      await scan('batches, empty');

      const client = registerJourneyClient(app);
      await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
      await scan('connections, saved and tested');

      await createBatch(page, 'Accessible batch');
      await scan('batch, empty');
      await app.answerNextDialog(join(SAMPLES, 'manifest-with-errors.csv'));
      await page.getByRole('button', { name: 'Import manifest…' }).click();
      await page.getByRole('list', { name: 'Problems in the manifest' }).waitFor();
      await scan('manifest preview with problems');
      await page.getByRole('button', { name: 'Close' }).click();

      const table = await importSampleManifest(app, 'Accessible batch');
      await scan('batch with documents');
      await page.getByText('Batch settings: options and default recipients').click();
      await page.locator('details.settings').getByLabel('Locale').fill('fr');
      await scan('batch settings with a mistake');

      await table.getByRole('button', { name: 'Edit NDA-2026-017' }).click();
      const editor = page.getByRole('dialog');
      await editor.getByLabel('E-mail of recipient 1').fill('berenice@');
      await editor.getByRole('button', { name: 'Add participant' }).click();
      await scan('document editor with a mistake');
      await editor.getByRole('button', { name: 'Cancel' }).click();

      await sendBatch(page);
      await page.getByText('3 of 3 documents sent').waitFor({ timeout: 30_000 });
      await scan('batch sent, waiting for signatures');
      await page.getByRole('button', { name: 'Pause tracking' }).click();
      await page.getByText('Tracking is paused').waitFor();
      await scan('tracking paused');

      await page.getByRole('button', { name: 'Batches', exact: true }).click();
      await page.getByRole('button', { name: 'Accessible batch', exact: true }).waitFor();
      await scan('batches, one sent');
      if (colorScheme === 'light') await app.screenshot('batches');

      expect(found).toEqual([]);
    }, 120_000);
  }

  // The screens this branch words, in French and German (the English run above covers them all).
  const LANGUAGE_WORDS = {
    fr: {
      locale: 'fr-FR',
      batches: 'Lots',
      connections: 'Connexions',
      newName: 'Nom du nouveau lot',
      create: 'Créer le lot',
      settings: 'Paramètres du lot\u00a0: options et destinataires par défaut',
      localeField: 'Langue (locale)',
      addDefault: 'Ajouter un destinataire par défaut',
      email: 'E-mail de Destinataire par défaut 1',
      save: 'Enregistrer les paramètres du lot',
      pause: 'Suspendre le suivi',
      paused: 'Le suivi est suspendu',
      rename: 'Renommer le lot Contrats',
    },
    de: {
      locale: 'de-DE',
      batches: 'Stapel',
      connections: 'Verbindungen',
      newName: 'Name des neuen Stapels',
      create: 'Stapel anlegen',
      settings: 'Stapel-Einstellungen: Optionen und Standardempfänger',
      localeField: 'Gebietsschema',
      addDefault: 'Standardempfänger hinzufügen',
      email: 'E-Mail von Standardempfänger 1',
      save: 'Stapel-Einstellungen speichern',
      pause: 'Verfolgung anhalten',
      paused: 'Die Verfolgung ist angehalten',
      rename: 'Umbenennen Stapel Contrats',
    },
  } as const;
  for (const [language, w] of Object.entries(LANGUAGE_WORDS)) {
    for (const colorScheme of ['light', 'dark'] as const) {
      it(`finds no serious or critical violation in ${language}, ${colorScheme} theme`, async () => {
        app = await launchApp({ host: 'browser', systemLocales: [w.locale] });
        const { page } = app;
        await page.emulateMedia({ colorScheme });
        const found: string[] = [];
        const scan = async (screen: string) => found.push(...(await seriousViolations(page, screen)));

        await page.getByRole('heading', { name: w.batches, level: 2 }).waitFor();
        await scan('batches, empty');
        await page.getByRole('button', { name: w.connections }).click();
        await scan('connections, empty');

        await page.getByRole('button', { name: w.batches, exact: true }).click();
        await page.getByLabel(w.newName).fill('Contrats');
        await page.getByRole('button', { name: w.create }).click();
        await page.getByRole('heading', { name: 'Contrats', level: 2 }).waitFor();
        await scan('batch, empty');
        const settings = page.locator('details.settings');
        await settings.getByText(w.settings, { exact: true }).click();
        await settings.getByLabel(w.localeField).fill('fr');
        await settings.getByRole('button', { name: w.addDefault }).click();
        await settings.getByLabel(w.email).fill('paie@');
        await settings.getByRole('button', { name: w.save }).click();
        await scan('batch settings with mistakes');

        await page.getByRole('button', { name: w.pause }).click();
        await page.getByText(w.paused).waitFor();
        await page.getByRole('button', { name: w.batches, exact: true }).click();
        await page.getByRole('button', { name: w.rename }).click();
        await scan('batches, one renaming, tracking paused');
        if (language === 'fr' && colorScheme === 'light') await app.screenshot('batches-fr');

        expect(found).toEqual([]);
      }, 120_000);
    }
  }

  it('can be used with the keyboard alone: create a batch, import a manifest, edit a document, leave with Escape', async () => {
    app = await launchApp({ host: 'browser' });
    const { page } = app;
    // A first launch opens on Connections; the batches are one press away.
    await page.getByRole('heading', { name: 'Connections', level: 2 }).waitFor();
    await tabTo(page, page.getByRole('button', { name: 'Batches', exact: true }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Batches', level: 2 }).waitFor();
    await tabTo(page, page.getByLabel('New batch name'));
    await page.keyboard.type('Keyboard batch');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Keyboard batch', level: 2 }).waitFor();

    await app.answerNextDialog(join(SAMPLES, 'manifest.csv'));
    await tabTo(page, page.getByRole('button', { name: 'Import manifest…' }));
    await page.keyboard.press('Enter');
    const importButton = page.getByRole('button', { name: 'Import 3 documents' });
    await tabTo(page, importButton);
    await page.keyboard.press('Enter');
    const table = page.getByRole('region', { name: 'Documents of Keyboard batch' });
    await table.getByRole('rowheader', { name: 'NDA-2026-017' }).waitFor();

    // The table's scroll region takes the focus, then its buttons; the editor opens and Escape closes it.
    await tabTo(page, table);
    await tabTo(page, table.getByRole('button', { name: 'Edit NDA-2026-017' }), 80);
    await page.keyboard.press('Enter');
    const editor = page.getByRole('dialog');
    await editor.waitFor();
    // While it is open, focus never reaches the page behind it (past its last control, a browser moves
    // focus to its own toolbar, where the page sees no focused element).
    for (let presses = 0; presses < 30; presses += 1) {
      await page.keyboard.press('Tab');
      const where = await editor.evaluate((dialog) =>
        dialog.contains(document.activeElement)
          ? 'dialog'
          : document.activeElement === document.body
            ? 'none'
            : 'page',
      );
      expect(where).not.toBe('page');
    }
    await page.keyboard.press('Escape');
    await editor.waitFor({ state: 'hidden' });
  }, 60_000);
});
