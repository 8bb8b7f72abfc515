/**
 * The end-to-end journeys, written once against the `App` wrapper and run on both hosts: the
 * browser host in Chromium (always) and real Electron (when its runtime is installed).
 */
import { createHash, randomUUID } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Locator, Page } from 'playwright-core';
import { expect, vi } from 'vitest';
import { normalizeFilename } from '../../shared/service/filename';
import { startSimulator } from '../../simulator/simulator';
import { ALL_SCOPES } from '../../simulator/types';
import { writePdf } from '../support/pdf-files';
import { expectNoSecretLeft, type App } from './app-harness';
import { seriousViolations } from './axe-scan';

const SAMPLES = join(import.meta.dirname, '..', '..', 'samples');
export const SAMPLE_MANIFEST = join(SAMPLES, 'manifest.csv');
const SAMPLE_REFERENCES = ['RH-2026-0142', 'NDA-2026-017', 'RH-2026-0143'];

export interface Journey {
  readonly name: string;
  readonly timeoutMs: number;
  run(app: App): Promise<void>;
}

/** Waits until `condition` holds (checked every `everyMs`), or fails after `timeoutMs`. */
export async function eventually(condition: () => boolean, timeoutMs = 10_000, everyMs = 50): Promise<void> {
  await vi.waitFor(
    () => {
      if (!condition()) throw new Error('condition not met in time');
    },
    { timeout: timeoutMs, interval: everyMs },
  );
}

/** A client only this run knows, so a leak of its secret cannot be mistaken for anything else. */
export function registerJourneyClient(app: App): { clientId: string; clientSecret: string } {
  const client = {
    clientId: `journey-${randomUUID().slice(0, 8)}`,
    clientSecret: `journey-secret-${randomUUID()}`,
  };
  app.sim.addClient({ ...client, scopes: [...ALL_SCOPES] });
  return client;
}

/** "Send batch", then confirms the review before sending ("Send N documents to <service>"). */
export async function sendBatch(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Send batch' }).click();
  const review = page.getByRole('dialog', { name: /^Review before sending/ });
  await review.getByRole('button', { name: /^Send \d+ documents? to / }).click();
  await review.waitFor({ state: 'hidden' });
}

/** Saves a connection profile through the Connections screen and tests it. */
export async function saveConnection(
  page: Page,
  profile: { name: string; baseUrl: string; clientId: string; clientSecret: string },
): Promise<void> {
  await page.getByRole('button', { name: 'Connections' }).click();
  await page.getByLabel('Name').fill(profile.name);
  await page.getByLabel('Service address (base URL)').fill(profile.baseUrl);
  await page.getByLabel('Client id').fill(profile.clientId);
  await page.getByLabel('Client secret').fill(profile.clientSecret);
  await page.getByRole('button', { name: 'Save connection' }).click();
  const row = page.getByRole('row', { name: new RegExp(profile.name) });
  await row.getByText('Saved in keychain').waitFor();
  await row.getByRole('button', { name: 'Test connection' }).click();
  await row.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
  // The list can show the saved row (main's change event) before the save's own answer clears
  // the form: what the person sees in the end is an empty secret field.
  await expect.poll(() => page.getByLabel('Client secret').inputValue()).toBe('');
}

/** Creates a batch from the batch list and waits for its screen. */
export async function createBatch(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Batches', exact: true }).click();
  await page.getByLabel('New batch name').fill(name);
  await page.getByRole('button', { name: 'Create batch' }).click();
  await page.getByRole('heading', { name, level: 2 }).waitFor();
}

/** The documents table of the batch on screen. */
export function documentsTable(page: Page, batchName: string): Locator {
  return page.getByRole('region', { name: `Documents of ${batchName}` });
}

/** Imports the sample manifest (3 documents) into the batch on screen, through its preview. */
export async function importSampleManifest(app: App, batchName: string): Promise<Locator> {
  const { page } = app;
  await app.answerNextDialog(SAMPLE_MANIFEST);
  await page.getByRole('button', { name: 'Import manifest…' }).click();
  await page.getByText('3 documents, 6 recipients. Nothing has been sent.').waitFor();
  await page.getByRole('button', { name: 'Import 3 documents' }).click();
  const table = documentsTable(page, batchName);
  for (const reference of SAMPLE_REFERENCES)
    await table.getByRole('rowheader', { name: reference }).waitFor();
  return table;
}

/** Fills the field `label` of the participant `who` (e.g. "recipient 1") in `scope`. */
async function fillParticipant(scope: Locator, who: string, values: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(values))
    await scope.getByLabel(`${label} of ${who}`).fill(value);
}

