/**
 * The same journeys in real Electron, launched with Playwright's `_electron.launch`. They run
 * wherever the Electron runtime is installed; on machines that cannot download it (no access to
 * its release host) they are skipped, and say so — the one skip our standards allow.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { electronBinary, launchApp, type App } from './app-harness';
import { JOURNEYS } from './journeys';

const binary = electronBinary();
if (!binary) {
  console.log(
    'Skipping the real-Electron journeys: the Electron runtime is not installed (`npm run setup` downloads it from its release host when that host can be reached). The same journeys run in the browser host.',
  );
}

let app: App | undefined;

afterEach(async () => {
  const errors = app?.consoleErrors ?? [];
  await app?.close();
  app = undefined;
  expect(errors, 'the app window logged errors or Electron security warnings').toEqual([]);
});

describe.skipIf(!binary)('the desk, end to end in real Electron', () => {
  it('opens a hardened window with the named bridge and no Node in the page', async () => {
    app = await launchApp({ host: 'electron' });
    const info = await app.page.evaluate(() =>
      (window as unknown as { desk: { app: { info(): Promise<unknown> } } }).desk.app.info(),
    );
    expect(info).toMatchObject({ ok: true, value: { host: 'electron' } });
    expect(await app.page.evaluate(() => typeof (window as unknown as { require?: unknown }).require)).toBe(
      'undefined',
    );
    expect(app.page.url()).toBe('app://desk/index.html');
  }, 60_000);

  for (const journey of JOURNEYS) {
    it(
      journey.name,
      async () => {
        app = await launchApp({ host: 'electron' });
        await journey.run(app);
      },
      journey.timeoutMs,
    );
  }
});
