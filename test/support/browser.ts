/**
 * Debian's Chromium for the end-to-end tests, driven by playwright-core (which downloads no
 * browser). As root Chromium needs --no-sandbox; the other flags stop everything it would
 * otherwise fetch in the background (updates, sync, field trials), so tests stay on loopback.
 */
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_TEST_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Launches headless Chromium from /usr/bin/chromium; close it in the test file's afterAll. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_TEST_ARGS] });
}
