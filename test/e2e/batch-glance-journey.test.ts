/**
 * A large batch at a glance, at 1280 × 800, as an office desk sees it: sent over several days of
 * the service's clock, partly signed, one document failed, then 2,000 more imported from a
 * manifest. In English, French and German it shows a dozen and more one-line rows with one
 * scrollbar, its dates on one line, counts that are filters a keyboard can use and that agree
 * with the progress line and the chart; a long preview keeps Import in view; axe finds no
 * serious violation with the chart, light or dark. The README's pictures of a batch come from here.
 */
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { LANGUAGES, type Language } from '../../shared/i18n/languages';
import { createTranslator, type Translator } from '../../shared/i18n/translator';
import { COMPACT_ROW_PX } from '../../renderer/src/state/table-density';
import { launchApp, type App } from './app-harness';
import { seriousViolations } from './axe-scan';
import { createBatch, registerJourneyClient, saveConnection, sendBatch } from './journeys';

const SAMPLES = join(import.meta.dirname, '..', '..', 'samples');
const VIEWPORT = { width: 1280, height: 800 } as const;
const DAY_MS = 24 * 3_600_000;
const BATCH = 'December contracts';
const PDFS = [
  'Contrat de travail - Anne Dupré.pdf',
  'Accord de confidentialité - Bérénice Château.pdf',
  'Avenant au contrat - Jürgen Müller.pdf',
];
const PEOPLE = [
  'Anne Dupré',
  'Jürgen Müller',
  'Bérénice Château',
  'Hélène Dubois',
  'Zoé Lefèvre',
  'Marc Perrin',
];

let app: App | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

/** A manifest of one signer a document, `references` in order, the sample PDFs in turn. */
function writeManifest(folder: App['files'], name: string, references: readonly string[]): string {
  const rows = references.map((reference, index) => {
    const person = PEOPLE[index % PEOPLE.length]!;
    const email = `${person
      .split(' ')[0]!
      .normalize('NFD')
      .replace(/\p{Mn}/gu, '')
      .toLowerCase()}.${index}@example.com`;
    return `pdfs/${PDFS[index % PDFS.length]};${reference};signer;Signataire;${person};${email}`;
  });
  const path = folder.file(name);
  writeFileSync(path, ['document;external_reference;participant_type;role;name;email', ...rows].join('\n'));
  return path;
}

/** Imports `manifest` (`count` documents) into the batch on screen through its preview; `total` then. */
async function importManifest(app: App, manifest: string, count: number, total: number): Promise<void> {
  const { page } = app;
  await app.answerNextDialog(manifest);
  await page.getByRole('button', { name: 'Import manifest…' }).click();
  await page.getByRole('button', { name: `Import ${count} documents` }).click();
  await page.getByRole('radio', { name: `All ${total}` }).waitFor({ timeout: 60_000 });
}

/** The table's region on screen. */
function documentsRegion(page: Page, t: Translator['t']): Locator {
  return page.getByRole('region', { name: t('documents.region', { batch: BATCH }) });
}

/**
 * What a person sees of the table: its rows wholly in view, the tallest one, the heights they
 * have, and the dates not seen whole on one line (broken over lines, or cut short by the edge of
 * their cell).
 */
async function rowsInView(
  table: Locator,
): Promise<{ rows: number; tallest: number; heights: number[]; datesNotWhole: number }> {
  return table.evaluate((region) => {
    const box = region.getBoundingClientRect();
    const head = region.querySelector('thead')?.getBoundingClientRect();
    const top = Math.max(box.top, head?.bottom ?? box.top);
    const bottom = Math.min(box.bottom, window.innerHeight);
    const inView = [...region.querySelectorAll('tbody tr[aria-rowindex]')].filter((row) => {
      const rect = row.getBoundingClientRect();
      return rect.top >= top - 0.5 && rect.bottom <= bottom + 0.5;
    });
    const whole = (time: Element) => {
      const cell = time.closest('td');
      if (!cell) return false;
      const end = cell.getBoundingClientRect().right - parseFloat(getComputedStyle(cell).paddingRight);
      return time.getClientRects().length === 1 && time.getBoundingClientRect().right <= end + 0.5;
    };
    const dates = inView.flatMap((row) => [...row.querySelectorAll('time')]);
    return {
      rows: inView.length,
      tallest: Math.max(...inView.map((row) => row.getBoundingClientRect().height)),
      heights: [...new Set(inView.map((row) => row.getBoundingClientRect().height))],
      datesNotWhole: dates.length === 0 ? -1 : dates.filter((time) => !whole(time)).length,
    };
  });
}

