import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eventually } from '../../support/outcomes';
import { DeskError } from '../../../main/app/desk-error';
import type { CeremonyRequest } from '../../../main/app/ports';
import type { WidgetSessionHandle } from '../../../main/client/service-client';
import type { ServiceResult } from '../../../main/domain/service-failure';
import { Secret } from '../../../main/base/secret';
import { speaking } from '../../../main/base/words';
import { createTranslator } from '../../../shared/i18n/translator';
import { createCeremonyWindows, widgetOriginOf } from '../../../main/shell/ceremony-window';
import { hardenAllWebContents } from '../../../main/shell/security';
import {
  app,
  asElectron,
  FakeBrowserWindow,
  FakeSession,
  FakeWebContents,
  fakeEvent,
  resetFakeElectron,
  shell,
} from './fake-electron';
import { captureLogger } from './log-capture';

vi.mock('electron', () => import('./fake-electron'));

const NOW = Date.parse('2026-03-02T09:00:00Z');
const LIVE_URL = 'https://widget.example.com/ceremony/s/LIVE-TOKEN-8f3a?sig=abc';
const EXPIRED_URL = 'https://widget.example.com/ceremony/s/EXPIRED-TOKEN-11aa?sig=old';
const FRESH_URL = 'https://widget.example.com/ceremony/s/FRESH-TOKEN-77bb?sig=new';

function handle(url: string, expiresAt: number): WidgetSessionHandle {
  return { requestId: 'req-1', widgetUrl: new Secret(url), expiresInSeconds: 600, expiresAt };
}

interface Scenario {
  request: CeremonyRequest;
  renew: ReturnType<typeof vi.fn<() => Promise<ServiceResult<WidgetSessionHandle>>>>;
  onClosed: ReturnType<typeof vi.fn<() => void>>;
}

function ceremony(
  session: WidgetSessionHandle,
  renewed?: ServiceResult<WidgetSessionHandle>,
  key = 'batch-1/doc-1',
): Scenario {
  const renew = vi.fn(async (): Promise<ServiceResult<WidgetSessionHandle>> => {
    if (!renewed) throw new Error('renew was not expected');
    return renewed;
  });
  const onClosed = vi.fn();
  return { request: { key, title: 'Signing ceremony — REF-001', session, renew, onClosed }, renew, onClosed };
}

let log: ReturnType<typeof captureLogger>;
let partitionIds: number;

beforeEach(() => {
  resetFakeElectron();
  vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
  log = captureLogger();
  partitionIds = 0;
});
afterEach(() => vi.useRealTimers());

const opener = () =>
  createCeremonyWindows({ logger: log.logger, newPartitionId: () => `p${++partitionIds}` });

function onlyWindow(): FakeBrowserWindow {
  expect(FakeBrowserWindow.windows).toHaveLength(1);
  return FakeBrowserWindow.windows[0] as FakeBrowserWindow;
}