export const fullFlow: Journey = {
  name: 'saves a profile, imports the sample manifest, sends it, signs in the widget and sees the request complete; no secret is left anywhere',
  timeoutMs: 120_000,
  async run(app) {
    const { page, sim } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
    await app.screenshot('connections');

    // Batches: create one and import the sample manifest through its preview.
    await page.getByRole('button', { name: 'Batches', exact: true }).click();
    await page.getByLabel('New batch name').fill('Monday contracts');
    await page.getByRole('button', { name: 'Create batch' }).click();
    await app.answerNextDialog(SAMPLE_MANIFEST);
    await page.getByRole('button', { name: 'Import manifest…' }).click();
    await page.getByText('3 documents, 6 recipients. Nothing has been sent.').waitFor();
    await page.getByRole('button', { name: 'Import 3 documents' }).click();
    const table = page.getByRole('region', { name: 'Documents of Monday contracts' });
    await table.getByRole('rowheader', { name: 'NDA-2026-017' }).waitFor();
    expect(await table.getByText('Accord_de_confidentialite_-_Berenice_Chateau.pdf').count()).toBe(1);

    // Send: every document reaches "waiting for signatures", exactly once at the service.
    await sendBatch(page);
    await page.getByText('3 of 3 documents sent').waitFor({ timeout: 20_000 });
    expect(sim.state.countByExternalReference()).toEqual({
      'RH-2026-0142': 1,
      'NDA-2026-017': 1,
      'RH-2026-0143': 1,
    });

    // Ceremony: open it, sign as the only signer in the widget page, close it.
    await page.getByRole('button', { name: 'Open ceremony for NDA-2026-017' }).click();
    await eventually(() => app.ceremonies.length === 1);
    const widget = app.ceremonies[0]!;
    const widgetUrl = widget.url();
    expect(widgetUrl).toContain('/widget/');
    await widget.getByRole('button', { name: 'Sign as Bérénice Château' }).click();
    await widget.getByText('All signatures are collected. You can close this window.').waitFor();
    await widget.close();

    // Tracking: the poller (quick after a ceremony) sees completion and the evidence.
    const ndaRow = table.getByRole('row', { name: /NDA-2026-017/ });
    await ndaRow.getByText('Completed — evidence ready').waitFor({ timeout: 30_000 });
    await page
      .getByText('NDA-2026-017 in the batch “Monday contracts” is fully signed; its evidence is ready.')
      .waitFor();
    expect(await ndaRow.getByRole('button', { name: /Open ceremony/ }).count()).toBe(0);
    const otherRow = table.getByRole('row', { name: /RH-2026-0142/ });
    expect(await otherRow.getByText('Waiting for signatures').count()).toBe(1);
    await app.screenshot('batch-tracking');

    // Nothing secret was logged, crossed the bridge, reached the page or was written to disk.
    await expectNoSecretLeft(app, [client.clientSecret, 'sim_at_', widgetUrl]);
  },
};