/** Everything on the page that scrolls (a scrollbar a person sees): its name, "page" for the page itself. */
async function scrollbars(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found = [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((element) => {
        const style = getComputedStyle(element);
        return (
          ['auto', 'scroll'].includes(style.overflowY) &&
          element.scrollHeight > element.clientHeight + 1 &&
          element.getClientRects().length > 0
        );
      })
      .map((element) => element.getAttribute('aria-label') ?? element.tagName.toLowerCase());
    const root = document.scrollingElement;
    return root && root.scrollHeight > window.innerHeight + 1 ? ['page', ...found] : found;
  });
}

/** Dismisses the messages shown above the screen, as a person does once they are read. */
async function dismissNotices(page: Page, t: Translator['t']): Promise<void> {
  const notices = page.getByRole('region', { name: t('batch.messages') });
  const dismiss = notices.getByRole('button', { name: t('common.dismiss') });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
}

/** Presses Tab until `target` has the focus, as a keyboard user would; fails after `limit` presses. */
async function tabTo(page: Page, target: Locator, limit = 60): Promise<void> {
  for (let presses = 0; presses < limit; presses += 1) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`not reached with ${limit} presses of Tab`);
}

describe('a large batch at a glance, at 1280 × 800', () => {
  it('shows a dozen and more one-line rows with one scrollbar, counts as filters for the keyboard that agree with the progress and the chart, Import in view, in English, French and German; axe finds no serious violation, light or dark', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, sim, files } = app;
    await page.setViewportSize(VIEWPORT);
    cpSync(join(SAMPLES, 'pdfs'), files.file('pdfs'), { recursive: true });
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
    await createBatch(page, BATCH);

    // Three days at the service: 12 sent on the first, 5 of them signed on the second as 12
    // more are sent (one refused), 6 more signed on the third; 12 more prepared, not sent yet.
    const ref = (round: string, index: number) => `DEC-${round}-${String(index + 1).padStart(2, '0')}`;
    const round = (name: string) => Array.from({ length: 12 }, (_, index) => ref(name, index));
    await importManifest(app, writeManifest(files, 'monday.csv', round('A')), 12, 12);
    await sendBatch(page);
    await page.getByText('12 of 12 documents sent').waitFor({ timeout: 60_000 });
    sim.clock.advance(DAY_MS);
    const requests = () =>
      new Map(sim.state.requests().map((request) => [request.externalReference, request.id]));
    for (const index of [0, 1, 2, 3, 4]) sim.complete(requests().get(ref('A', index))!);
    await importManifest(app, writeManifest(files, 'tuesday.csv', round('B')), 12, 24);
    sim.faults.enqueue({
      kind: 'reject',
      pathPattern: '^/api/v1/signing-requests$',
      status: 422,
      code: 'invalid_signing_request',
    });
    await sendBatch(page);
    await page.getByText('23 of 24 documents sent').waitFor({ timeout: 60_000 });
    sim.clock.advance(DAY_MS);
    // The one refused is whichever went first: signed are four of those the service holds.
    const tuesday = round('B').filter((reference) => requests().has(reference));
    for (const reference of [ref('A', 5), ref('A', 6), ...tuesday.slice(0, 4)])
      sim.complete(requests().get(reference)!);
    await importManifest(app, writeManifest(files, 'wednesday.csv', round('C')), 12, 36);
    await page.getByRole('button', { name: 'Refresh statuses now' }).click();

    const en = createTranslator('en').t;
    const filters = page.getByRole('group', { name: 'Show' });
    // The one count, everywhere: 23 sent of 36, 11 of them signed, 12 not sent, 1 failed.
    await filters.getByRole('radio', { name: 'Completed 11' }).waitFor({ timeout: 60_000 });
    await page.getByText('23 of 36 documents sent').waitFor();
    await filters.getByRole('radio', { name: 'Waiting for signatures 12' }).waitFor();
    await filters.getByRole('radio', { name: 'Not sent 12' }).waitFor();
    await filters.getByRole('radio', { name: 'Failed 1' }).waitFor();
    const chart = page.getByRole('img', { name: /^23 sent and 11 signed of 36 documents, between / });
    await chart.waitFor();
    await page.getByText('Signed: 11').waitFor();
    // Its figures, day by day, as a table.
    await page.getByText('Figures', { exact: true }).click();
    const figures = page.getByRole('region', { name: 'Figures' }).getByRole('row');
    // Each request's own times once read at its service (all are read after the refresh).
    await expect
      .poll(async () => (await figures.allInnerTexts()).map((row) => row.split('\t').slice(1).join(' ')), {
        timeout: 60_000,
      })
      .toEqual(['Sent Signed Sent in all Signed in all', '12 0 12 0', '11 5 23 5', '0 6 23 11']);
    await page.getByText('Figures', { exact: true }).click();
    await dismissNotices(page, en);
    await page.mouse.move(0, 0);
    // The first pages of the rows in view are drawn.
    await expect.poll(() => page.locator('.pdf-thumbnail-loading').count(), { timeout: 30_000 }).toBe(0);
    await app.screenshot('batch-glance');
    await page.emulateMedia({ colorScheme: 'dark' });
    await app.screenshot('batch-glance-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // 2,000 more from a manifest: its long preview keeps Import and Close in view.
    const big = Array.from({ length: 2_000 }, (_, index) => `BIG-${String(index + 1).padStart(4, '0')}`);
    await app.answerNextDialog(writeManifest(files, 'big.csv', big));
    await page.getByRole('button', { name: 'Import manifest…' }).click();
    const preview = page.getByRole('dialog', { name: 'Manifest big.csv' });
    await preview.getByText('and 1,800 more documents, not listed here').waitFor();
    for (const name of ['Import 2,000 documents', 'Close']) {
      const box = await preview.getByRole('button', { name }).boundingBox();
      expect(box, name).not.toBeNull();
      expect(box!.y, name).toBeGreaterThanOrEqual(0);
      expect(box!.y + box!.height, `${name} in view`).toBeLessThanOrEqual(VIEWPORT.height);
    }
    await preview.getByRole('button', { name: 'Import 2,000 documents' }).click();
    await page.getByText('Manifest imported: 2,000 added').waitFor({ timeout: 90_000 });

    for (const language of LANGUAGES) {
      const { t } = createTranslator(language);
      await page.locator('.language-setting select').selectOption(language);
      await page
        .locator('html')
        .and(page.locator(`[lang^="${language}"]`))
        .waitFor();
      await checkGlance(page, language, t);
    }
  }, 300_000);
});

