/**
 * An accessibility scan (axe-core, from npm) of every screen of the desk, in light and dark
 * themes, through the browser host in Chromium: no serious or critical violation is allowed.
 */
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { launchApp, type App } from './app-harness';
import { seriousViolations } from './axe-scan';
import { LANGUAGES, type Language } from '../../shared/i18n/languages';
import { createTranslator } from '../../shared/i18n/translator';
import { registerJourneyClient } from './journeys';

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
  /** A computer set up in each language: the desk follows it (and is worded from the same catalogs). */
  const SYSTEM_LOCALES: Readonly<Record<Language, string>> = { en: 'en-GB', fr: 'fr-FR', de: 'de-DE' };

  for (const language of LANGUAGES) {
    for (const colorScheme of ['light', 'dark'] as const) {
      it(`finds no serious or critical violation on any screen, ${language}, ${colorScheme} theme`, async () => {
        app = await launchApp({ host: 'browser', systemLocales: [SYSTEM_LOCALES[language]] });
        const { page, sim } = app;
        const { t } = createTranslator(language);
        await page.emulateMedia({ colorScheme });
        const found: string[] = [];
        const scan = async (screen: string) =>
          found.push(...(await seriousViolations(page, `${screen} (${language}, ${colorScheme})`)));
        const button = (name: string, exact = true) => page.getByRole('button', { name, exact });

        // A first launch (no connection, no batch) opens on Connections.
        await page.getByRole('heading', { name: t('connections.title'), level: 2 }).waitFor();
        await scan('connections, empty');
        await button(t('common.batches')).click();
        await page.getByRole('heading', { name: t('common.batches'), level: 2 }).waitFor();
        await scan('batches, empty');

        const client = registerJourneyClient(app);
        await button(t('common.connections')).click();
        await page.getByLabel(t('connections.name'), { exact: true }).fill('Office');
        await page.getByLabel(t('connections.baseUrl')).fill(sim.baseUrl);
        await page.getByLabel(t('connections.clientId'), { exact: true }).fill(client.clientId);
        await page.getByLabel(t('connections.secret')).fill(client.clientSecret);
        await button(t('connections.save')).click();
        const row = page.getByRole('row', { name: /Office/ });
        await row.getByText(t('connections.secretSaved')).waitFor();
        await row.getByRole('button', { name: t('connections.test') }).click();
        // "Connected", "Connecté", "Verbunden": the answer's first word, before its colon.
        const connected = t('connections.testOk', { scopes: '' }).split(/\s*:/)[0]!;
        await row.getByRole('status').filter({ hasText: connected }).waitFor();
        await scan('connections, saved and tested');

        await button(t('common.batches')).click();
        await page.getByLabel(t('batches.newName')).fill('Contrats');
        await button(t('batches.create')).click();
        await page.getByRole('heading', { name: 'Contrats', level: 2 }).waitFor();
        await scan('batch, empty');
        await app.answerNextDialog(join(SAMPLES, 'manifest-with-errors.csv'));
        await button(t('batch.importManifest')).click();
        await page.getByRole('list', { name: t('manifest.problemsLabel') }).waitFor();
        await scan('manifest preview with problems');
        await button(t('common.close')).click();

        await app.answerNextDialog(join(SAMPLES, 'manifest.csv'));
        await button(t('batch.importManifest')).click();
        await button(t('manifest.import', { count: 3 })).click();
        const table = page.getByRole('region', { name: t('documents.region', { batch: 'Contrats' }) });
        await table.getByRole('rowheader', { name: 'NDA-2026-017' }).waitFor();
        await scan('batch with documents');
        await page.getByText(t('batches.settingsSummary'), { exact: true }).click();
        await page.locator('details.settings').getByLabel(t('batches.locale')).fill('fr');
        await scan('batch settings with a mistake');

        await table.getByRole('button', { name: t('editor.title', { reference: 'NDA-2026-017' }) }).click();
        const editor = page.getByRole('dialog');
        await editor
          .getByRole('group', { name: t('common.participantRow', { noun: 'recipient', number: 1 }) })
          .getByLabel(t('common.participantEmail'))
          .fill('berenice@');
        await editor
          .getByRole('button', { name: t('common.addParticipant', { noun: 'participant' }) })
          .click();
        await scan('document editor with a mistake');
        await editor.getByRole('button', { name: t('common.cancel') }).click();

        const previewName = t('preview.open', { name: '' }).trim();
        await table
          .getByRole('button', { name: new RegExp(`^${previewName}`) })
          .first()
          .click();
        const viewer = page.getByRole('dialog');
        await viewer.locator('canvas').first().waitFor();
        await scan('document preview');
        if (colorScheme === 'light' && language === 'en') await app.screenshot('preview');
        await page.keyboard.press('Escape');
        await viewer.waitFor({ state: 'hidden' });

        await button(t('batch.send')).click();
        const review = page.getByRole('dialog', { name: t('review.title', { name: 'Contrats' }) });
        const confirm = review.getByRole('button', {
          name: t('review.confirm', { count: 3, host: new URL(sim.baseUrl).host }),
        });
        await confirm.waitFor();
        await scan('review before sending');
        if (colorScheme === 'light' && language === 'en') await app.screenshot('review');
        await confirm.click();
        await page.getByText(t('batch.progress', { sent: 3, total: 3 })).waitFor({ timeout: 30_000 });
        await scan('batch sent, waiting for signatures');
        await button(t('common.pauseTracking')).click();
        await page.getByText(t('common.trackingPaused')).waitFor();
        await scan('tracking paused');

        await button(t('common.batches')).click();
        await button('Contrats').waitFor();
        await scan('batches, one sent');
        if (colorScheme === 'light' && language === 'en') await app.screenshot('batches');
        if (colorScheme === 'light' && language === 'fr') await app.screenshot('batches-fr');

        // A document whose request may already exist at the service, and the dialog that resolves it.
        cpSync(join(SAMPLES, 'pdfs'), app.files.file('pdfs'), { recursive: true });
        const oneContract = app.files.file('one contract.csv');
        writeFileSync(
          oneContract,
          [
            'document;external_reference;participant_type;role;name;email',
            'pdfs/Avenant au contrat - Jürgen Müller.pdf;CHK-1;signer;Gérant;Jürgen Müller;juergen.mueller@example.com',
          ].join('\n'),
        );
        await page.getByLabel(t('batches.newName')).fill('Avenants');
        await button(t('batches.create')).click();
        await page.getByRole('heading', { name: 'Avenants', level: 2 }).waitFor();
        await app.answerNextDialog(oneContract);
        await button(t('batch.importManifest')).click();
        await button(t('manifest.import', { count: 1 })).click();
        const amendments = page.getByRole('region', { name: t('documents.region', { batch: 'Avenants' }) });
        await amendments.getByRole('rowheader', { name: 'CHK-1' }).waitFor();
        // The service creates the request but its answer is lost; the retry's key is then refused.
        sim.faults.enqueue(
          { kind: 'dropAfter', pathPattern: '^/api/v1/signing-requests$' },
          { kind: 'reject', pathPattern: '^/api/v1/signing-requests$', status: 422, code: 'upload_expired' },
        );
        await button(t('batch.send')).click();
        await page
          .getByRole('dialog', { name: t('review.title', { name: 'Avenants' }) })
          .getByRole('button', { name: t('review.confirm', { count: 1, host: new URL(sim.baseUrl).host }) })
          .click();
        const checkButton = amendments.getByRole('button', { name: t('documents.action.check') });
        await checkButton.click({ timeout: 60_000 });
        await page.getByRole('dialog', { name: t('check.title', { reference: 'CHK-1' }) }).waitFor();
        await scan('a document that needs your check, its dialog');

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