/** (a) A batch prepared by hand: PDFs from the file dialog, settings, recipients, validated as typed. */
export const prepareByHand: Journey = {
  name: 'prepares a batch by hand: adds PDFs, sets batch settings and recipients (each mistake named as it is typed), sends it',
  timeoutMs: 120_000,
  async run(app) {
    const { page, sim, files } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
    const first = await writePdf(files, 'Contrat été – Zoé.pdf', 'Contrat de travail de Zoé');
    const second = await writePdf(files, 'Devis n°12 (Müller & Söhne).pdf', 'Devis');
    await createBatch(page, 'Hand-made batch');
    await expect(page.getByText('This batch is empty.').count()).resolves.toBe(1);

    // Two PDFs through the file dialog: each shows the name the service will store, its size and digest.
    await app.answerNextDialog([first, second]);
    await page.getByRole('button', { name: 'Add PDFs…' }).click();
    await page.getByText('2 documents added.').waitFor();
    const table = documentsTable(page, 'Hand-made batch');
    for (const path of [first, second]) {
      const stored = normalizeFilename(path.split('/').pop() ?? '');
      await table.getByText(stored, { exact: true }).waitFor();
      const digest = createHash('sha256').update(readFileSync(path)).digest('hex');
      await table.getByText(`${digest.slice(0, 12)}…`).waitFor();
    }
    expect(await table.getByText('Add at least one recipient.').count()).toBe(2);
    await expect(page.getByRole('button', { name: 'Send batch' }).isDisabled()).resolves.toBe(true);

    // Batch settings: a locale in the wrong form is named at once; a default observer for every document.
    await page.getByText('Batch settings: options and default recipients').click();
    const settings = page.locator('details.settings');
    await settings.getByLabel('Locale').fill('fr');
    await settings.getByText('Locale must look like language-REGION, e.g. fr-FR or en-GB.').waitFor();
    await settings.getByLabel('Locale').fill('fr-FR');
    await settings.getByLabel('Enforce the signing order').selectOption('yes');
    await settings.getByLabel('Transaction type').fill('employment_contract');
    await settings.getByRole('button', { name: 'Add default recipient' }).click();
    await settings.getByLabel('Type of default recipient 1').selectOption('observer');
    await fillParticipant(settings, 'default recipient 1', {
      Name: 'Service paie',
      Role: 'Paie',
      'E-mail': 'paie@example',
    });
    await settings.getByText('E-mail must be a valid e-mail address.').waitFor();
    await fillParticipant(settings, 'default recipient 1', { 'E-mail': 'paie@example.com' });
    expect(await settings.getByText('E-mail must be a valid e-mail address.').count()).toBe(0);
    await settings.getByRole('button', { name: 'Save batch settings' }).click();
    // With an observer only, each document still needs a signer.
    await table
      .getByText('Add at least one signer: a request with observers only cannot be signed.')
      .first()
      .waitFor();

    // First document: its reference and a signer, with every mistake named as it is typed.
    // A document added from a file is first named after it.
    await table.getByRole('button', { name: 'Edit Contrat été – Zoé' }).click();
    const editor = page.getByRole('dialog');
    await editor.getByLabel('Reference', { exact: true }).fill('HAND-1');
    await editor.getByRole('button', { name: 'Add recipient' }).click();
    await fillParticipant(editor, 'recipient 1', {
      Name: 'Zoé Lefèvre',
      'E-mail': 'zoe.lefevre@',
      Role: 'r'.repeat(101),
      'Signing order': '0',
    });
    await editor.getByText('E-mail must be a valid e-mail address.').waitFor();
    await editor.getByText('Role must be at most 100 characters.').waitFor();
    await editor.getByText('Signing order must be at least 1.').waitFor();
    await app.screenshot('document-editor');
    await editor.getByRole('button', { name: 'Save document' }).click();
    await editor.getByText('Some fields need attention (marked above). Nothing was saved yet.').waitFor();
    await fillParticipant(editor, 'recipient 1', {
      'E-mail': 'zoe.lefevre@example.com',
      Role: 'Salariée',
      'Signing order': '1',
    });
    await editor.getByRole('button', { name: 'Save document' }).click();
    await editor.waitFor({ state: 'hidden' });
    await table.getByRole('rowheader', { name: 'HAND-1' }).waitFor();

    // Second document: a signer, and an observer added after the request is created.
    await table.getByRole('button', { name: 'Edit Devis n°12 (Müller & Söhne)' }).click();
    await editor.getByLabel('Reference', { exact: true }).fill('HAND-2');
    await editor.getByRole('button', { name: 'Add recipient' }).click();
    await fillParticipant(editor, 'recipient 1', {
      Name: 'Jürgen Müller',
      'E-mail': 'juergen@example.com',
      Role: 'Gérant',
    });
    await editor.getByRole('button', { name: 'Add participant' }).click();
    await editor.getByLabel('Type of participant 1').selectOption('observer');
    await fillParticipant(editor, 'participant 1', {
      Name: 'Comptabilité',
      'E-mail': 'compta@example.com',
      Role: 'Suivi',
    });
    await editor.getByRole('button', { name: 'Save document' }).click();
    await editor.waitFor({ state: 'hidden' });
    await table.getByRole('rowheader', { name: 'HAND-2' }).waitFor();

    // Send: both prepared, each with what was set here.
    await sendBatch(page);
    await page.getByText('2 of 2 documents sent').waitFor({ timeout: 30_000 });
    // "Sent" counts a request once created; it is ready to sign once prepared, as each row says.
    for (const reference of ['HAND-1', 'HAND-2'])
      await table
        .getByRole('row', { name: new RegExp(reference) })
        .getByText('Waiting for signatures')
        .waitFor({ timeout: 30_000 });
    expect(sim.state.countByExternalReference()).toEqual({ 'HAND-1': 1, 'HAND-2': 1 });
    const byReference = Object.fromEntries(
      sim.state.requests().map((request) => [request.externalReference, request]),
    );
    for (const request of Object.values(byReference)) {
      expect(request).toMatchObject({
        locale: 'fr-FR',
        enforceOrder: true,
        transactionType: 'employment_contract',
        status: 'prepared',
      });
    }
    expect(
      byReference['HAND-1']?.participants.map((p) => [p.email, p.participantType, p.addedLater]),
    ).toEqual([
      ['zoe.lefevre@example.com', 'signer', false],
      ['paie@example.com', 'observer', false],
    ]);
    expect(byReference['HAND-2']?.participants.map((p) => [p.email, p.addedLater])).toEqual([
      ['juergen@example.com', false],
      ['paie@example.com', false],
      ['compta@example.com', true],
    ]);
    expect(byReference['HAND-1']?.filename).toBe(normalizeFilename('Contrat été – Zoé.pdf'));
  },
};

