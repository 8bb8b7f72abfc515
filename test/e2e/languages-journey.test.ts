/**
 * The desk in English, French and German, in real Chromium through the browser host: a computer set
 * up in a language gets the desk in it, and preparing a batch by hand — creating it, its settings
 * with the mistakes the fields name, renaming it — speaks that language throughout, main's words
 * included. The language chosen in the top bar changes the whole page at once and is still there
 * after a restart on the same data folder. Locators use each language's own words.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchApp, type App } from './app-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../support/pdf-files';

/** The words a person reads, per language (as the catalogs say them, typed here by hand). */
const WORDS = {
  en: {
    locale: 'en-GB',
    lang: 'en-GB',
    batches: 'Batches',
    newName: 'New batch name',
    create: 'Create batch',
    language: 'Language',
    system: 'System (English)',
    settings: 'Batch settings: options and default recipients',
    localeField: 'Locale',
    localeError: 'Locale must look like language-REGION, e.g. fr-FR or en-GB.',
    addDefault: 'Add default recipient',
    email: 'E-mail of Default recipient 1',
    emailError: 'E-mail must be a valid e-mail address.',
    save: 'Save batch settings',
    attention: 'Some fields need attention (marked above). Nothing was saved yet.',
    notSent: 'Not sent',
    rename: (name: string) => `Rename batch ${name}`,
    renameField: 'Batch name',
    saveName: 'Save name',
    problem: 'Add at least one recipient.',
  },
  fr: {
    locale: 'fr-FR',
    lang: 'fr-FR',
    batches: 'Lots',
    newName: 'Nom du nouveau lot',
    create: 'Créer le lot',
    language: 'Langue',
    system: 'Système (Français)',
    settings: 'Paramètres du lot\u00a0: options et destinataires par défaut',
    localeField: 'Langue (locale)',
    localeError: 'La langue doit avoir la forme langue-RÉGION, par exemple fr-FR ou en-GB.',
    addDefault: 'Ajouter un destinataire par défaut',
    email: 'E-mail de Destinataire par défaut 1',
    emailError: 'L’e-mail doit être une adresse e-mail valide.',
    save: 'Enregistrer les paramètres du lot',
    attention: 'Certains champs sont à corriger (signalés ci-dessus). Rien n’a encore été enregistré.',
    notSent: 'Non envoyés',
    rename: (name: string) => `Renommer le lot ${name}`,
    renameField: 'Nom du lot',
    saveName: 'Enregistrer le nom',
    problem: 'Ajoutez au moins un destinataire.',
  },
  de: {
    locale: 'de-DE',
    lang: 'de-DE',
    batches: 'Stapel',
    newName: 'Name des neuen Stapels',
    create: 'Stapel anlegen',
    language: 'Sprache',
    system: 'System (Deutsch)',
    settings: 'Stapel-Einstellungen: Optionen und Standardempfänger',
    localeField: 'Gebietsschema',
    localeError: 'Das Gebietsschema muss die Form Sprache-REGION haben, z. B. fr-FR oder en-GB.',
    addDefault: 'Standardempfänger hinzufügen',
    email: 'E-Mail von Standardempfänger 1',
    emailError: 'Die E-Mail-Adresse muss eine gültige E-Mail-Adresse sein.',
    save: 'Stapel-Einstellungen speichern',
    attention: 'Einige Felder müssen korrigiert werden (oben markiert). Noch wurde nichts gespeichert.',
    notSent: 'Nicht gesendet',
    rename: (name: string) => `Umbenennen Stapel ${name}`,
    renameField: 'Name des Stapels',
    saveName: 'Namen speichern',
    problem: 'Fügen Sie mindestens einen Empfänger hinzu.',
  },
} as const;

type Language = keyof typeof WORDS;

let app: App | undefined;
let kept: TempFolder | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  kept?.remove();
  kept = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

