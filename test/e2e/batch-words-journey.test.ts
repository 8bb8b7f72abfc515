/**
 * The batch screen as office staff read it, in Chromium through the browser host against the
 * simulator: only possible actions offered (with the reason), messages that neither linger nor
 * cover anything, and counts, timelines, sizes and words that are true — in English and French.
 */
import { writeFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { writePdf } from '../support/pdf-files';
import { launchApp, type App } from './app-harness';
import {
  createBatch,
  documentsTable,
  importSampleManifest,
  registerJourneyClient,
  saveConnection,
  sendBatch,
} from './journeys';

let app: App | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

/** Starts sending the batch on screen, through its review. */
async function startSending(page: Page): Promise<void> {
  await sendBatch(page);
}

/** The references of the table's rows, top to bottom. */
async function referencesInOrder(table: Locator): Promise<string[]> {
  return table
    .getByRole('rowheader')
    .evaluateAll((cells) => cells.map((cell) => cell.firstChild?.textContent?.trim() ?? ''));
}

/** The accessible description of `element` (the text its aria-describedby points to). */
async function descriptionOf(element: Locator): Promise<string> {
  return element.evaluate((node) =>
    (node.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id) => (id ? (document.getElementById(id)?.textContent ?? '') : ''))
      .join(' ')
      .trim(),
  );
}