/** (b) A manifest with mistakes: every one named by line, nothing kept, fixed, checked again, imported. */
export const manifestWithErrors: Journey = {
  name: 'imports a manifest with errors: every problem listed by row and column, nothing kept; fixed in the file, checked again and imported, all offline',
  timeoutMs: 90_000,
  async run(app) {
    const { page, sim, files } = app;
    // Preparation needs no network: the service is down for the whole journey.
    await sim.goOffline();
    cpSync(join(SAMPLES, 'pdfs'), files.file('pdfs'), { recursive: true });
    const manifest = files.file('contracts.csv');
    const broken = readFileSync(join(SAMPLES, 'manifest-with-errors.csv'), 'utf8');
    writeFileSync(manifest, broken);
    await createBatch(page, 'From Excel');
    await app.answerNextDialog(manifest);
    await page.getByRole('button', { name: 'Import manifest…' }).click();
    const problems = page.getByRole('list', { name: 'Problems in the manifest' });
    await problems.waitFor();
    const listed = await problems.getByRole('listitem').allTextContents();
    expect(listed).toEqual([
      'row 3, column G (email): must be a valid e-mail address (got "anne.dupre@example")',
      'row 4, column E (role): must be at most 100 characters (this one has 115)',
      'row 5, column F (name): is required',
      'row 6, column H (signing_order): must be at least 1 (got "0")',
      'row 7, column K (locale): must be the same on every row of this document: row 6 has "fr-FR", this row has "de-DE"',
      'row 8, column A (document): cannot read "pdfs/Contrat de travail - Marc Perrin.pdf": the file does not exist',
    ]);
    await page.getByText('6 problems found; nothing was imported.').waitFor();
    expect(await page.getByRole('button', { name: /^Import \d/ }).count()).toBe(0);
    expect(await page.getByText('This batch is empty.').count()).toBe(1);
    await app.screenshot('manifest-problems');

    // Fix the file as a user would in Excel, add the missing PDF, and check again.
    const fixed = broken
      .replace('anne.dupre@example,', 'anne.dupre@example.com,')
      .replace(
        '"Directrice des ressources humaines, de la formation, de la paie et des relations sociales du groupe Atelier Lefèvre"',
        'Directrice des ressources humaines',
      )
      .replace('observer,Service juridique,,', 'observer,Service juridique,Claire Martin,')
      .replace('juergen.mueller@example.com,0,', 'juergen.mueller@example.com,1,')
      .replace('2,true,,de-DE', '2,true,,fr-FR');
    writeFileSync(manifest, fixed);
    await writePdf(files, 'pdfs/Contrat de travail - Marc Perrin.pdf', 'Contrat de travail de Marc Perrin');
    await page.getByRole('button', { name: 'Check again' }).click();
    await page.getByText('4 documents, 7 recipients. Nothing has been sent.').waitFor();
    await page.getByRole('button', { name: 'Import 4 documents' }).click();
    const table = documentsTable(page, 'From Excel');
    for (const reference of ['RH-2026-0142', 'NDA-2026-017', 'RH-2026-0143', 'RH-2026-0144'])
      await table.getByRole('rowheader', { name: reference }).waitFor();
    await page.getByText('Manifest imported: 4 added, 0 updated, 0 unchanged.').waitFor();
    expect(sim.state.calls()).toEqual([]);
  },
};