/** Prepares a batch by hand in `language`, checking every word on the way. */
async function prepareByHand(page: Page, language: Language): Promise<void> {
  const w = WORDS[language];
  // A first launch opens on Connections; the batches are one click away.
  await page.getByRole('button', { name: w.batches, exact: true }).click();
  await page.getByRole('heading', { name: w.batches, level: 2 }).waitFor();
  expect(await page.locator('html').getAttribute('lang')).toBe(w.lang);
  await expect.poll(() => page.getByLabel(w.language).inputValue()).toBe('system');
  expect(await page.getByLabel(w.language).locator('option:checked').innerText()).toBe(w.system);

  await page.getByLabel(w.newName).fill('Contrats');
  await page.getByRole('button', { name: w.create }).click();
  await page.getByRole('heading', { name: 'Contrats', level: 2 }).waitFor();

  // Batch settings: the mistakes are named in the language, and nothing is saved.
  const settings = page.locator('details.settings');
  await settings.getByText(w.settings, { exact: true }).click();
  await settings.getByLabel(w.localeField).fill('fr');
  await settings.getByText(w.localeError).waitFor();
  await settings.getByRole('button', { name: w.addDefault }).click();
  await settings.getByLabel(w.email).fill('paie@');
  await settings.getByText(w.emailError).waitFor();
  await settings.getByRole('button', { name: w.save }).click();
  await settings.getByRole('alert').filter({ hasText: w.attention }).waitFor();

  // Back to the list: its columns, a rename, in the language.
  await page.getByRole('button', { name: w.batches, exact: true }).click();
  await page.getByRole('columnheader', { name: w.notSent }).waitFor();
  await page.getByRole('button', { name: w.rename('Contrats') }).click();
  await page.getByLabel(w.renameField, { exact: true }).fill('Contrats de mars');
  await page.getByRole('button', { name: w.saveName }).click();
  await page.getByRole('button', { name: 'Contrats de mars', exact: true }).waitFor();
}

describe('the desk in three languages', () => {
  for (const language of Object.keys(WORDS) as Language[]) {
    it(`prepares a batch by hand on a computer set up in ${WORDS[language].locale}`, async () => {
      app = await launchApp({ host: 'browser', systemLocales: [WORDS[language].locale] });
      await prepareByHand(app.page, language);
      // Main's words for the page are in the language too: what stops a document without recipients.
      const pdf = await writePdf(app.files, 'contrat.pdf');
      const problems = await app.page.evaluate(async (path) => {
        const desk = window.desk;
        const list = await desk?.batches.list();
        const batchId = list?.ok ? list.value[0]?.id : undefined;
        if (!desk || !batchId) return undefined;
        await desk.documents.addPaths(batchId, [path]);
        const detail = await desk.batches.get(batchId);
        return detail.ok ? detail.value.documents[0]?.problems : undefined;
      }, pdf);
      expect(problems?.[0]).toBe(WORDS[language].problem);
    }, 60_000);
  }

  it('the language chosen in the top bar changes the whole page at once and outlives a restart', async () => {
    kept = makeTempFolder('desk-language-');
    const dataDir = kept.file('data');
    app = await launchApp({ host: 'browser', systemLocales: ['en-US'], dataDir });
    let page = app.page;
    await page.getByRole('button', { name: 'Batches', exact: true }).click();
    await page.getByRole('heading', { name: 'Batches', level: 2 }).waitFor();
    await page.getByLabel('Language').selectOption({ label: 'Français' });
    // At once, everywhere: the heading, the form, the navigation, the page's own language.
    await page.getByRole('heading', { name: 'Lots', level: 2 }).waitFor();
    await page.getByRole('button', { name: 'Créer le lot' }).waitFor();
    await page.getByRole('button', { name: 'Connexions' }).waitFor();
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('fr');
    expect(await page.locator('body').innerText()).not.toContain('Create batch');

    await app.close();
    app = await launchApp({ host: 'browser', systemLocales: ['en-US'], dataDir });
    page = app.page;
    await page.getByRole('button', { name: 'Lots', exact: true }).click();
    await page.getByRole('heading', { name: 'Lots', level: 2 }).waitFor();
    expect(await page.getByLabel('Langue').inputValue()).toBe('fr');
    await page.getByLabel('Langue').selectOption({ label: 'Système (English)' });
    await page.getByRole('heading', { name: 'Batches', level: 2 }).waitFor();
  }, 60_000);
});
