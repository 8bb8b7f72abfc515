/**
 * People in view, end to end in Chromium through the browser host: each document lists
 * everyone who will receive it — the batch's default recipients by name, its own recipients,
 * in signing order — and the report lists the same people.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Locator } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { writePdf } from '../support/pdf-files';
import { launchApp, type App } from './app-harness';
import { createBatch, documentsTable } from './journeys';

let app: App | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

/** Fills the fields of the participant `who` (e.g. "default recipient 1") in `scope`. */
async function fillPerson(scope: Locator, who: string, values: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(values))
    await scope.getByLabel(`${label} of ${who}`).fill(value);
}

/** The people a row lists, as a screen reader reads them (the e-mail address included). */
async function peopleIn(table: Locator, reference: string): Promise<string[]> {
  const lists = table.getByRole('row', { name: new RegExp(reference) }).locator('ul.people');
  const texts = await lists.getByRole('listitem').allTextContents();
  return texts.map((text) => text.replace(/\s+/g, ' ').trim());
}

describe('people in view, in Chromium through the browser host', () => {
  it('lists the batch default recipients by name, then with the document’s own in signing order, and the report lists the same', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, files } = app;
    const pdf = await writePdf(files, 'Contrat.pdf', 'Contrat de travail');
    await createBatch(page, 'People batch');
    await app.answerNextDialog([pdf]);
    await page.getByRole('button', { name: 'Add PDFs…' }).click();
    const table = documentsTable(page, 'People batch');
    await table.getByRole('rowheader', { name: 'Contrat' }).waitFor();

    // The batch's default recipients: a signer who signs first and an observer.
    await page.getByText('Batch settings: options and default recipients').click();
    const settings = page.locator('details.settings');
    await settings.getByRole('button', { name: 'Add default recipient' }).click();
    await fillPerson(settings, 'default recipient 1', {
      Name: 'Hélène Dubois',
      Role: 'Directrice',
      'E-mail': 'helene.dubois@example.com',
      'Signing order': '1',
    });
    await settings.getByRole('button', { name: 'Add default recipient' }).click();
    await settings.getByLabel('Type of default recipient 2').selectOption('observer');
    await fillPerson(settings, 'default recipient 2', {
      Name: 'Service paie',
      Role: 'Paie',
      'E-mail': 'paie@example.com',
    });
    await settings.getByRole('button', { name: 'Save batch settings' }).click();

    // A document with no recipients of its own names the batch's, not "the batch's default recipients".
    const list = table.getByRole('list', { name: 'Recipients of Contrat' });
    await list.getByText('Hélène Dubois').waitFor();
    expect(await peopleIn(table, 'Contrat')).toEqual([
      '1. Hélène Dubois helene.dubois@example.com Directrice · signer · batch recipient',
      'Service paie paie@example.com Paie · observer · batch recipient',
    ]);
    // The e-mail address shows on hover.
    expect(await list.getByText('Hélène Dubois', { exact: true }).getAttribute('title')).toBe(
      'helene.dubois@example.com',
    );

    // Its own recipient joins the batch's, in signing order.
    await table.getByRole('button', { name: 'Edit Contrat' }).click();
    const editor = page.getByRole('dialog');
    await editor.getByRole('button', { name: 'Add recipient' }).click();
    await fillPerson(editor, 'recipient 1', {
      Name: 'Zoé Lefèvre',
      Role: 'Salariée',
      'E-mail': 'zoe.lefevre@example.com',
      'Signing order': '2',
    });
    await editor.getByRole('button', { name: 'Save document' }).click();
    await editor.waitFor({ state: 'hidden' });
    await list.getByText('Zoé Lefèvre').waitFor();
    expect(await peopleIn(table, 'Contrat')).toEqual([
      '1. Hélène Dubois helene.dubois@example.com Directrice · signer · batch recipient',
      '2. Zoé Lefèvre zoe.lefevre@example.com Salariée · signer · this document',
      'Service paie paie@example.com Paie · observer · batch recipient',
    ]);

    // The report lists the same people, in the same order.
    const path = await app.saveNextReport('People batch');
    await page.getByRole('button', { name: 'Export CSV…' }).click();
    await page.getByText(`Report saved to ${path}.`).waitFor();
    const [row] = parse(readFileSync(path, 'utf8'), { bom: true, columns: true, delimiter: ',' }) as Record<
      string,
      string
    >[];
    expect(row?.Recipients).toBe(
      [
        '1. Hélène Dubois (helene.dubois@example.com) – Directrice, signer, batch recipient',
        '2. Zoé Lefèvre (zoe.lefevre@example.com) – Salariée, signer, this document',
        'Service paie (paie@example.com) – Paie, observer, batch recipient',
      ].join('; '),
    );
  }, 90_000);

  it('folds a long list behind “N more people”, in signing order, and opens it on demand', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, files } = app;
    await writePdf(files, 'Accord.pdf', 'Accord');
    const manifest = files.file('many people.csv');
    const people = ['Fanny', 'Emma', 'David', 'Chloé', 'Bruno', 'Alice'];
    writeFileSync(
      manifest,
      [
        'document;external_reference;participant_type;role;name;email;signing_order',
        // Listed in reverse: the table shows them by signing order.
        ...people.map(
          (name, index) =>
            `Accord.pdf;MANY-1;signer;Associé;${name};${name.toLowerCase().replace('é', 'e')}@example.com;${people.length - index}`,
        ),
      ].join('\n'),
    );
    await createBatch(page, 'Many people');
    await app.answerNextDialog(manifest);
    await page.getByRole('button', { name: 'Import manifest…' }).click();
    await page.getByRole('button', { name: /^Import 1 document/ }).click();
    const table = documentsTable(page, 'Many people');
    await table.getByRole('rowheader', { name: 'MANY-1' }).waitFor();

    const row = table.getByRole('row', { name: /MANY-1/ });
    const names = async () =>
      (await row.locator('ul.people li').allTextContents()).map((text) =>
        text.split(' ').slice(0, 2).join(' '),
      );
    // All six in signing order: three in view, the other three behind a disclosure.
    expect(await names()).toEqual(['1. Alice', '2. Bruno', '3. Chloé', '4. David', '5. Emma', '6. Fanny']);
    expect(await row.getByRole('listitem').count()).toBe(3);
    expect(await row.getByText('Alice', { exact: true }).isVisible()).toBe(true);
    expect(await row.getByText('David', { exact: true }).isVisible()).toBe(false);
    await row.getByText('3 more people').click();
    await row.getByText('David', { exact: true }).waitFor();
    expect(await row.getByText('Fanny', { exact: true }).isVisible()).toBe(true);
  }, 90_000);
});
