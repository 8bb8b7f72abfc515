/**
 * Bad input gets the app's own clear answer, in Chromium through the browser host (found by a
 * newcomer): an address typed without https:// is answered with the app's rule, not the browser's
 * tooltip, and the reason goes once the field is edited; a manifest broken after its preview shows
 * its problems when its import is refused, not the old preview.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { launchApp, type App } from './app-harness';
import { createBatch, SAMPLE_MANIFEST } from './journeys';

let app: App | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

describe('bad input answered by the app, in Chromium', () => {
  it('says the address rule for an address without https://, and drops the reason once the field is edited', async () => {
    app = await launchApp({ host: 'browser' });
    const { page } = app;
    await page.getByRole('button', { name: 'Connections' }).click();
    await page.getByLabel('Name').fill('Office');
    const address = page.getByLabel('Service address (base URL)');
    await address.fill('sign.example.com');
    await page.getByLabel('Client id').fill('desk');
    await page.getByLabel('Client secret').fill('not-a-real-secret');
    await page.getByRole('button', { name: 'Save connection' }).click();

    // The browser's own check ("Please enter a URL.") does not stop the form: main's rule answers.
    const refusal = page.getByRole('alert').filter({ hasText: 'The connection was not saved' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain(
      'The base URL must be a full address, e.g. https://sign.example.com.',
    );
    expect(await address.evaluate((input: HTMLInputElement) => input.validity.valid)).toBe(true);

    // Edited: the reason about the old address goes.
    await address.fill('https://sign.example.com');
    await refusal.waitFor({ state: 'detached', timeout: 5_000 });
  });

  it('lists the problems of a manifest broken after its preview when its import is refused', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, files } = app;
    cpSync(join(dirname(SAMPLE_MANIFEST), 'pdfs'), files.file('pdfs'), { recursive: true });
    const manifest = files.file('contracts.csv');
    const valid = readFileSync(SAMPLE_MANIFEST, 'utf8');
    writeFileSync(manifest, valid);
    await createBatch(page, 'Broken later');
    await app.answerNextDialog(manifest);
    await page.getByRole('button', { name: 'Import manifest…' }).click();
    await page.getByText('3 documents, 6 recipients. Nothing has been sent.').waitFor();

    // The person breaks an e-mail address in the file, then imports the preview they still see.
    writeFileSync(manifest, valid.replace('anne.dupre@example.com', 'anne.dupre@example'));
    await page.getByRole('button', { name: 'Import 3 documents' }).click();

    const problems = page.getByRole('list', { name: 'Problems in the manifest' });
    await problems.waitFor();
    expect(await problems.getByRole('listitem').allTextContents()).toEqual([
      expect.stringMatching(
        /^row 3, column G \(email\): must be a valid e-mail address \(got "anne\.dupre@example"\)$/,
      ),
    ]);
    expect(await page.getByRole('button', { name: /^Import \d/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Check again' }).count()).toBe(1);
    expect(await page.getByText('This batch is empty.').count()).toBe(1);
  });

  it('previews a manifest of 2,000 documents with its first rows and the totals, and imports them all', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, files } = app;
    cpSync(join(dirname(SAMPLE_MANIFEST), 'pdfs'), files.file('pdfs'), { recursive: true });
    const [header, first] = readFileSync(SAMPLE_MANIFEST, 'utf8')
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/);
    const rows = Array.from({ length: 2_000 }, (_, index) =>
      (first ?? '')
        .replace(/;[A-Z]+-\d+-\d+;/, `;BIG-${index};`)
        .replace(/@example\.com/, `${index}@example.com`),
    );
    const manifest = files.file('big.csv');
    writeFileSync(manifest, [header, ...rows].join('\n'));
    await createBatch(page, 'Two thousand');
    await app.answerNextDialog(manifest);
    await page.getByRole('button', { name: 'Import manifest…' }).click();
    await page.getByText('2,000 documents, 2,000 recipients. Nothing has been sent.').waitFor();
    expect(await page.getByRole('table').filter({ hasText: 'BIG-0' }).getByRole('row').count()).toBe(201);
    await page.getByText('and 1,800 more documents, not listed here').waitFor();
    await page.getByRole('button', { name: 'Import 2,000 documents' }).click();
    await page.getByText('Manifest imported: 2,000 added').waitFor({ timeout: 60_000 });
  }, 120_000);
});
