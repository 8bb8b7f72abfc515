import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CeremonyRequest } from '../../../main/app/ports';
import {
  createChromiumCeremonyOpener,
  OPEN_GRACE_MS,
} from '../../../main/browser-host/chromium-ceremony-opener';
import { startBrowserHost, type BrowserHost } from '../../../main/browser-host/host-server';
import type { WidgetSessionHandle } from '../../../main/client/service-client';
import type { ServiceResult } from '../../../main/domain/service-failure';
import { silentLogger } from '../../../main/base/log';
import { Secret } from '../../../main/base/secret';
import { speaking } from '../../../main/base/words';
import { createTranslator } from '../../../shared/i18n/translator';
import { bundleBridgeScript, startTestHost, writeRendererFixture, type TestHost } from './host-fixtures';

/** What the stand-in browser saw: its arguments and the answer to the link it was given. */
interface BrowserReport {
  readonly args: string[];
  readonly startPage: string;
  readonly link: string;
  readonly status: number;
  readonly location: string | null;
  readonly body: string;
}

let testHost: TestHost;
let host: BrowserHost;
let fakeCount = 0;

beforeAll(async () => {
  testHost = await startTestHost();
  host = await startBrowserHost({
    handlers: testHost.launched.service.handlers,
    logger: silentLogger,
    rendererDir: writeRendererFixture(testHost.folder.file('opener-renderer')),
    bridgeScriptPath: await bundleBridgeScript(testHost.folder.path),
  });
});

afterAll(async () => {
  await host?.close();
  await testHost?.close();
});

/**
 * A stand-in for Chromium: a Node script that does what the browser does with `--app=` (reads
 * the start page, follows its link once, without following the redirect) and reports it.
 * With `stay`, it keeps running like an open window until it gets SIGTERM.
 */