/** Rows, scrollbars, dates, the count filters by keyboard and axe, in `language`. */
async function checkGlance(page: Page, language: Language, t: Translator['t']): Promise<void> {
  const table = documentsRegion(page, t);
  await table.getByRole('rowheader', { name: 'DEC-A-01' }).waitFor();
  await dismissNotices(page, t);
  const seen = await rowsInView(table);
  expect(seen.rows, `${language}: rows in view`).toBeGreaterThanOrEqual(12);
  expect(seen.tallest, `${language}: one line a row`).toBeLessThan(40);
  // Each exactly the height the table reserves for a row not shown: rows scrolling in change nothing.
  expect(seen.heights, `${language}: every row as tall as reserved`).toEqual([COMPACT_ROW_PX]);
  expect(seen.datesNotWhole, `${language}: every date whole, on one line`).toBe(0);
  expect(await scrollbars(page), `${language}: one scrollbar`).toEqual([
    t('documents.region', { batch: BATCH }),
  ]);
  const tableBox = await table.boundingBox();
  expect(tableBox!.y + tableBox!.height, `${language}: the table ends in the window`).toBeLessThanOrEqual(
    VIEWPORT.height,
  );

  // The counts are filters, with the keyboard alone: Tab to the chosen one, arrows to the next.
  const filters = page.getByRole('group', { name: t('batch.show') });
  const number = new Intl.NumberFormat(createTranslator(language).locale);
  const radio = (label: Parameters<Translator['t']>[0], count: number) =>
    filters.getByRole('radio', { name: `${t(label)} ${number.format(count)}` });
  const all = radio('documents.filter.all', 2_036);
  await page.getByRole('heading', { name: BATCH, level: 2 }).click();
  await tabTo(page, all);
  await page.keyboard.press('ArrowRight');
  await radio('documents.filter.notSent', 2_012).and(page.locator(':checked')).waitFor();
  await page.getByText(t('batch.shownOf', { shown: 2_012, total: 2_036 })).waitFor();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await radio('documents.filter.completed', 11).and(page.locator(':checked')).waitFor();
  await page.getByText(t('batch.shownOf', { shown: 11, total: 2_036 })).waitFor();
  expect(await table.getByRole('rowheader').count()).toBe(11);
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  expect(
    await radio('documents.filter.completed', 11).evaluate((element) => element === document.activeElement),
  ).toBe(true);
  for (let presses = 0; presses < 3; presses += 1) await page.keyboard.press('ArrowLeft');
  await all.and(page.locator(':checked')).waitFor();

  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await seriousViolations(page, `batch with its chart (${language}, ${colorScheme})`)).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