function overlaps(
  a: { x: number; y: number; width: number; height: number },
  b: { x: number; y: number; width: number; height: number },
): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('the batch screen tells the truth, and offers only what can work', () => {
  it('opens a first launch (no connection, no batch) on Connections', async () => {
    app = await launchApp({ host: 'browser' });
    const { page } = app;
    await page.getByRole('heading', { name: 'Connections', level: 2 }).waitFor();
    expect(await page.getByRole('heading', { name: 'Batches', level: 2 }).count()).toBe(0);
  }, 60_000);

  it('disables Edit and Remove with the reason while a document is on its way, then counts, times and words the sent batch truly; sorts the table', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, sim } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
    await createBatch(page, 'True words');
    const table = await importSampleManifest(app, 'True words');

    // Sizes in the binary units the service's limit is stated in.
    const nda = table.getByRole('row', { name: /NDA-2026-017/ });
    expect(await nda.getByText(/^\d+(\.\d)?\u00a0KiB · SHA-256/).count()).toBe(1);
    expect(await table.getByText(/\bKB\b|\bMB\b/).count()).toBe(0);
    // Nothing happened yet: no "Prepared —", no word about evidence.
    expect(await nda.getByText('Prepared', { exact: true }).count()).toBe(0);
    expect(await table.getByText(/evidence/i).count()).toBe(0);

    // Sorting: by reference (numbers by value), then the other way; aria-sort says which.
    expect(await referencesInOrder(table)).toEqual(['RH-2026-0142', 'NDA-2026-017', 'RH-2026-0143']);
    const referenceHeader = table.getByRole('columnheader', { name: 'Reference' });
    await referenceHeader.getByRole('button').click();
    expect(await referenceHeader.getAttribute('aria-sort')).toBe('ascending');
    expect(await referencesInOrder(table)).toEqual(['NDA-2026-017', 'RH-2026-0142', 'RH-2026-0143']);
    await referenceHeader.getByRole('button').click();
    expect(await referenceHeader.getAttribute('aria-sort')).toBe('descending');
    expect(await referencesInOrder(table)).toEqual(['RH-2026-0143', 'RH-2026-0142', 'NDA-2026-017']);
    for (const name of ['File', 'State', 'Timeline by last change'])
      await table.getByRole('button', { name, exact: true }).waitFor();

    // Slow answers: each document stays on its way long enough to be seen.
    sim.faults.set({ latencyMs: 1_500 });
    await startSending(page);
    const edit = nda.getByRole('button', { name: 'Edit NDA-2026-017' });
    const remove = nda.getByRole('button', { name: 'Remove NDA-2026-017' });
    await nda.getByText('Being sent: pause sending to edit or remove it.').waitFor({ timeout: 10_000 });
    expect(await edit.isDisabled()).toBe(true);
    expect(await remove.isDisabled()).toBe(true);
    expect(await descriptionOf(edit)).toBe('Being sent: pause sending to edit or remove it.');
    expect(await descriptionOf(remove)).toBe('Being sent: pause sending to edit or remove it.');

    // The count follows main's: every document whose request exists.
    await page.getByText('3 of 3 documents sent').waitFor({ timeout: 60_000 });
    sim.faults.set({ latencyMs: 0 });
    // Right after the send, the timeline says when the request was prepared.
    const prepared = nda.locator('dt', { hasText: 'Prepared' });
    await prepared.waitFor();
    const preparedAt = await prepared.locator('xpath=following-sibling::dd[1]').textContent();
    expect(preparedAt).not.toBe('—');
    expect(preparedAt).toMatch(/2\d{3}/);
    // Waiting for signatures: no word about evidence yet.
    expect(await nda.getByText(/evidence/i).count()).toBe(0);

    // Sort by state and by last change still reads every row.
    await table.getByRole('button', { name: 'State', exact: true }).click();
    expect((await referencesInOrder(table)).sort()).toEqual(['NDA-2026-017', 'RH-2026-0142', 'RH-2026-0143']);
  }, 120_000);

  it('words all, some and none of the documents needing attention; a save the app refuses is said in the editor, which keeps the edit', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, files } = app;
    await page.getByRole('button', { name: 'Batches', exact: true }).click();
    const first = await writePdf(files, 'Bail Anne.pdf', 'Bail');
    const second = await writePdf(files, 'Bail Zoé.pdf', 'Bail');
    await createBatch(page, 'Attention');
    await app.answerNextDialog([first, second]);
    await page.getByRole('button', { name: 'Add PDFs…' }).click();
    const table = documentsTable(page, 'Attention');
    await table.getByRole('rowheader', { name: 'Bail Anne' }).waitFor();
    await table.getByRole('rowheader', { name: 'Bail Zoé' }).waitFor();
    // None can be sent: not "the others can be sent".
    await page
      .getByText('None of the 2 documents can be sent yet: each needs attention (see Recipients).')
      .waitFor();
    expect(await page.getByText(/the others can be sent/).count()).toBe(0);

    // One gets a signer: one still needs attention, one is ready.
    await table.getByRole('button', { name: 'Edit Bail Anne' }).click();
    let editor = page.getByRole('dialog');
    await editor.getByText('No recipient yet: add at least one signer.').waitFor();
    await editor.getByRole('button', { name: 'Add recipient' }).click();
    await editor.getByLabel('Name of recipient 1').fill('Anne Dupré');
    await editor.getByLabel('E-mail of recipient 1').fill('anne@example.com');
    await editor.getByLabel('Role of recipient 1').fill('Locataire');
    await editor.getByRole('button', { name: 'Save document' }).click();
    await editor.waitFor({ state: 'hidden' });
    await page
      .getByText('1 document needs attention before sending (see Recipients); 1 is ready to send.')
      .waitFor();

    // The other is edited while it leaves the batch (as from another window): the refusal is in
    // the dialog, not in a message behind it, and what was typed is still there.
    await table.getByRole('button', { name: 'Edit Bail Zoé' }).click();
    editor = page.getByRole('dialog');
    await editor.getByLabel('Reference', { exact: true }).fill('BAIL-ZOE-2026');
    await page.evaluate(async () => {
      const desk = window.desk!;
      const batches = await desk.batches.list();
      if (!batches.ok) throw new Error(batches.error.message);
      const batch = batches.value.find((candidate) => candidate.name === 'Attention')!;
      const detail = await desk.batches.get(batch.id);
      if (!detail.ok) throw new Error(detail.error.message);
      const zoe = detail.value.documents.find((document) => document.externalReference === 'Bail Zoé')!;
      await desk.documents.remove(batch.id, zoe.id);
    });
    await editor.getByRole('button', { name: 'Save document' }).click();
    await editor
      .getByRole('alert')
      .filter({ hasText: 'Not saved: This document is no longer in the batch. Your changes are still here.' })
      .waitFor();
    expect(await editor.getByLabel('Reference', { exact: true }).inputValue()).toBe('BAIL-ZOE-2026');
    expect(await page.locator('.notices').getByRole('alert').count()).toBe(0);
    await editor.getByRole('button', { name: 'Cancel' }).click();
  }, 120_000);

  it('keeps messages out of the way: errors never cover the table and stay behind when the user leaves, successes fade', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, files } = app;
    await page.getByRole('button', { name: 'Batches', exact: true }).click();
    await createBatch(page, 'Calm');
    const pdfs = [];
    for (const name of ['Un.pdf', 'Deux.pdf', 'Trois.pdf'])
      pdfs.push(await writePdf(files, name, name.replace('.pdf', '')));
    await app.answerNextDialog(pdfs);
    await page.getByRole('button', { name: 'Add PDFs…' }).click();
    const table = documentsTable(page, 'Calm');
    await table.getByRole('rowheader', { name: 'Trois' }).waitFor();
    const notices = page.getByRole('region', { name: 'Messages' });
    const added = notices.getByRole('status').filter({ hasText: '3 documents added.' });
    await added.waitFor();

    // Errors: files that are not PDFs, in one message that names them.
    const notPdf = files.file('notes.txt');
    const other = files.file('photo.png');
    writeFileSync(notPdf, 'not a pdf');
    writeFileSync(other, 'not a pdf either');
    await app.answerNextDialog([notPdf, other]);
    await page.getByRole('button', { name: 'Add PDFs…' }).click();
    await notices
      .getByRole('alert')
      .filter({ hasText: 'notes.txt' })
      .filter({ hasText: 'photo.png' })
      .waitFor();

    // No button of the table sits under a message, whatever the scroll.
    const area = await notices.boundingBox();
    expect(area).not.toBeNull();
    for (const button of await table.getByRole('button').all()) {
      const box = await button.boundingBox();
      if (box && area) expect(overlaps(area, box), `${await button.textContent()} is covered`).toBe(false);
    }
    // Scrolled down too: the messages scroll with the page, they never float over it.
    await page.mouse.wheel(0, 2_000);
    const scrolled = await notices.boundingBox();
    for (const button of await table.getByRole('button').all()) {
      const box = await button.boundingBox();
      if (box && scrolled)
        expect(overlaps(scrolled, box), `${await button.textContent()} is covered`).toBe(false);
    }

    // The success fades by itself; errors stay until dismissed…
    await added.waitFor({ state: 'detached', timeout: 12_000 });
    expect(await notices.getByRole('alert').count()).toBe(1);
    await notices.getByRole('button', { name: 'Dismiss message' }).first().click();
    expect(await notices.getByRole('alert').count()).toBe(0);
    await app.answerNextDialog([notPdf]);
    await page.getByRole('button', { name: 'Add PDFs…' }).click();
    await notices.getByRole('alert').filter({ hasText: 'notes.txt' }).waitFor();
    // …and do not follow the user to another screen, nor come back with them.
    await page.getByRole('button', { name: 'Batches', exact: true }).click();
    await page.getByRole('heading', { name: 'Batches', level: 2 }).waitFor();
    expect(await notices.getByRole('alert').count()).toBe(0);
    await page.getByRole('button', { name: 'Calm', exact: true }).click();
    await page.getByRole('heading', { name: 'Calm', level: 2 }).waitFor();
    expect(await notices.getByRole('alert').count()).toBe(0);
  }, 120_000);

  it('speaks French: counts with plurals, sizes in Kio, dates in the French way', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, sim } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Bureau', baseUrl: sim.baseUrl, ...client });
    await createBatch(page, 'Lot de novembre');
    await importSampleManifest(app, 'Lot de novembre');
    await startSending(page);
    await page.getByText('3 of 3 documents sent').waitFor({ timeout: 60_000 });
    await page.evaluate(async () => {
      await window.desk!.app.setLanguage('fr');
    });
    await page.reload();
    await page.getByRole('button', { name: 'Lot de novembre', exact: true }).click();
    const table = page.getByRole('region', { name: 'Documents de Lot de novembre' });
    await page.getByText('3 documents envoyés sur 3').waitFor();
    const nda = table.getByRole('row', { name: /NDA-2026-017/ });
    expect(await nda.getByText(/^\d+(,\d)?\u00a0Kio · SHA-256/).count()).toBe(1);
    await nda.getByText('En attente de signatures').waitFor();
    const prepared = await nda
      .locator('dt', { hasText: 'Préparé' })
      .locator('xpath=following-sibling::dd[1]')
      .textContent();
    // "23 nov. 2026, 14:05": the French month and 24-hour time.
    expect(prepared).toMatch(/^\d{1,2} [a-zéû]+\.? \d{4}/);
    await table.getByRole('columnheader', { name: 'Référence' }).waitFor();
    await page
      .getByRole('group', { name: 'Afficher' })
      .getByRole('radio', { name: 'En attente de signatures 3' })
      .check();
  }, 120_000);
});
