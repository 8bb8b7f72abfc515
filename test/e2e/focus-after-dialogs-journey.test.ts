/**
 * Where the focus goes once a dialog closes by its own action (found by an outside tester): after
 * saving the editor, back on the row's Edit button; after confirming the review, on the batch's way
 * on ("Pause sending"), never on the page's body. Also the sent summary's style: good news, not an
 * amber warning.
 */
import type { Locator } from 'playwright-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { launchApp, type App } from './app-harness';
import {
  createBatch,
  documentsTable,
  importSampleManifest,
  registerJourneyClient,
  saveConnection,
} from './journeys';

let app: App | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

/** Waits until `target` holds the focus; fails with what holds it instead. */
async function focused(target: Locator): Promise<void> {
  await vi.waitFor(
    async () => {
      if (await target.evaluate((element) => element === document.activeElement)) return;
      const holder = await target.page().evaluate(() => document.activeElement?.outerHTML.slice(0, 120));
      throw new Error(`the focus is on ${holder}`);
    },
    { timeout: 10_000, interval: 50 },
  );
}

describe('the focus after a dialog’s own action, in Chromium', () => {
  it('returns to the row after saving the editor, and goes to Pause sending after confirming the review', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, sim } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Focus office', baseUrl: sim.baseUrl, ...client });
    await createBatch(page, 'Focus batch');
    await importSampleManifest(app, 'Focus batch');
    const table = documentsTable(page, 'Focus batch');

    // Saved with a new reference: the same row's Edit button, under its new name.
    await table.getByRole('button', { name: 'Edit NDA-2026-017' }).click();
    const editor = page.getByRole('dialog', { name: 'Edit NDA-2026-017' });
    await editor.getByLabel('Reference', { exact: true }).fill('NDA-2026-018');
    await editor.getByRole('button', { name: 'Save document' }).click();
    await editor.waitFor({ state: 'hidden' });
    await focused(table.getByRole('button', { name: 'Edit NDA-2026-018' }));

    // Confirmed: the focus goes to "Pause sending" while the batch is on its way, or, when it
    // finished first (the service answers at once here), to the summary of what was sent.
    await page.getByRole('button', { name: 'Send batch' }).click();
    const review = page.getByRole('dialog', { name: /^Review before sending/ });
    await review.getByRole('button', { name: /^Send 3 documents to / }).click();
    await review.waitFor({ state: 'hidden' });
    const summary = page.getByRole('status').filter({ hasText: '3 documents sent' });
    await focused(page.getByRole('button', { name: 'Pause sending' }).or(summary));
    await summary.waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => document.activeElement === document.body)).toBe(false);

    // The summary is good news: not the warning's amber, in light and dark.
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const [background, warning] = await summary.evaluate((element) => [
        getComputedStyle(element).backgroundColor,
        getComputedStyle(document.documentElement).getPropertyValue('--warn-bg').trim(),
      ]);
      const amber = await page.evaluate((value) => {
        const probe = document.createElement('div');
        probe.style.backgroundColor = value;
        document.body.append(probe);
        const color = getComputedStyle(probe).backgroundColor;
        probe.remove();
        return color;
      }, warning ?? '');
      expect(background, colorScheme).not.toBe(amber);
    }
  }, 60_000);
});