/** (c) Sending through faults: progress per document, retries, a refusal retried by hand. */
export const sendWithFaults: Journey = {
  name: 'sends through injected faults: progress shows, transient failures are retried, a refused document is retried by hand, nothing is sent twice',
  timeoutMs: 120_000,
  async run(app) {
    const { page, sim } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
    await createBatch(page, 'Stormy Monday');
    const table = await importSampleManifest(app, 'Stormy Monday');
    // Slow answers so progress can be seen; 30 % of calls answered 503; one creation refused outright.
    sim.faults.set({ latencyMs: 250, rate503: 0.3, retryAfterSeconds: 0 });
    // At least one 503 whatever the random draws: the first upload meets it.
    sim.faults.enqueue({ kind: '503', pathPattern: '^/api/v1/uploads$', retryAfterSeconds: 0 });
    sim.faults.enqueue({
      kind: 'reject',
      pathPattern: '^/api/v1/signing-requests$',
      status: 422,
      code: 'invalid_signing_request',
    });
    await sendBatch(page);
    await page
      .getByRole('progressbar', { name: /^Progress of / })
      .first()
      .waitFor();
    await app.screenshot('batch-sending');
    const failedRow = table
      .getByRole('row')
      .filter({ hasText: 'The service refused to create the signing request' });
    await failedRow.waitFor({ timeout: 60_000 });
    await page.getByText('2 of 3 documents sent').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Retry the failed document' }).click();
    await page.getByText('3 of 3 documents sent').waitFor({ timeout: 60_000 });
    expect(sim.state.countByExternalReference()).toEqual(
      Object.fromEntries(SAMPLE_REFERENCES.map((reference) => [reference, 1])),
    );
    expect(sim.state.calls().filter((call) => call.fault === '503').length).toBeGreaterThan(0);
    expect(sim.state.violations()).toEqual([]);
  },
};

/** (d) The network goes away in the middle of sending, and comes back. */
export const offlineAndBack: Journey = {
  name: 'goes offline while sending: a calm banner says sending resumes by itself, and it does when the service is back',
  timeoutMs: 120_000,
  async run(app) {
    const { page, sim } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
    await createBatch(page, 'Train batch');
    await importSampleManifest(app, 'Train batch');
    sim.faults.set({ latencyMs: 300 });
    await sendBatch(page);
    // The network goes away in the middle of the batch: the instant the service has stored a first
    // upload, before its answer (300 ms later) leaves. No creation can be on its way then (each
    // waits for its upload's answer), so the cut leaves none whose outcome is unknown, and every
    // document resumes by itself. (A creation cut on its way is the app's question to the user:
    // the needs-check journey.) Watched every millisecond, not every 50: on a busy machine a
    // slower watch let creations leave before the cut, and the run ended asking about two. The
    // cut follows the watch with no timer in between, so the latency's timer cannot come first.
    await eventually(() => sim.state.uploads().length > 0, 30_000, 1);
    await sim.goOffline();
    const banner = page
      .getByRole('status')
      .filter({ hasText: 'The signing service cannot be reached. Sending resumes by itself.' });
    await banner.waitFor({ timeout: 30_000 });
    expect(await banner.textContent()).toContain('Nothing is lost.');
    await app.screenshot('offline-banner');
    await sim.goOnline();
    await page.getByText('3 of 3 documents sent').waitFor({ timeout: 60_000 });
    await banner.waitFor({ state: 'detached' });
    expect(sim.state.countByExternalReference()).toEqual(
      Object.fromEntries(SAMPLE_REFERENCES.map((reference) => [reference, 1])),
    );
  },
};

