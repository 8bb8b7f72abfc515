/**
 * An accessibility scan (axe-core, from npm) of every screen of the desk, in light and dark
 * themes, through the browser host in Chromium: no serious or critical violation is allowed.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { launchApp, type App } from './app-harness';
import { createBatch, importSampleManifest, registerJourneyClient, saveConnection } from './journeys';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SAMPLES = join(import.meta.dirname, '..', '..', 'samples');

interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly unknown[] }[];
}

/** Serious and critical violations on the page as it is now, one line each. */
async function seriousViolations(page: Page, screen: string): Promise<string[]> {
  // Evaluated through the debugging protocol, so the page's strict CSP does not apply to it.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: Document): Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    const result = await axe.run(document);
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target })),
    }));
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${screen}: ${violation.id} (${violation.impact}) ${violation.help} at ${violation.nodes
          .slice(0, 3)
          .map((node) => JSON.stringify(node.target))
          .join(', ')}`,
    );
}

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

      await page.getByRole('button', { name: 'Send batch' }).click();
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
