/**
 * The review before sending is what is sent (README "Using the app", step 5), in real Chromium
 * through the browser host: a batch changed while its review is open (another window edits a
 * document) is not sent on confirm; the dialog says so itself and offers to review again, and the
 * fresh review is what goes. "Resume sending" continues what was queued only: a document added
 * while the batch was paused waits for its own review.
 */
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { launchApp, type App } from './app-harness';
import { writePdf } from '../support/pdf-files';
import {
  createBatch,
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

/** The class main gives each document of the batch `name` (sorted), read through the page's bridge. */
async function documentClasses(page: Page, name: string): Promise<string[]> {
  return page.evaluate(async (batchName) => {
    const batches = await window.desk?.batches.list();
    const batch = batches?.ok ? batches.value.find((summary) => summary.name === batchName) : undefined;
    const detail = batch ? await window.desk?.batches.get(batch.id) : undefined;
    return detail?.ok ? detail.value.documents.map((document) => document.class).sort() : [];
  }, name);
}

describe('the review is what is sent, in Chromium', () => {
  it('a batch changed while its review is open: confirming sends nothing, says why in the dialog, and "Review again" sends the new state', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, sim } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
    await createBatch(page, 'Changing batch');
    await importSampleManifest(app, 'Changing batch');

    await page.getByRole('button', { name: 'Send batch' }).click();
    const review = page.getByRole('dialog', { name: 'Review before sending Changing batch' });
    await review.getByText('3 documents will be sent to 5 people.').waitFor();

    // Meanwhile another window (a second tab of the browser host) gives the NDA another recipient.
    const edited = await page.evaluate(async () => {
      const batches = await window.desk?.batches.list();
      const batch = batches?.ok
        ? batches.value.find((summary) => summary.name === 'Changing batch')
        : undefined;
      const detail = batch ? await window.desk?.batches.get(batch.id) : undefined;
      const document = detail?.ok
        ? detail.value.documents.find((candidate) => candidate.externalReference === 'NDA-2026-017')
        : undefined;
      if (!batch || !document) return false;
      const updated = await window.desk?.documents.update(batch.id, document.id, {
        recipients: [{ participant_type: 'signer', role: 'Employee', name: 'Eve', email: 'eve@example.com' }],
      });
      return updated?.ok === true;
    });
    expect(edited).toBe(true);

    const host = new URL(sim.baseUrl).host;
    await review.getByRole('button', { name: `Send 3 documents to ${host}` }).click();
    await review
      .getByRole('alert')
      .filter({
        hasText: 'The batch changed since you reviewed it (documents or connection); nothing was sent.',
      })
      .waitFor();
    const again = review.getByRole('button', { name: 'Review again' });
    await expect(again.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
    expect(await review.getByRole('button', { name: /^Send \d+ documents? to / }).count()).toBe(0);
    // Main refused the start before queuing anything: its store holds every document unsent, so
    // nothing can leave later either; the service has seen no upload.
    expect(await documentClasses(page, 'Changing batch')).toEqual(['not_sent', 'not_sent', 'not_sent']);
    expect(sim.state.uploads()).toHaveLength(0);

    // Reviewed again (main's fresh account, the refusal gone), confirming sends the batch as it is now.
    await again.click();
    await review.getByText(/^3 documents will be sent to \d+ people\.$/).waitFor();
    expect(await review.getByText('The batch changed since you reviewed it', { exact: false }).count()).toBe(
      0,
    );
    await review.getByRole('button', { name: `Send 3 documents to ${host}` }).click();
    await review.waitFor({ state: 'hidden' });
    await page.getByText('3 documents sent; they are waiting for signatures.').waitFor({ timeout: 30_000 });
    expect(Object.values(sim.state.countByExternalReference())).toEqual([1, 1, 1]);
  }, 60_000);

  it('a copy of a sent batch: its drafts are held back naming the batch that sent them; "Send anew on purpose…" on a row asks twice, and only that document goes, in the next review', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, sim } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
    await createBatch(page, 'Monday');
    await importSampleManifest(app, 'Monday');
    await sendBatch(page);
    await page.getByText('3 documents sent; they are waiting for signatures.').waitFor({ timeout: 30_000 });

    await createBatch(page, 'Monday again');
    const table = await importSampleManifest(app, 'Monday again');
    await table
      .getByText('in the batch “Monday” already has, or may have, a signing request for NDA-2026-017', {
        exact: false,
      })
      .waitFor();
    await table.getByRole('button', { name: 'Send anew on purpose… NDA-2026-017' }).click();
    const dialog = page.getByRole('dialog', { name: 'NDA-2026-017 needs your check' });
    // Its first sentence says why it was not sent; the whole story waits behind the disclosure.
    await dialog.getByText('NDA-2026-017 was not sent: another document', { exact: false }).waitFor();
    expect(await dialog.getByRole('button', { name: 'Link this request' }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Send as a new request…' }).click();
    await dialog
      .getByText('in the batch “Monday” already has, or may have, a request for NDA-2026-017', {
        exact: false,
      })
      .waitFor();
    await dialog.getByRole('button', { name: 'Yes, send NDA-2026-017 as a new request' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page
      .getByText("NDA-2026-017 will be sent as a new request, on purpose: it is in the batch's next review.")
      .waitFor();
    expect(await table.getByRole('button', { name: 'Send anew on purpose… NDA-2026-017' }).count()).toBe(0);
    expect(await table.getByRole('button', { name: 'Send anew on purpose… RH-2026-0142' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Send batch' }).click();
    const review = page.getByRole('dialog', { name: 'Review before sending Monday again' });
    await review.getByText('1 document will be sent to 1 person.').waitFor();
    await review.getByRole('button', { name: /^Send 1 document to / }).click();
    await review.waitFor({ state: 'hidden' });
    await page
      .getByText('1 document sent; it is waiting for signatures.', { exact: false })
      .waitFor({ timeout: 30_000 });
    expect(sim.state.countByExternalReference()).toEqual({
      'NDA-2026-017': 2,
      'RH-2026-0142': 1,
      'RH-2026-0143': 1,
    });
  }, 90_000);

  it('"Resume sending" after a pause sends the queued documents only; a document added meanwhile waits for its review', async () => {
    app = await launchApp({ host: 'browser' });
    const { page, sim, files } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
    await createBatch(page, 'Paused batch');
    await importSampleManifest(app, 'Paused batch');
    sim.faults.set({ dropBeforeRate: 1 }); // the service is out of reach: the three stay on their way
    await sendBatch(page);
    await page.getByRole('button', { name: 'Pause sending' }).click();
    const resume = page.getByRole('button', { name: 'Resume sending' });
    await resume.waitFor();

    // A fourth contract, made ready while the batch is paused.
    await app.answerNextDialog([await writePdf(files, 'late.pdf', 'LATE-1')]);
    await page.getByRole('button', { name: 'Add PDFs…' }).click();
    await page.getByText('1 document added.').waitFor();
    const readied = await page.evaluate(async () => {
      const batches = await window.desk?.batches.list();
      const batch = batches?.ok
        ? batches.value.find((summary) => summary.name === 'Paused batch')
        : undefined;
      const detail = batch ? await window.desk?.batches.get(batch.id) : undefined;
      const late = detail?.ok
        ? detail.value.documents.find((document) => document.class === 'not_sent')
        : undefined;
      if (!batch || !late) return false;
      const updated = await window.desk?.documents.update(batch.id, late.id, {
        externalReference: 'LATE-1',
        recipients: [{ participant_type: 'signer', role: 'Employee', name: 'Lou', email: 'lou@example.com' }],
      });
      return updated?.ok === true;
    });
    expect(readied).toBe(true);
    sim.faults.set({ dropBeforeRate: 0 });

    await resume.click();

    // The three go; the fourth is left for "Send batch", which reviews it.
    const send = page.getByRole('button', { name: 'Send batch' });
    // Enabled once none is on its way any more (else "Resume sending" stands there): the sending is
    // over, so what the service holds now is all it gets.
    await send.and(page.locator(':enabled')).waitFor({ timeout: 30_000 });
    expect(await documentClasses(page, 'Paused batch')).toEqual([
      'not_sent',
      'waiting',
      'waiting',
      'waiting',
    ]);
    expect(Object.keys(sim.state.countByExternalReference()).sort()).toEqual([
      'NDA-2026-017',
      'RH-2026-0142',
      'RH-2026-0143',
    ]);
    await send.click();
    const review = page.getByRole('dialog', { name: 'Review before sending Paused batch' });
    await review.getByText('1 document will be sent to 1 person.').waitFor();
  }, 60_000);
});