function fakeBrowser(stay: boolean): { executable: string; report: () => Promise<BrowserReport> } {
  fakeCount += 1;
  const executable = testHost.folder.file(`fake-browser-${fakeCount}`);
  const reportFile = testHost.folder.file(`fake-browser-${fakeCount}.json`);
  writeFileSync(
    executable,
    `#!${process.execPath}
const { readFileSync, writeFileSync } = require('node:fs');
const { fileURLToPath } = require('node:url');
(async () => {
  const args = process.argv.slice(2);
  const app = args.find((arg) => arg.startsWith('--app='));
  const startPage = readFileSync(fileURLToPath(app.slice('--app='.length)), 'utf8');
  const link = /url=([^"]+)"/.exec(startPage)[1].replace(/&amp;/g, '&');
  const response = await fetch(link, { redirect: 'manual' });
  const report = { args, startPage, link, status: response.status, location: response.headers.get('location'), body: await response.text() };
  writeFileSync(${JSON.stringify(reportFile)}, JSON.stringify(report));
  if (${stay}) setInterval(() => {}, 1000);
})();
`,
  );
  chmodSync(executable, 0o700);
  return {
    executable,
    async report() {
      for (let waited = 0; waited < 10_000; waited += 50) {
        // The stand-in may still be writing it: read it once it parses.
        if (existsSync(reportFile)) {
          try {
            return JSON.parse(readFileSync(reportFile, 'utf8')) as BrowserReport;
          } catch {
            // not complete yet
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('the stand-in browser reported nothing');
    },
  };
}

function session(url: string, expiresAt: number): WidgetSessionHandle {
  return { requestId: 'req-1', widgetUrl: new Secret(url), expiresInSeconds: 600, expiresAt };
}

interface RecordedRequest extends CeremonyRequest {
  readonly closed: () => number;
  readonly renewals: () => number;
  readonly whenClosed: Promise<void>;
}

function ceremonyRequest(
  handle: WidgetSessionHandle,
  renewal: () => ServiceResult<WidgetSessionHandle>,
  key = 'batch-1/doc-1',
): RecordedRequest {
  let closed = 0;
  let renewals = 0;
  let markClosed: () => void = () => undefined;
  const whenClosed = new Promise<void>((resolve) => (markClosed = resolve));
  return {
    key,
    title: 'Signing ceremony — REF-1',
    session: handle,
    renew: async () => {
      renewals += 1;
      return renewal();
    },
    onClosed: () => {
      closed += 1;
      markClosed();
    },
    closed: () => closed,
    renewals: () => renewals,
    whenClosed,
  };
}

const noRenewal = (): ServiceResult<WidgetSessionHandle> => {
  throw new Error('renew() must not be called for a session that has not expired');
};

describe('ceremonies in Chromium app windows', () => {
  it('points the window at a one-time link, never at the widget URL, and calls onClosed when it exits', async () => {
    const widgetUrl = 'http://127.0.0.1:9/widget/WIDGET-TOKEN-SECRET-1';
    const browser = fakeBrowser(false);
    const opener = createChromiumCeremonyOpener({
      handoff: host.handoff,
      logger: silentLogger,
      executable: browser.executable,
    });
    const request = ceremonyRequest(session(widgetUrl, Date.now() + 600_000), noRenewal);
    await opener.open(request);
    const report = await browser.report();

    expect(report.args.join(' ')).not.toContain('WIDGET-TOKEN-SECRET-1');
    expect(report.args.join(' ')).not.toContain(report.link);
    expect(report.args).toEqual(expect.arrayContaining(['--incognito', '--disable-background-networking']));
    expect(report.link).toMatch(new RegExp(`^${host.origin}/handoff/[A-Za-z0-9_-]{43}$`));
    expect(report.startPage).not.toContain('WIDGET-TOKEN-SECRET-1');
    expect(report.status).toBe(302);
    expect(report.location).toBe(widgetUrl);

    // The link works once.
    const again = await fetch(report.link, { redirect: 'manual' });
    expect(again.status).toBe(410);

    await request.whenClosed;
    expect(request.closed()).toBe(1);
    const profileDir = report.args
      .find((arg) => arg.startsWith('--user-data-dir='))
      ?.slice('--user-data-dir='.length);
    expect(profileDir && existsSync(dirname(profileDir))).toBe(false);
  });

  it('renews an expired session before anything is loaded', async () => {
    const browser = fakeBrowser(false);
    const opener = createChromiumCeremonyOpener({
      handoff: host.handoff,
      logger: silentLogger,
      executable: browser.executable,
    });
    const renewed = session('http://127.0.0.1:9/widget/RENEWED', Date.now() + 600_000);
    const request = ceremonyRequest(session('http://127.0.0.1:9/widget/EXPIRED', Date.now() - 1), () => ({
      ok: true,
      value: renewed,
    }));
    await opener.open(request);
    const report = await browser.report();
    expect(report.location).toBe('http://127.0.0.1:9/widget/RENEWED');
    expect(request.renewals()).toBe(1);
    await request.whenClosed;
  });

  it('shows why when an expired session cannot be renewed', async () => {
    const browser = fakeBrowser(false);
    const opener = createChromiumCeremonyOpener({
      handoff: host.handoff,
      logger: silentLogger,
      executable: browser.executable,
    });
    const request = ceremonyRequest(session('http://127.0.0.1:9/widget/EXPIRED', Date.now() - 1), () => ({
      ok: false,
      error: {
        operation: 'createWidgetSession',
        code: 'network_unreachable',
        message: 'The signing service cannot be reached.',
        retryable: true,
        outcomeUnknown: false,
        attempts: 1,
      },
    }));
    await opener.open(request);
    const report = await browser.report();
    expect(report.status).toBe(502);
    expect(report.location).toBeNull();
    expect(report.body).toContain('The signing service cannot be reached.');
    expect(report.body).not.toContain('EXPIRED');
    await request.whenClosed;
  });

  it('speaks the language of its opening: the start page’s title, and why it cannot be renewed when the link is followed', async () => {
    const browser = fakeBrowser(false);
    const opener = createChromiumCeremonyOpener({
      handoff: host.handoff,
      logger: silentLogger,
      executable: browser.executable,
    });
    const request = ceremonyRequest(session('http://127.0.0.1:9/widget/EXPIRED', Date.now() - 1), () => ({
      ok: false,
      error: {
        operation: 'createWidgetSession',
        code: 'network_unreachable',
        message: 'The signing service cannot be reached.',
        retryable: true,
        outcomeUnknown: false,
        attempts: 1,
      },
    }));
    await speaking(createTranslator('de').t, () => opener.open(request));
    const report = await browser.report();
    expect(report.startPage).toContain('<title>Wird geöffnet…</title>');
    expect(report.status).toBe(502);
    expect(report.body).toBe(
      'Die Zeremonie konnte nicht erneut geöffnet werden: Der Signaturdienst ist nicht erreichbar. Prüfen Sie das Netzwerk oder VPN. Das Senden pausiert und wird von selbst fortgesetzt, sobald der Dienst zurück ist.\n',
    );
    await request.whenClosed;
  });

  it('replaces the window when the same ceremony is opened again, and closes all on request', async () => {
    const browser = fakeBrowser(true);
    const opener = createChromiumCeremonyOpener({
      handoff: host.handoff,
      logger: silentLogger,
      executable: browser.executable,
    });
    const handle = () => session('http://127.0.0.1:9/widget/AGAIN', Date.now() + 600_000);
    const first = ceremonyRequest(handle(), noRenewal);
    const second = ceremonyRequest(handle(), noRenewal);
    await opener.open(first);
    await browser.report();
    await opener.open(second);
    expect(first.closed()).toBe(1);
    expect(second.closed()).toBe(0);
    await opener.closeAll();
    await second.whenClosed;
    expect(second.closed()).toBe(1);
    expect(first.closed()).toBe(1);
  });

  it('fails with browser_missing when there is no browser to run', async () => {
    const opener = createChromiumCeremonyOpener({
      handoff: host.handoff,
      logger: silentLogger,
      executable: testHost.folder.file('no-such-browser'),
    });
    await expect(
      opener.open(ceremonyRequest(session('http://127.0.0.1:9/widget/X', Date.now() + 600_000), noRenewal)),
    ).rejects.toMatchObject({ code: 'browser_missing' });
  });
});

describe('a ceremony window that cannot open says why', () => {
  /** A clock nobody moves: a grace on it never ends. */
  const stillClock = new VirtualClock();

  /** A browser that exits at once with `code`, before it opens anything. */
  function failingBrowser(code: number): string {
    fakeCount += 1;
    const executable = testHost.folder.file(`failing-browser-${fakeCount}`);
    writeFileSync(executable, `#!/bin/sh\nexit ${code}\n`);
    chmodSync(executable, 0o700);
    return executable;
  }

  it('a browser that starts but never follows its link counts as open once the grace has passed, not before', async () => {
    fakeCount += 1;
    const executable = testHost.folder.file(`silent-browser-${fakeCount}`);
    // Starts, opens nothing, never exits by itself.
    writeFileSync(executable, '#!/bin/sh\nexec sleep 600\n');
    chmodSync(executable, 0o700);
    const clock = new VirtualClock();
    const opener = createChromiumCeremonyOpener({
      handoff: host.handoff,
      logger: silentLogger,
      executable,
      hasDisplay: () => true,
      clock,
    });
    const request = ceremonyRequest(session('http://127.0.0.1:9/widget/X', clock.now() + 600_000), noRenewal);
    let opened = false;
    const opening = opener.open(request).then(() => (opened = true));
    try {
      // The grace starts once the window's process is running.
      await vi.waitFor(() => expect(clock.pendingTimers).toBeGreaterThan(0), { timeout: 10_000 });
      // The window's process is starting (real work the clock waits for): time passes over it on purpose.
      await clock.advanceWhileCallsHang(OPEN_GRACE_MS - 1);
      expect(opened).toBe(false);
      await clock.advanceWhileCallsHang(1);
      await opening;
      expect(opened).toBe(true);
    } finally {
      await opening.catch(() => undefined);
      await opener.closeAll();
    }
  });

  it('a browser that stops at once: open fails with its exit code, and the window is not said to be closed', async () => {
    const opener = createChromiumCeremonyOpener({
      handoff: host.handoff,
      logger: silentLogger,
      executable: failingBrowser(1),
      hasDisplay: () => true,
      // Time stands still: the failure is seen before any of the open grace has passed.
      clock: stillClock,
    });
    const request = ceremonyRequest(
      session('http://127.0.0.1:9/widget/X', stillClock.now() + 600_000),
      noRenewal,
    );
    await expect(opener.open(request)).rejects.toMatchObject({
      code: 'ceremony_window_failed',
      problem: { kind: 'exited', code: 1 },
    });
    expect(stillClock.monotonic()).toBe(0);
    expect(request.closed()).toBe(0);
  });

  it("Debian's Chromium with no display: open fails at once, saying there is no display", async () => {
    // Chromium without DISPLAY nor WAYLAND_DISPLAY exits with code 1 ("The platform failed to initialize").
    const env = { DISPLAY: process.env.DISPLAY, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY };
    delete process.env.DISPLAY;
    delete process.env.WAYLAND_DISPLAY;
    try {
      const opener = createChromiumCeremonyOpener({
        handoff: host.handoff,
        logger: silentLogger,
        clock: stillClock,
      });
      const request = ceremonyRequest(
        session('http://127.0.0.1:9/widget/X', stillClock.now() + 600_000),
        noRenewal,
      );
      // Time stands still: the failure is seen before any of the open grace has passed.
      await expect(opener.open(request)).rejects.toMatchObject({
        code: 'ceremony_window_failed',
        problem: { kind: 'no_display' },
      });
      expect(stillClock.monotonic()).toBe(0);
    } finally {
      for (const [name, value] of Object.entries(env)) if (value !== undefined) process.env[name] = value;
    }
  });
});