/** (f) The report: exported as CSV, read back as a spreadsheet would, safe from formula injection. */
export const exportReport: Journey = {
  name: 'exports the status report as CSV and reads it back: one row per document, statuses and dates, no formula can run',
  timeoutMs: 90_000,
  async run(app) {
    const { page, sim } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
    await createBatch(page, 'Report batch');
    const table = await importSampleManifest(app, 'Report batch');
    // A reference a spreadsheet would run as a formula.
    await table.getByRole('button', { name: 'Edit NDA-2026-017' }).click();
    const editor = page.getByRole('dialog');
    await editor.getByLabel('Reference', { exact: true }).fill('=HYPERLINK("http://evil.example","NDA")');
    await editor.getByRole('button', { name: 'Save document' }).click();
    await editor.waitFor({ state: 'hidden' });
    await sendBatch(page);
    await page.getByText('3 of 3 documents sent').waitFor({ timeout: 30_000 });
    const [completed] = sim.state
      .requests()
      .filter((request) => request.externalReference === 'RH-2026-0143');
    sim.complete(completed!.id);
    await page.getByRole('button', { name: 'Refresh statuses now' }).click();
    await table
      .getByRole('row', { name: /RH-2026-0143/ })
      .getByText(/^Completed/)
      .waitFor({ timeout: 30_000 });

    // The browser host saves it in its own download folder; Electron's save dialog is answered.
    const path = await app.saveNextReport('Report batch');
    await page.getByRole('button', { name: 'Export CSV…' }).click();
    await page.getByText(`Report saved to ${path}.`).waitFor();
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    // English: comma-separated, headers in words, one state column; times in this computer's
    // time zone (the app runs here), the service's UTC values last.
    const zone = new Intl.DateTimeFormat().resolvedOptions().timeZone;
    const rows = parse(text, { bom: true, columns: true, delimiter: ',' }) as Record<string, string>[];
    expect(Object.keys(rows[0] ?? {})).toEqual([
      'Batch',
      'External reference',
      'File',
      'Recipients',
      'State',
      'Request id',
      `Prepared (${zone})`,
      `Opened (${zone})`,
      `Finalized (${zone})`,
      'Evidence ready',
      'Problem',
      'Prepared (UTC, ISO 8601)',
      'Opened (UTC, ISO 8601)',
      'Finalized (UTC, ISO 8601)',
    ]);
    expect(rows.map((row) => row['External reference']).sort()).toEqual(
      ['\'=HYPERLINK("http://evil.example","NDA")', 'RH-2026-0142', 'RH-2026-0143'].sort(),
    );
    const done = rows.find((row) => row['External reference'] === 'RH-2026-0143');
    expect(done).toMatchObject({
      Batch: 'Report batch',
      State: 'Completed',
      'Evidence ready': 'yes',
      Recipients:
        '1. Jürgen Müller (juergen.mueller@example.com) – Salarié, signer, this document; ' +
        '2. Hélène Dubois-Marchand (helene.dubois-marchand@example.com) – Directrice générale, signer, this document',
    });
    expect(done?.['Finalized (UTC, ISO 8601)']).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(done?.[`Finalized (${zone})`]).toMatch(/^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}/);
    expect(rows.every((row) => /^[^=+\-@]/.test(row['External reference'] ?? ''))).toBe(true);
  },
};

/**
 * Sends a one-document batch (reference CHK-1) whose creation is made at the service but whose
 * answer is lost, and whose retry's key the service then refuses: the document ends as "needs
 * your check". The connection must be saved already. Returns the document's row.
 */
export async function sendIntoNeedsCheck(app: App, batchName: string): Promise<Locator> {
  const { page, sim, files } = app;
  cpSync(join(SAMPLES, 'pdfs'), files.file('pdfs'), { recursive: true });
  const manifest = files.file('one contract.csv');
  writeFileSync(
    manifest,
    [
      'document;external_reference;participant_type;role;name;email',
      'pdfs/Avenant au contrat - Jürgen Müller.pdf;CHK-1;signer;Gérant;Jürgen Müller;juergen.mueller@example.com',
    ].join('\n'),
  );
  await createBatch(page, batchName);
  await app.answerNextDialog(manifest);
  await page.getByRole('button', { name: 'Import manifest…' }).click();
  await page.getByRole('button', { name: 'Import 1 document' }).click();
  const table = documentsTable(page, batchName);
  await table.getByRole('rowheader', { name: 'CHK-1' }).waitFor();

  // The service creates the request but the answer is lost; the retry's key is then refused.
  sim.faults.enqueue(
    { kind: 'dropAfter', pathPattern: '^/api/v1/signing-requests$' },
    { kind: 'reject', pathPattern: '^/api/v1/signing-requests$', status: 422, code: 'upload_expired' },
  );
  await sendBatch(page);
  const row = table.getByRole('row', { name: /CHK-1/ });
  await row.getByText('Needs your check').waitFor({ timeout: 60_000 });
  return row;
}

/** Where the page's focus is: the focused element's text and the reference of its table row, if any. */
async function focusedElement(page: Page): Promise<{ text: string; rowReference: string | undefined }> {
  return page.evaluate(() => {
    const active = document.activeElement;
    const row = active?.closest('tr');
    return { text: active?.textContent?.trim() ?? '', rowReference: row?.dataset.reference };
  });
}

/** Waits until `target` has the focus, or fails with where the focus is instead. */
async function expectFocusOn(target: Locator, timeoutMs = 5_000): Promise<void> {
  await vi.waitFor(
    async () => {
      if (await target.evaluate((element) => element === document.activeElement)) return;
      throw new Error(
        `the focus is not on the expected element: ${JSON.stringify(await focusedElement(target.page()))}`,
      );
    },
    { timeout: timeoutMs, interval: 50 },
  );
}