describe('the ceremony window', () => {
  it('is sandboxed and isolated, with no preload and an in-memory partition of its own', async () => {
    await opener().open(ceremony(handle(LIVE_URL, NOW + 600_000)).request);
    const prefs = onlyWindow().options.webPreferences ?? {};
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(prefs).not.toHaveProperty('preload');
    expect(prefs.partition).toBe('ceremony-p1');
    expect(String(prefs.partition)).not.toMatch(/^persist:/);
    expect(FakeSession.fromPartitionCalls.map((call) => call.partition)).toEqual(['ceremony-p1']);
  });

  it('has no menu and no DevTools, even in a development run', async () => {
    // Tests are a development build: the main window would get DevTools here.
    expect(DESK_DEVELOPMENT_BUILD).toBe(true);
    await opener().open(ceremony(handle(LIVE_URL, NOW + 600_000)).request);
    const window = onlyWindow();
    expect(window.options.webPreferences?.devTools).toBe(false);
    expect(window.removeMenu).toHaveBeenCalledOnce();
    expect(window.menu).toBeNull();
  });

  it('uses a random partition per window by default', async () => {
    const windows = createCeremonyWindows({ logger: log.logger });
    await windows.open(ceremony(handle(LIVE_URL, NOW + 600_000), undefined, 'a/1').request);
    await windows.open(ceremony(handle(LIVE_URL, NOW + 600_000), undefined, 'a/2').request);
    const [first, second] = FakeBrowserWindow.windows.map((window) =>
      String(window.options.webPreferences?.partition),
    );
    expect(first).toMatch(/^ceremony-[0-9a-f-]{36}$/);
    expect(second).toMatch(/^ceremony-[0-9a-f-]{36}$/);
    expect(first).not.toBe(second);
  });

  it('denies every permission in its session', async () => {
    await opener().open(ceremony(handle(LIVE_URL, NOW + 600_000)).request);
    const ses = onlyWindow().webContents.session;
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-sanitized-write',
      'fullscreen',
    ]) {
      expect(await ses.requestPermission(permission, LIVE_URL)).toBe(false);
      expect(ses.checkPermission(permission, 'https://widget.example.com')).toBe(false);
    }
    expect(ses.devicePermissionHandler?.({})).toBe(false);
  });

  it('refuses downloads', async () => {
    await opener().open(ceremony(handle(LIVE_URL, NOW + 600_000)).request);
    const event = fakeEvent();
    onlyWindow().webContents.session.emit('will-download', event, {}, {});
    expect(event.defaultPrevented).toBe(true);
  });

  it.each(['will-navigate', 'will-frame-navigate', 'will-redirect'] as const)(
    'lets %s stay within the widget origin only',
    async (kind) => {
      await opener().open(ceremony(handle(LIVE_URL, NOW + 600_000)).request);
      const contents = onlyWindow().webContents;
      expect(contents.navigate(kind, 'https://widget.example.com/ceremony/step/2')).toBe(false);
      expect(contents.navigate(kind, 'https://widget.example.com:443/done')).toBe(false);
      expect(contents.navigate(kind, 'https://widget.example.com.evil.org/phish')).toBe(true);
      expect(contents.navigate(kind, 'https://evil.org/')).toBe(true);
      expect(contents.navigate(kind, 'http://widget.example.com/downgrade')).toBe(true);
      expect(contents.navigate(kind, 'app://desk/index.html')).toBe(true);
      expect(contents.navigate(kind, 'file:///etc/passwd')).toBe(true);
      expect(contents.navigate(kind, 'javascript:alert(1)')).toBe(true);
    },
  );

  it('keeps its widget scope under the app-wide hardening every webContents gets', async () => {
    hardenAllWebContents(asElectron(app), {
      externalOrigins: ['https://widget.example.com'],
      logger: log.logger,
    });
    await opener().open(ceremony(handle(LIVE_URL, NOW + 600_000)).request);
    const contents = onlyWindow().webContents;
    for (const kind of ['will-navigate', 'will-frame-navigate', 'will-redirect'] as const) {
      expect(contents.navigate(kind, 'https://widget.example.com/ceremony/step/2')).toBe(false);
      expect(contents.navigate(kind, 'app://desk/index.html')).toBe(true);
      expect(contents.navigate(kind, 'https://evil.org/')).toBe(true);
    }
    expect(contents.openWindow('https://widget.example.com/terms')).toEqual({ action: 'deny' });
    expect(shell.openExternal).not.toHaveBeenCalled();
    expect(await contents.session.requestPermission('media', LIVE_URL)).toBe(false);
  });

  it('denies new windows', async () => {
    await opener().open(ceremony(handle(LIVE_URL, NOW + 600_000)).request);
    const contents = onlyWindow().webContents;
    expect(contents.openWindow('https://widget.example.com/popup')).toEqual({ action: 'deny' });
    expect(contents.openWindow('https://evil.org/')).toEqual({ action: 'deny' });
  });

  it('loads a live URL as it is, without renewing', async () => {
    const { request, renew } = ceremony(handle(LIVE_URL, NOW + 1));
    await opener().open(request);
    expect(renew).not.toHaveBeenCalled();
    expect(onlyWindow().webContents.loadURL).toHaveBeenCalledExactlyOnceWith(LIVE_URL);
  });

  it.each([
    ['expired a while ago', NOW - 60_000],
    ['expiring this very millisecond', NOW],
  ])('renews a session %s and never loads the expired URL', async (_label, expiresAt) => {
    const { request, renew } = ceremony(handle(EXPIRED_URL, expiresAt), {
      ok: true,
      value: handle(FRESH_URL, NOW + 900_000),
    });
    await opener().open(request);
    expect(renew).toHaveBeenCalledOnce();
    const loaded = onlyWindow().webContents.loadURL.mock.calls.map(([url]) => url);
    expect(loaded).toEqual([FRESH_URL]);
    expect(loaded).not.toContain(EXPIRED_URL);
  });

  it('opens nothing when the renewal fails, and says why', async () => {
    const { request } = ceremony(handle(EXPIRED_URL, NOW - 1), {
      ok: false,
      error: {
        operation: 'createWidgetSession',
        code: 'widget_session_conflict',
        message: 'A ceremony cannot start in the current signing state.',
        retryable: false,
        outcomeUnknown: false,
        attempts: 1,
      },
    });
    const failure = opener().open(request);
    await expect(failure).rejects.toBeInstanceOf(DeskError);
    await expect(failure).rejects.toMatchObject({ code: 'widget_session_conflict' });
    expect(FakeBrowserWindow.windows).toHaveLength(0);
  });

  it('opens nothing when even the renewed session has already expired', async () => {
    const { request } = ceremony(handle(EXPIRED_URL, NOW - 1), {
      ok: true,
      value: handle(FRESH_URL, NOW - 1),
    });
    await expect(opener().open(request)).rejects.toMatchObject({ code: 'widget_session_expired' });
    expect(FakeBrowserWindow.windows).toHaveLength(0);
  });

  it('says why it opens nothing in the language of the call: French and German', async () => {
    const expired = () =>
      ceremony(handle(EXPIRED_URL, NOW - 1), { ok: true, value: handle(FRESH_URL, NOW - 1) });
    const refused = () => ceremony(handle('http://widget.example.com/s/1', NOW + 600_000));
    const conflict = () =>
      ceremony(handle(EXPIRED_URL, NOW - 1), {
        ok: false,
        error: {
          operation: 'createWidgetSession',
          code: 'widget_session_conflict',
          message: 'A ceremony cannot be opened in the current signing state.',
          retryable: false,
          outcomeUnknown: false,
          attempts: 1,
        },
      });
    const refusalIn = (language: 'fr' | 'de', scenario: Scenario) =>
      speaking(createTranslator(language).t, () => opener().open(scenario.request)).then(
        () => 'opened',
        (error: unknown) => (error as Error).message,
      );
    expect(await refusalIn('fr', expired())).toBe(
      'Le service de signature a renvoyé une session de cérémonie déjà expirée. Vérifiez l’horloge de cet ordinateur, puis réessayez.',
    );
    expect(await refusalIn('de', expired())).toBe(
      'Der Signaturdienst hat eine bereits abgelaufene Zeremonie-Sitzung zurückgegeben. Prüfen Sie die Uhr dieses Computers und versuchen Sie es dann erneut.',
    );
    expect(await refusalIn('fr', refused())).toBe(
      'Le service de signature a renvoyé une adresse de cérémonie que l’application n’ouvrira pas (elle doit utiliser https).',
    );
    expect(await refusalIn('de', refused())).toBe(
      'Der Signaturdienst hat eine Zeremonie-Adresse zurückgegeben, die die App nicht öffnet (sie muss https verwenden).',
    );
    // The service's refusal, by its code: its English message is the command line's.
    expect(await refusalIn('fr', conflict())).toBe(
      'Une cérémonie ne peut pas être ouverte dans l’état de signature actuel. La demande est peut-être déjà terminée. Actualisez son statut.',
    );
    expect(await refusalIn('de', conflict())).toBe(
      'Im aktuellen Signaturzustand kann keine Zeremonie geöffnet werden. Die Anfrage ist möglicherweise bereits abgeschlossen. Aktualisieren Sie ihren Status.',
    );
    expect(FakeBrowserWindow.windows).toHaveLength(0);
  });

  it.each([
    'http://widget.example.com/s/1',
    'javascript:alert(1)',
    'file:///tmp/x.html',
    'https://user:pw@widget.example.com/',
  ])('refuses to open %s', async (url) => {
    await expect(opener().open(ceremony(handle(url, NOW + 600_000)).request)).rejects.toMatchObject({
      code: 'widget_url_rejected',
    });
    expect(FakeBrowserWindow.windows).toHaveLength(0);
  });

  it('accepts plain http on loopback only (the built-in simulator)', () => {
    expect(widgetOriginOf('http://127.0.0.1:4010/widget/s/1')).toBe('http://127.0.0.1:4010');
    expect(widgetOriginOf('http://localhost:4010/widget')).toBe('http://localhost:4010');
    expect(widgetOriginOf('http://127.0.0.1.evil.org/widget')).toBeUndefined();
    expect(widgetOriginOf('https://widget.example.com/s/1')).toBe('https://widget.example.com');
  });

  it('focuses the open window for the same request instead of opening another', async () => {
    const windows = opener();
    const first = ceremony(handle(LIVE_URL, NOW + 600_000));
    await windows.open(first.request);
    const again = ceremony(handle(EXPIRED_URL, NOW - 1));
    await windows.open(again.request);
    const window = onlyWindow();
    expect(window.focus).toHaveBeenCalled();
    expect(again.renew).not.toHaveBeenCalled();
    expect(window.webContents.loadURL).toHaveBeenCalledTimes(1);

    await windows.open(ceremony(handle(LIVE_URL, NOW + 600_000), undefined, 'batch-1/doc-2').request);
    expect(FakeBrowserWindow.windows).toHaveLength(2);
  });

  it('opens one window for two quick requests with the same key', async () => {
    const windows = opener();
    const slow = ceremony(handle(EXPIRED_URL, NOW - 1), {
      ok: true,
      value: handle(FRESH_URL, NOW + 600_000),
    });
    await Promise.all([
      windows.open(slow.request),
      windows.open(ceremony(handle(LIVE_URL, NOW + 600_000)).request),
    ]);
    expect(FakeBrowserWindow.windows).toHaveLength(1);
  });

  it('a widget page that cannot load: the empty window is closed and opening fails saying why, so the page offers Try again', async () => {
    const windows = opener();
    FakeWebContents.failNextLoad = Object.assign(
      new Error(`ERR_NAME_NOT_RESOLVED (-105) loading '${LIVE_URL}'`),
      {
        code: 'ERR_NAME_NOT_RESOLVED',
      },
    );
    await expect(windows.open(ceremony(handle(LIVE_URL, NOW + 600_000)).request)).rejects.toMatchObject({
      code: 'ceremony_window_failed',
      problem: { kind: 'load_failed', code: 'ERR_NAME_NOT_RESOLVED' },
    });
    expect(onlyWindow().isDestroyed()).toBe(true);

    // Try again, once the page loads: a window of its own, left open.
    await windows.open(ceremony(handle(LIVE_URL, NOW + 600_000)).request);
    expect(FakeBrowserWindow.windows[1]?.isDestroyed()).toBe(false);
  });

  it("a load the widget's page aborted by going on to another of its addresses is not a failure", async () => {
    const windows = opener();
    FakeWebContents.failNextLoad = Object.assign(new Error('ERR_ABORTED (-3)'), { code: 'ERR_ABORTED' });
    await windows.open(ceremony(handle(LIVE_URL, NOW + 600_000)).request);
    expect(onlyWindow().isDestroyed()).toBe(false);
  });

  it('clears its partition and reports the close exactly once', async () => {
    const windows = opener();
    const { request, onClosed } = ceremony(handle(LIVE_URL, NOW + 600_000));
    await windows.open(request);
    const window = onlyWindow();
    const ses = window.webContents.session;
    window.close();
    await eventually(() => expect(ses.clearCache).toHaveBeenCalled());
    expect(ses.clearStorageData).toHaveBeenCalledOnce();
    expect(onClosed).toHaveBeenCalledOnce();
    window.destroy();
    expect(onClosed).toHaveBeenCalledOnce();

    // A new request for the same key opens a new window with a new partition.
    await windows.open(ceremony(handle(LIVE_URL, NOW + 600_000)).request);
    expect(FakeBrowserWindow.windows).toHaveLength(2);
    expect(FakeBrowserWindow.windows[1]?.options.webPreferences?.partition).toBe('ceremony-p2');
  });

  it('never puts the widget URL in a log line or a title', async () => {
    const windows = opener();
    const expired = ceremony(handle(EXPIRED_URL, NOW - 1), {
      ok: true,
      value: handle(FRESH_URL, NOW + 600_000),
    });
    await windows.open(expired.request);
    FakeWebContents.failNextLoad = Object.assign(
      new Error(`ERR_CONNECTION_REFUSED (-102) loading '${LIVE_URL}'`),
      {
        code: 'ERR_CONNECTION_REFUSED',
      },
    );
    // A page that cannot load: the window is closed, and opening fails saying why (its code only).
    await expect(
      windows.open(ceremony(handle(LIVE_URL, NOW + 600_000), undefined, 'batch-1/doc-9').request),
    ).rejects.toMatchObject({
      code: 'ceremony_window_failed',
      problem: { kind: 'load_failed', code: 'ERR_CONNECTION_REFUSED' },
      message: expect.not.stringContaining('LIVE-TOKEN'),
    });
    for (const candidate of FakeBrowserWindow.windows) {
      candidate.webContents.navigate('will-navigate', 'https://evil.org/');
      candidate.webContents.openWindow(LIVE_URL);
      const pageTitle = fakeEvent();
      candidate.emit('page-title-updated', pageTitle, LIVE_URL);
      expect(pageTitle.defaultPrevented).toBe(true);
      candidate.close();
    }
    await eventually(() =>
      expect(log.lines.some((line) => line.includes('ceremony.load_failed'))).toBe(true),
    );

    const titles = FakeBrowserWindow.windows.flatMap((candidate) => [
      candidate.title,
      String(candidate.options.title),
      ...candidate.setTitle.mock.calls.map(([title]) => title),
    ]);
    expect(titles.every((title) => title === 'Signing ceremony — REF-001')).toBe(true);
    const everything = [
      ...log.lines,
      ...titles,
      JSON.stringify(FakeBrowserWindow.windows.map((w) => w.options)),
    ].join('\n');
    for (const secret of ['LIVE-TOKEN', 'EXPIRED-TOKEN', 'FRESH-TOKEN', 'sig=', 'widget.example.com']) {
      expect(everything).not.toContain(secret);
    }
  });
});
