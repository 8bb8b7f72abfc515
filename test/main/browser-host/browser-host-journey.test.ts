import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CeremonyOpener } from '../../../main/app/ports';
import { simulatorDemo } from '../../../main/browser-host/launch';
import { launchChromium } from '../../support/browser';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import { startTestHost, type TestHost } from './host-fixtures';

let browser: Browser;
let host: TestHost;
let files: TempFolder;
const demo = simulatorDemo();
const ceremonies: { readonly url: string; readonly page: Page }[] = [];

/** Opens each ceremony in a page of its own browser context, as the app's widget window would. */
const playwrightOpener: CeremonyOpener = {
  async open(request) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const url = request.session.widgetUrl.reveal();
    await page.goto(url);
    page.once('close', () => request.onClosed());
    ceremonies.push({ url, page });
  },
};

beforeAll(async () => {
  browser = await launchChromium();
  host = await startTestHost({ demo, ceremonyOpener: playwrightOpener });
  files = makeTempFolder('desk-journey-');
});

afterAll(async () => {
  try {
    await browser?.close();
  } finally {
    files?.remove();
    await host?.close();
    await demo.close();
  }
});

describe('a whole journey through the browser host', () => {
  it('uses the demo, adds a PDF through the prompt, sends it, and opens and closes its ceremony', async () => {
    const pdf = await writePdf(files, 'Employment contract — Zoé.pdf', 'Employment contract');
    const page = await (await browser.newContext()).newPage();
    await page.goto(host.launched.url);
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'ready');

    const demoProfile = await page.evaluate(() => window.desk?.profiles.useDemo());
    expect(demoProfile).toMatchObject({ ok: true, value: { demo: true, active: true, hasSecret: true } });

    const batchId = await page.evaluate(async () => {
      const created = await window.desk?.batches.create('Journey');
      return created?.ok ? created.value.id : '';
    });
    page.once('dialog', (dialog) => void dialog.accept(pdf));
    const added = await page.evaluate(async (id) => {
      const picked = await window.desk?.dialogs.pickPdfs();
      if (!picked?.ok) return picked;
      return window.desk?.documents.addPaths(id, picked.value);
    }, batchId);
    expect(added).toEqual({ ok: true, value: { added: 1, rejected: [] } });

    const documentId = await page.evaluate(async (id) => {
      const detail = await window.desk?.batches.get(id);
      const document = detail?.ok ? detail.value.documents[0] : undefined;
      if (!document) return '';
      await window.desk?.documents.update(id, document.id, {
        externalReference: 'JOURNEY-1',
        recipients: [
          {
            participant_type: 'signer',
            role: 'Employee',
            name: 'Zoé Martin',
            email: 'zoe@example.com',
            signing_order: 1,
          },
        ],
      });
      return document.id;
    }, batchId);
    expect(documentId).not.toBe('');

    await page.evaluate(() => {
      (window as unknown as { closedCeremonies: string[] }).closedCeremonies = [];
      window.desk?.events.ceremony.closed(({ documentId: closed }) =>
        (window as unknown as { closedCeremonies: string[] }).closedCeremonies.push(closed),
      );
    });
    // "Send batch": the review, confirmed as it is.
    const started = await page.evaluate(async (id) => {
      const review = await window.desk?.sending.review(id);
      if (!review?.ok || !review.value.reviewed) return review;
      return window.desk?.sending.start(id, review.value.reviewed);
    }, batchId);
    expect(started).toMatchObject({ ok: true, value: { state: expect.any(String) } });
    // Polled from here: waitForFunction would take the predicate's promise itself as truthy.
    await expect
      .poll(
        () =>
          page.evaluate(async (id) => {
            const detail = await window.desk?.batches.get(id);
            return detail?.ok ? detail.value.documents[0]?.phase : detail?.error.code;
          }, batchId),
        { timeout: 20_000, interval: 100 },
      )
      .toBe('prepared');

    const opened = await page.evaluate(({ id, doc }) => window.desk?.ceremony.open(id, doc), {
      id: batchId,
      doc: documentId,
    });
    expect(opened).toMatchObject({ ok: true, value: { expiresInSeconds: expect.any(Number) } });
    const ceremony = ceremonies.at(-1);
    expect(ceremony?.url).toContain('/widget/');
    expect(host.logLines.join('')).not.toContain(ceremony?.url ?? 'missing');

    await ceremony?.page.close();
    await page.waitForFunction(
      (doc) => (window as unknown as { closedCeremonies: string[] }).closedCeremonies.includes(doc),
      documentId,
    );
  });
});
