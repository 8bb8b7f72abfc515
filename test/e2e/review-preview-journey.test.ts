/**
 * Review before sending, and the document in view (README "Using the app", steps 5 and 2), in real
 * Chromium through the browser host: the review says what goes where from main's facts, cancelling
 * sends nothing, confirming sends and a summary follows; a PDF's first page shows in its row and
 * the whole document in a viewer, drawn by pdf.js inside the page's CSP (any CSP refusal is a
 * console error, which fails the test).
 */
import { writeFileSync } from 'node:fs';
import type { Locator } from 'playwright-core';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { launchApp, type App } from './app-harness';
import { seriousViolations } from './axe-scan';
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

/** A real PDF of two A4 pages, each with one large line of Helvetica (not embedded: pdf.js's standard font). */
async function writeTwoPagePdf(path: string): Promise<void> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (const text of ['First page', 'Second page, longer than the first']) {
    const page = document.addPage([595, 842]);
    page.drawText(text, { x: 60, y: 700, size: 48, font });
    page.drawRectangle({ x: 60, y: 80, width: text.length * 12, height: 300 });
  }
  writeFileSync(path, await document.save());
}

/** How many pixels of a canvas are not (near) white: zero for a blank page. */
function inkOf(canvas: Locator): Promise<number> {
  return canvas.evaluate((element) => {
    const target = element as HTMLCanvasElement;
    const context = target.getContext('2d');
    if (!context || target.width === 0 || target.height === 0) return 0;
    const { data } = context.getImageData(0, 0, target.width, target.height);
    let ink = 0;
    for (let index = 0; index < data.length; index += 4) {
      const alpha = data[index + 3] ?? 0;
      if (
        alpha > 0 &&
        ((data[index] ?? 255) < 200 || (data[index + 1] ?? 255) < 200 || (data[index + 2] ?? 255) < 200)
      )
        ink += 1;
    }
    return ink;
  });
}

/** Waits until the canvas is drawn (has ink, and as much as `drawn` wants), and gives how much. */
async function inkedCanvas(canvas: Locator, drawn: (ink: number) => boolean = () => true): Promise<number> {
  return vi.waitFor(
    async () => {
      const ink = await inkOf(canvas);
      if (ink > 0 && drawn(ink)) return ink;
      throw new Error('the canvas stayed blank');
    },
    { timeout: 15_000, interval: 50 },
  );
}

