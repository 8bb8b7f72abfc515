import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_CLIENT } from '../simulator/simulator';
import { launchApp, type App } from './app-harness';

const SAMPLE_MANIFEST = join(import.meta.dirname, '..', '..', 'samples', 'manifest.csv');
let app: App | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

describe('the desk, end to end in Chromium through the browser host', () => {
  it('saves a profile, imports the sample manifest, sends it, signs in the widget and sees the request complete', async () => {
    app = await launchApp();
    const { page, sim } = app;
    const profileName = `Simulator ${Date.now()}`;

    // Connections: save a profile (secret to the keychain) and test it.
    await page.getByRole('button', { name: 'Connections' }).click();
    await page.getByLabel('Name').fill(profileName);
    await page.getByLabel('Service address (base URL)').fill(sim.baseUrl);
    await page.getByLabel('Client id').fill(DEMO_CLIENT.clientId);
    await page.getByLabel('Client secret').fill(DEMO_CLIENT.clientSecret);
    await page.getByRole('button', { name: 'Save connection' }).click();
    const row = page.getByRole('row', { name: new RegExp(profileName) });
    await row.getByText('Saved in keychain').waitFor();
    await row.getByRole('button', { name: 'Test connection' }).click();
    await row.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
    expect(await page.getByLabel('Client secret').inputValue()).toBe('');
    expect(await page.content()).not.toContain(DEMO_CLIENT.clientSecret);

    // Batches: create one and import the sample manifest through its preview.
    await page.getByRole('button', { name: 'Batches', exact: true }).click();
    await page.getByLabel('New batch name').fill('Monday contracts');
    await page.getByRole('button', { name: 'Create batch' }).click();
    app.answerNextDialog(SAMPLE_MANIFEST);
    await page.getByRole('button', { name: 'Import manifest…' }).click();
    await page.getByText('3 document(s), 6 recipient(s). Nothing has been sent.').waitFor();
    await page.getByRole('button', { name: 'Import 3 document(s)' }).click();
    await page.getByRole('rowheader', { name: 'NDA-2026-017' }).waitFor();
    expect(await page.getByText('Accord_de_confidentialite_-_Berenice_Chateau.pdf').count()).toBe(1);

    // Send: every document reaches "waiting for signatures", exactly once at the service.
    await page.getByRole('button', { name: 'Send batch' }).click();
    await page.getByText('3 of 3 document(s) sent').waitFor({ timeout: 20_000 });
    expect(sim.state.countByExternalReference()).toEqual({
      'RH-2026-0142': 1,
      'NDA-2026-017': 1,
      'RH-2026-0143': 1,
    });

    // Ceremony: open it, sign as the only signer in the widget page, close it.
    await page.getByRole('button', { name: 'Open ceremony for NDA-2026-017' }).click();
    await expectPoll(() => app!.ceremonies.length === 1);
    const widget = app.ceremonies[0]!;
    await widget.getByRole('button', { name: 'Sign as Bérénice Château' }).click();
    await widget.getByText('All signatures are collected. You can close this window.').waitFor();
    await widget.close();

    // Tracking: the poller (quick after a ceremony) sees completion and the evidence.
    const ndaRow = page.getByRole('row', { name: /NDA-2026-017/ });
    await ndaRow.getByText('Completed — evidence ready').waitFor({ timeout: 30_000 });
    await page.getByText('NDA-2026-017 is fully signed; its evidence is ready.').waitFor();
    expect(await ndaRow.getByRole('button', { name: /Open ceremony/ }).count()).toBe(0);
    const otherRow = page.getByRole('row', { name: /RH-2026-0142/ });
    expect(await otherRow.getByText('Waiting for signatures').count()).toBe(1);
  }, 120_000);
});

/** Waits until `condition` holds (polling), or fails after `timeoutMs`. */
async function expectPoll(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
