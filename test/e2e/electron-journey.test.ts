/**
 * The real-Electron suite: the app launched with Playwright's `_electron.launch`. It runs
 * wherever the Electron runtime is installed; on machines that cannot download it (no access
 * to its release host) it is skipped, and says so — the one skip our standards allow.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { _electron as electron } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, DEMO_CLIENT, type Simulator } from '../simulator/simulator';
import { makeTempFolder, type TempFolder } from '../support/pdf-files';

const ROOT = join(import.meta.dirname, '..', '..');

function electronBinary(): string | undefined {
  const pathFile = join(ROOT, 'node_modules', 'electron', 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join(ROOT, 'node_modules', 'electron', 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

const binary = electronBinary();
if (!binary) {
  console.log(
    'Skipping the real-Electron journey: the Electron runtime is not installed (it is downloaded from its release host, which this machine cannot reach). The same journey runs in the browser host.',
  );
}

describe.skipIf(!binary)('the desk in real Electron', () => {
  let sim: Simulator;
  let files: TempFolder;

  beforeAll(async () => {
    sim = await startSimulator({ evidenceDelayMs: 300 });
    files = makeTempFolder('desk-electron-');
  });
  afterAll(async () => {
    await sim?.close();
    files?.remove();
  });

  it('opens a hardened window with the named bridge, saves a connection and creates a batch', async () => {
    const app = await electron.launch({
      executablePath: binary,
      args: [join(ROOT, 'dist', 'main', 'index.js'), `--user-data-dir=${files.file('user-data')}`],
      env: { ...process.env, ELECTRON_ENABLE_SECURITY_WARNINGS: 'true' },
    });
    const warnings: string[] = [];
    try {
      const window = await app.firstWindow();
      window.on('console', (message) => {
        if (message.text().includes('Electron Security Warning') || message.type() === 'error')
          warnings.push(message.text());
      });
      const info = await window.evaluate(() =>
        (window as unknown as { desk: { app: { info(): Promise<unknown> } } }).desk.app.info(),
      );
      expect(info).toMatchObject({ ok: true, value: { host: 'electron' } });
      expect(await window.evaluate(() => typeof (window as unknown as { require?: unknown }).require)).toBe(
        'undefined',
      );
      await window.getByRole('button', { name: 'Connections' }).click();
      await window.getByLabel('Name').fill('Simulator');
      await window.getByLabel('Service address (base URL)').fill(sim.baseUrl);
      await window.getByLabel('Client id').fill(DEMO_CLIENT.clientId);
      await window.getByLabel('Client secret').fill(DEMO_CLIENT.clientSecret);
      await window.getByRole('button', { name: 'Save connection' }).click();
      await window.getByText('Saved in keychain').waitFor();
      await window.getByRole('button', { name: 'Batches', exact: true }).click();
      await window.getByLabel('New batch name').fill('Electron batch');
      await window.getByRole('button', { name: 'Create batch' }).click();
      await window.getByRole('heading', { name: 'Electron batch' }).waitFor();
    } finally {
      await app.close();
    }
    expect(warnings).toEqual([]);
  }, 120_000);
});