describe('review before sending, and the document in view, in Chromium', () => {
  it('reviews what goes where, sends nothing on cancel, sends on confirm, then says what was sent', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, sim, files } = app;
    const send = page.getByRole('button', { name: 'Send batch' });
    const review = page.getByRole('dialog', { name: 'Review before sending Review batch' });

    // No connection yet: the review says so and offers no way to send.
    await createBatch(page, 'Review batch');
    const table = await importSampleManifest(app, 'Review batch');
    await send.click();
    await review.getByText('This batch cannot be sent now: Choose or create a connection first').waitFor();
    expect(await review.getByRole('button', { name: /^Send / }).count()).toBe(0);
    await review.getByRole('button', { name: 'Cancel' }).click();
    await review.waitFor({ state: 'hidden' });

    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
    await page.getByRole('button', { name: 'Batches', exact: true }).click();
    await page.getByRole('button', { name: 'Review batch', exact: true }).click();
    // A fourth document without recipients: it cannot go, and the review says why.
    const unready = files.file('unready.pdf');
    await writeTwoPagePdf(unready);
    await app.answerNextDialog([unready]);
    await page.getByRole('button', { name: 'Add PDFs…' }).click();
    await page.getByText('1 document added.').waitFor();

    await send.click();
    // Three documents, to five people (six recipients, one of them on two documents).
    await review.getByText('3 documents will be sent to 5 people.').waitFor();
    const facts = review.locator('dl');
    await facts.getByText('Office', { exact: true }).waitFor();
    await facts.getByText(sim.baseUrl, { exact: true }).waitFor();
    await facts.getByText(client.clientId, { exact: true }).waitFor();
    await review.getByRole('heading', { name: '1 document cannot go yet' }).waitFor();
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await seriousViolations(page, `review, ${colorScheme}`)).toEqual([]);
    }
    await review.getByRole('listitem').filter({ hasText: 'Add at least one recipient.' }).waitFor();
    const host = new URL(sim.baseUrl).host;
    const confirm = review.getByRole('button', { name: `Send 3 documents to ${host}` });
    // The focus starts on the summary, read first; the confirmation is one Tab away, never the first stop.
    const summary = review.getByText('3 documents will be sent to 5 people.');
    await expect(summary.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Tab');
    await expect(confirm.evaluate((element) => element === document.activeElement)).resolves.toBe(true);

    // Escape cancels: the focus is back on "Send batch", and nothing was asked of main.
    const callsAtEscape = app.callsToMain.length;
    await page.keyboard.press('Escape');
    await review.waitFor({ state: 'hidden' });
    await expect(send.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
    expect(sim.state.uploads()).toHaveLength(0);
    expect(sim.state.requests()).toHaveLength(0);

    // Confirmed: exactly the three go, once each, and the summary says so.
    await sendBatch(page);
    await page.getByText('3 documents sent; they are waiting for signatures.').waitFor({ timeout: 30_000 });
    // Main's own log, in order, from the Escape on: the review asked anew, then its one start (a
    // start asked by the Escape would come first), so the Escape sent nothing.
    const sendingAfterEscape = app.callsToMain
      .slice(callsAtEscape)
      .filter((channel) => channel.startsWith('sending.'));
    expect(sendingAfterEscape).toEqual(['sending.review', 'sending.start']);
    expect(sim.state.countByExternalReference()).toEqual({
      'RH-2026-0142': 1,
      'NDA-2026-017': 1,
      'RH-2026-0143': 1,
    });
    expect(await table.getByText('Add at least one recipient.').count()).toBe(1);
  }, 60_000);

  it('after a send with a refusal, the summary says how many went and how many failed, as main classed them', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, sim } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
    await createBatch(page, 'Summary batch');
    await importSampleManifest(app, 'Summary batch');
    sim.faults.enqueue({
      kind: 'reject',
      pathPattern: '^/api/v1/signing-requests$',
      status: 422,
      code: 'invalid_signing_request',
    });

    await sendBatch(page);

    const summary = page.getByRole('status').filter({ hasText: 'documents sent' });
    await summary.waitFor({ timeout: 30_000 });
    await expect(summary.textContent()).resolves.toContain(
      '2 documents sent; they are waiting for signatures. 1 document failed: see its row to retry it.',
    );
    expect(Object.values(sim.state.countByExternalReference()).reduce((sum, count) => sum + count, 0)).toBe(
      2,
    );
    // Dismissed, it is gone (and never follows the person to another batch).
    await summary.getByRole('button', { name: 'Dismiss message' }).click();
    await summary.waitFor({ state: 'hidden' });
  }, 60_000);

  it('shows each PDF’s first page in its row and the whole document, page by page, in a viewer', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, files } = app;
    // Everything pdf.js needs comes from the app itself: its worker and the standard fonts.
    const fetched: string[] = [];
    page.on('request', (request) => fetched.push(request.url()));
    const pdf = files.file('two-pages.pdf');
    await writeTwoPagePdf(pdf);
    await createBatch(page, 'Preview batch');
    await app.answerNextDialog([pdf]);
    await page.getByRole('button', { name: 'Add PDFs…' }).click();
    await page.getByText('1 document added.').waitFor();
    const table = documentsTable(page, 'Preview batch');

    // The thumbnail: the first page, drawn (not blank).
    const thumbnail = table.getByRole('button', { name: 'Preview two-pages.pdf' });
    await thumbnail.and(page.locator('.pdf-thumbnail-ready')).waitFor({ timeout: 15_000 });
    expect(await inkedCanvas(thumbnail.locator('canvas'))).toBeGreaterThan(20);
    const origin = new URL(page.url()).origin;
    expect(fetched.filter((url) => !url.startsWith(origin) && !url.startsWith('ws:'))).toEqual([]);
    expect(fetched.some((url) => /\/assets\/pdf\.worker[^/]*\.mjs$/.test(url))).toBe(true);
    expect(fetched.some((url) => url.endsWith('/pdfjs/standard_fonts/LiberationSans-Regular.ttf'))).toBe(
      true,
    );

    // The viewer: page 1, then page 2 by keyboard, each drawn; Escape closes, the focus comes back.
    await thumbnail.click();
    const viewer = page.getByRole('dialog', { name: 'Preview of two-pages.pdf' });
    await viewer.getByRole('status').filter({ hasText: 'Page 1 of 2' }).waitFor({ timeout: 15_000 });
    const firstInk = await inkedCanvas(viewer.getByRole('img', { name: 'Page 1 of two-pages.pdf' }));
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await seriousViolations(page, `viewer, ${colorScheme}`)).toEqual([]);
    }
    await page.keyboard.press('ArrowRight');
    await viewer.getByRole('status').filter({ hasText: 'Page 2 of 2' }).waitFor();
    // The second page has more ink than the first (a longer line, a wider box).
    const secondInk = await inkedCanvas(
      viewer.getByRole('img', { name: 'Page 2 of two-pages.pdf' }),
      (ink) => ink !== firstInk,
    );
    expect(secondInk).toBeGreaterThan(firstInk);
    // The buttons too; at the last page "Next page" is marked unavailable, not removed from the focus.
    await expect(viewer.getByRole('button', { name: 'Next page' }).isDisabled()).resolves.toBe(true);
    await viewer.getByRole('button', { name: 'Previous page' }).click();
    await viewer.getByRole('status').filter({ hasText: 'Page 1 of 2' }).waitFor();
    await viewer.getByRole('img', { name: 'Page 1 of two-pages.pdf' }).waitFor();
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'hidden' });
    await expect(thumbnail.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
  }, 60_000);
});