/**
 * (f) A creation whose answer was lost and whose key the service then refused: the row says
 * "Needs your check" and the banner counts it; the dialog gives the facts, offers linking and,
 * behind a confirmation that takes the focus to "No", sending anew; a wrong request id is refused
 * inside the dialog; while the right one is checked the dialog says so and cannot be closed; once
 * linked, a notice says so, the focus is on the document's state, and it goes on to "waiting for
 * signatures", sent once.
 */
export const needsYourCheck: Journey = {
  name: 'a document that needs your check: the facts in plain words, a wrong id refused in the dialog, the existing request linked, nothing sent twice',
  timeoutMs: 120_000,
  async run(app) {
    const { page, sim } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });
    const row = await sendIntoNeedsCheck(app, 'Checked batch');
    // The row stays short: its state and the button; the facts are in the dialog.
    expect(await row.getByText(/may already exist at the service/).count()).toBe(0);
    const banner = page.getByRole('alert').filter({ hasText: /1 document needs your check/ });
    await banner.waitFor();
    expect(sim.state.countByExternalReference()).toEqual({ 'CHK-1': 1 });
    // The banner shows only the documents that need a check; back to all of them.
    await banner.getByRole('button', { name: 'Show only this document' }).click();
    const filters = page.getByRole('group', { name: 'Show' });
    await filters.getByRole('radio', { name: 'Needs your check 1', checked: true }).waitFor();
    await filters.getByRole('radio', { name: /^All / }).check();

    const trigger = row.getByRole('button', { name: 'Check and resolve… CHK-1' });
    await trigger.click();
    const dialog = page.getByRole('dialog', { name: 'CHK-1 needs your check' });
    await dialog.waitFor();
    expect(await seriousViolations(page, 'check dialog')).toEqual([]);
    const description = await dialog.evaluate(
      (element) => document.getElementById(element.getAttribute('aria-describedby') ?? '')?.textContent,
    );
    expect(description).toMatch(/A signing request for CHK-1 may already exist at the service/);
    const field = dialog.getByLabel("Id of CHK-1's request at the service");
    expect(await field.getAttribute('placeholder')).toBeNull();

    // Sending anew asks again; the focus goes to the safe answer, and back after it.
    const sendNew = dialog.getByRole('button', { name: 'Send as a new request…' });
    await sendNew.click();
    const confirmation = dialog.getByRole('group', { name: 'Send CHK-1 as a new request?' });
    await confirmation
      .getByText('The app cannot cancel anything at the service.', { exact: false })
      .waitFor();
    await confirmation.getByText('its recipients would get two requests to sign', { exact: false }).waitFor();
    await expectFocusOn(confirmation.getByRole('button', { name: 'No', exact: true }));
    await page.keyboard.press('Enter');
    await confirmation.waitFor({ state: 'detached' });
    await expectFocusOn(sendNew);

    await field.fill('sr_not_this_one');
    await dialog.getByRole('button', { name: 'Link this request' }).click();
    const refusal = dialog.getByRole('alert').filter({ hasText: /has no signing request sr_not_this_one/ });
    await refusal.waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    await app.screenshot('needs-check');
    // Editing the id clears its error.
    await field.fill('sr_');
    await refusal.waitFor({ state: 'detached' });
    expect(await field.getAttribute('aria-invalid')).toBeNull();

    // The request's address, as copied from the service, links it by the id in its path.
    const [request] = sim.state.requests();
    await field.fill(`${sim.baseUrl}/api/v1/signing-requests/${request!.id}`);
    await dialog.getByText(`Id read from this address: ${request!.id}`).waitFor();
    // A slow read of the request: the dialog says what it waits for, and stays open meanwhile.
    sim.faults.set({ latencyMs: 1_500, pathPattern: '^/api/v1/signing-requests/' });
    await dialog.getByRole('button', { name: 'Link this request' }).click();
    const checking = dialog
      .getByRole('status')
      .filter({ hasText: `Checking ${request!.id} at the service…` });
    await checking.waitFor();
    expect(await dialog.getByRole('button', { name: 'Close' }).getAttribute('aria-disabled')).toBe('true');
    // Escape while main checks: once the page has handled the key and drawn a frame since, the
    // dialog is still open, still checking (the service has not answered: nothing else closed it).
    await page.keyboard.press('Escape');
    await page.evaluate(() => new Promise((drawn) => requestAnimationFrame(drawn)));
    expect(await dialog.isVisible()).toBe(true);
    expect(await checking.count(), 'still checking when the dialog was looked at').toBe(1);
    await dialog.waitFor({ state: 'hidden', timeout: 30_000 });
    sim.faults.set({ latencyMs: 0, pathPattern: undefined });

    await page
      .getByRole('status')
      .filter({ hasText: `${request!.id} is linked to CHK-1; sending continues with it.` })
      .waitFor();
    // The focus is on the document's state, not lost with the dialog.
    await expectFocusOn(row.locator('.state'));
    await row.getByText('Waiting for signatures').waitFor({ timeout: 30_000 });
    await expectFocusOn(row.getByText('Waiting for signatures'));
    await banner.waitFor({ state: 'detached' });
    expect(sim.state.countByExternalReference()).toEqual({ 'CHK-1': 1 });
    expect(sim.state.requests()[0]).toMatchObject({ id: request!.id, status: 'prepared' });
    expect(sim.state.violations()).toEqual([]);
  },
};

