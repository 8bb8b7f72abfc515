/**
 * Where the browser host saves a report (README "Running the app in each host"), in real Chromium:
 * the host chooses, as main does in Electron with its native dialog. The page asks for no path, the
 * report lands in the host's XDG download folder under the batch's name, and a second export never
 * replaces the first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { launchApp, type App } from './app-harness';
import { createBatch } from './journeys';

let app: App | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

describe('the browser host’s report', () => {
  it('is saved in the host’s download folder without asking the page for a path, never over an earlier one', async () => {
    app = await launchApp({ host: 'browser' });
    const { page } = app;
    const folder = app.reportsFolder ?? '';
    const asked: string[] = [];
    page.on('dialog', (dialog) => asked.push(`${dialog.type()}: ${dialog.message()}`));
    await createBatch(page, 'Quarterly');

    await page.getByRole('button', { name: 'Export CSV…' }).click();
    const first = join(folder, 'Quarterly.csv');
    await page.getByText(`Report saved to ${first}.`).waitFor();
    expect(readFileSync(first, 'utf8')).toMatch(/^\uFEFF"Batch","External reference",/);

    await page.getByRole('button', { name: 'Export CSV…' }).click();
    await page.getByText(`Report saved to ${join(folder, 'Quarterly (2).csv')}.`).waitFor();
    expect(readdirSync(folder).sort()).toEqual(['Quarterly (2).csv', 'Quarterly.csv']);
    expect(asked).toEqual([]);
  }, 60_000);
});
