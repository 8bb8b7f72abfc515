/**
 * The browser host tells the truth, in real Chromium: it speaks of no tray it does not have, shows
 * at once when its backend is gone and recovers when it is back, and a path typed in its file
 * prompt means what it would in the terminal that started the host — the README's
 * `samples/manifest.csv` — whose documents are then found beside the manifest.
 */
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCuttableLine, type CuttableLine } from '../support/cuttable-line';
import { launchApp, type App } from './app-harness';
import { createBatch } from './journeys';

const SAMPLES = join(import.meta.dirname, '..', '..', 'samples');

let app: App | undefined;
let line: CuttableLine | undefined;

/**
 * Chromium itself logs each WebSocket that cannot connect (`net::ERR_…`), which the page cannot
 * silence: while the line is cut on purpose, the bridge trying to come back is no app error.
 */
const BRIDGE_RECONNECT_FAILED = /^WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/bridge' failed: /;

afterEach(async () => {
  const cutOnPurpose = line !== undefined;
  const errors = (app?.consoleErrors ?? []).filter(
    (error) => !(cutOnPurpose && BRIDGE_RECONNECT_FAILED.test(error)),
  );
  try {
    await app?.close();
  } finally {
    await line?.close();
    app = undefined;
    line = undefined;
  }
  expect(errors, 'the app page logged errors').toEqual([]);
});

describe('the browser host', () => {
  it('says tracking is paused without speaking of a tray it does not have', async () => {
    app = await launchApp({ host: 'browser' });
    const { page } = app;
    await page.getByRole('button', { name: 'Pause tracking' }).click();
    await page
      .getByText(
        'Tracking is paused: statuses are read only when you ask (“Refresh statuses now”) until you resume it here.',
      )
      .waitFor();
    expect(await page.locator('body').innerText()).not.toMatch(/tray/i);
    await page.getByRole('button', { name: 'Resume tracking' }).click();
    await page.getByText('Tracking is paused').waitFor({ state: 'detached' });
  }, 60_000);

  it('shows at once that its backend is gone, and recovers by itself when it is back', async () => {
    // The page reaches its host over a line the test can cut, as a network would be.
    line = await startCuttableLine();
    app = await launchApp({ host: 'browser', proxy: line.server });
    const { page } = app;
    await createBatch(page, 'Before the cut');
    await page.getByRole('button', { name: 'Batches', exact: true }).click();
    await page.getByRole('button', { name: 'Before the cut', exact: true }).waitFor();
    const banner = page.getByRole('alert').filter({ hasText: 'The app’s backend is not reachable.' });
    expect(await banner.count()).toBe(0);

    // The outcome, not a stopwatch: the page learns of the cut from its connection closing.
    line.cut();
    await banner.waitFor();
    await expect.poll(() => banner.innerText()).toContain('reconnects by itself');

    line.restore();
    await banner.waitFor({ state: 'detached', timeout: 15_000 });
    // Created once the backend is back: the app opens the new batch (createBatch waits for it,
    // so Batches is clicked after the answer), which is then in the list.
    await createBatch(page, 'After the cut');
    await page.getByRole('button', { name: 'Batches', exact: true }).click();
    await page.getByRole('button', { name: 'After the cut', exact: true }).waitFor();
  }, 60_000);

  it('takes a relative path in its file prompt from the folder it was started in, and finds the manifest’s documents beside it', async () => {
    app = await launchApp({ host: 'browser' });
    const { page } = app;
    await createBatch(page, 'Typed path');
    // As the README says: `npm start` in the project, then `samples/manifest.csv` in the prompt.
    const typed = relative(process.cwd(), join(SAMPLES, 'manifest.csv'));
    expect(typed).toBe(join('samples', 'manifest.csv'));
    await app.answerNextDialog(typed);
    await page.getByRole('button', { name: 'Import manifest…' }).click();
    await page.getByRole('heading', { name: 'Manifest manifest.csv' }).waitFor();
    await page.getByText(/^3 documents, \d+ recipients\. Nothing has been sent\.$/).waitFor();
    await page.getByRole('button', { name: 'Import 3 documents' }).click();
    await page.getByText('Manifest imported: 3 added, 0 updated, 0 unchanged.').waitFor();
  }, 60_000);
});
