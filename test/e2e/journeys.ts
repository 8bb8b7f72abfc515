/**
 * The end-to-end journeys, written once against the `App` wrapper and run on both hosts: the
 * browser host in Chromium (always) and real Electron (when its runtime is installed).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { ALL_SCOPES } from '../simulator/types';
import { expectNoSecretLeft, type App } from './app-harness';

export const SAMPLE_MANIFEST = join(import.meta.dirname, '..', '..', 'samples', 'manifest.csv');

export interface Journey {
  readonly name: string;
  readonly timeoutMs: number;
  run(app: App): Promise<void>;
}

/** Waits until `condition` holds (polling), or fails after `timeoutMs`. */
export async function eventually(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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
  expect(await page.getByLabel('Client secret').inputValue()).toBe('');
}

export const fullFlow: Journey = {
  name: 'saves a profile, imports the sample manifest, sends it, signs in the widget and sees the request complete; no secret is left anywhere',
  timeoutMs: 120_000,
  async run(app) {
    const { page, sim } = app;
    const client = registerJourneyClient(app);
    await saveConnection(page, { name: 'Office', baseUrl: sim.baseUrl, ...client });

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
    await page.getByRole('button', { name: 'Send batch' }).click();
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
    await page.getByText('NDA-2026-017 is fully signed; its evidence is ready.').waitFor();
    expect(await ndaRow.getByRole('button', { name: /Open ceremony/ }).count()).toBe(0);
    const otherRow = table.getByRole('row', { name: /RH-2026-0142/ });
    expect(await otherRow.getByText('Waiting for signatures').count()).toBe(1);

    // Nothing secret was logged, crossed the bridge, reached the page or was written to disk.
    await expectNoSecretLeft(app, [client.clientSecret, 'sim_at_', widgetUrl]);
  },
};

/** Every journey, in the order they run. */
export const JOURNEYS: readonly Journey[] = [fullFlow];