/** (h) Office desks keep a sandbox and a production connection: each batch is tracked at its own service. */
export const twoConnections: Journey = {
  name: 'a batch sent with each of two connections, the active one switched back and forth: every request is seen completed at its own service, none is read at the other, none is gone',
  timeoutMs: 120_000,
  async run(app) {
    const { page, sim: sandbox } = app;
    const production = await startSimulator({ seed: 77 });
    try {
      const sandboxClient = registerJourneyClient(app);
      const productionClient = {
        clientId: 'journey-production',
        clientSecret: `journey-secret-${randomUUID()}`,
      };
      production.addClient({ ...productionClient, scopes: [...ALL_SCOPES] });
      await saveConnection(page, { name: 'Sandbox', baseUrl: sandbox.baseUrl, ...sandboxClient });
      await saveConnection(page, { name: 'Production', baseUrl: production.baseUrl, ...productionClient });
      const useConnection = async (name: string) => {
        await page.getByRole('button', { name: 'Connections' }).click();
        // The radio follows main's answer, so it is clicked, then seen checked.
        await page.getByRole('radio', { name: `Use ${name}` }).click();
        await page.getByRole('radio', { name: `Use ${name}`, checked: true }).waitFor();
      };

      const sendSample = async (batchName: string) => {
        await createBatch(page, batchName);
        const table = await importSampleManifest(app, batchName);
        await sendBatch(page);
        await page.getByText('3 of 3 documents sent').waitFor({ timeout: 20_000 });
        return table;
      };
      await useConnection('Sandbox');
      await sendSample('Sandbox batch');
      await useConnection('Production');
      await sendSample('Production batch');
      await useConnection('Sandbox');
      await useConnection('Production');
      const held = Object.fromEntries(SAMPLE_REFERENCES.map((reference) => [reference, 1]));
      expect(sandbox.state.countByExternalReference()).toEqual(held);
      expect(production.state.countByExternalReference()).toEqual(held);

      // Every signer signs at each service; each batch, opened from the list, is seen completed.
      for (const service of [sandbox, production]) {
        for (const request of service.state.requests()) service.complete(request.id);
        service.clock.advance(60_000);
      }
      for (const batchName of ['Sandbox batch', 'Production batch']) {
        await page.getByRole('button', { name: 'Batches', exact: true }).click();
        await page.getByRole('button', { name: batchName, exact: true }).click();
        await page.getByRole('button', { name: 'Refresh statuses now' }).click();
        const table = documentsTable(page, batchName);
        for (const reference of SAMPLE_REFERENCES)
          await table
            .getByRole('row', { name: new RegExp(reference) })
            .getByText('Completed — evidence ready')
            .waitFor({ timeout: 40_000 });
        expect(await table.getByText('No longer at the service').count()).toBe(0);
      }
      for (const service of [sandbox, production]) {
        const own = new Set(service.state.requests().map((request) => request.id));
        for (const call of service.state
          .calls()
          .filter((candidate) => candidate.operation === 'readSigningRequest'))
          expect(own.has(call.path.split('/').at(-1) ?? ''), call.path).toBe(true);
        expect(service.state.violations()).toEqual([]);
      }
    } finally {
      await production.close();
    }
  },
};

/** Every journey, in the order they run. */
export const JOURNEYS: readonly Journey[] = [
  prepareByHand,
  manifestWithErrors,
  sendWithFaults,
  offlineAndBack,
  fullFlow,
  exportReport,
  needsYourCheck,
  twoConnections,
];
