/** The journeys in Chromium through the browser host, against the simulator over loopback. */
import { afterEach, describe, expect, it } from 'vitest';
import { launchApp, type App } from './app-harness';
import { createBatch, eventually, importSampleManifest, JOURNEYS, sendBatch } from './journeys';

let app: App | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  expect(errors, 'the app page logged errors').toEqual([]);
});

describe('the desk, end to end in Chromium through the browser host', () => {
  for (const journey of JOURNEYS) {
    it(
      journey.name,
      async () => {
        app = await launchApp({ host: 'browser' });
        await journey.run(app);
      },
      journey.timeoutMs,
    );
  }

  it('lets a newcomer try the whole flow with the demo connection: no account, nothing to configure', async () => {
    app = await launchApp({ host: 'browser', demo: true });
    const { page } = app;
    await page.getByRole('button', { name: 'Connections' }).click();
    await page.getByText('No connection yet. Add the one your administrator gave you').waitFor();
    await page.getByRole('button', { name: 'Use the demo connection' }).click();
    await page.getByText('The demo connection to the built-in simulator is ready.').waitFor();
    const demoRow = page.getByRole('row', { name: /Demo \(built-in simulator\)/ });
    await demoRow.getByRole('button', { name: 'Test connection' }).click();
    await demoRow.getByRole('status').filter({ hasText: 'Connected' }).waitFor();

    await createBatch(page, 'First try');
    const table = await importSampleManifest(app, 'First try');
    await sendBatch(page);
    await page.getByText('3 of 3 documents sent').waitFor({ timeout: 30_000 });
    await table.getByRole('button', { name: 'Open ceremony for NDA-2026-017' }).click();
    await eventually(() => app!.ceremonies.length === 1);
    const widget = app.ceremonies[0]!;
    await widget.getByRole('button', { name: 'Sign as Bérénice Château' }).click();
    await widget.getByText('All signatures are collected. You can close this window.').waitFor();
    await widget.close();
    await table
      .getByRole('row', { name: /NDA-2026-017/ })
      .getByText('Completed — evidence ready')
      .waitFor({ timeout: 30_000 });
    // Everything went to the built-in simulator, not to the test's own.
    expect(app.sim.state.calls()).toEqual([]);
  }, 120_000);
});
