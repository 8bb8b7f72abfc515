import type { Session, WebContents } from 'electron';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  APP_PAGE_PERMISSIONS,
  applyPermissionPolicy,
  DENY_ALL_PERMISSIONS,
  hardenAllWebContents,
  hardenWebContents,
  isAllowedExternalUrl,
  isAppUrl,
  sameOrigin,
  setNavigationScope,
} from '../../../main/shell/security';
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

const DOCS = 'https://docs.example.com';
const ALLOWLIST = [DOCS];

beforeEach(() => resetFakeElectron());

function hardened(allowlist: readonly string[] = ALLOWLIST): FakeWebContents {
  const contents = new FakeWebContents(new FakeSession('test'));
  hardenWebContents(asElectron<WebContents>(contents), {
    externalOrigins: allowlist,
    logger: captureLogger().logger,
  });
  return contents;
}

describe('sameOrigin', () => {
  it.each([
    ['app://desk/index.html', 'app://desk', true],
    ['app://desk/assets/x.js?v=1#top', 'app://desk/', true],
    ['https://widget.example.com/s/abc', 'https://widget.example.com', true],
    ['https://widget.example.com:443/s', 'https://widget.example.com', true],
    ['https://WIDGET.example.com/s', 'https://widget.example.com', true],
    ['https://widget.example.com.evil.org/s', 'https://widget.example.com', false],
    ['https://evil.org/?https://widget.example.com', 'https://widget.example.com', false],
    ['https://widget.example.com@evil.org/', 'https://widget.example.com', false],
    ['http://widget.example.com/s', 'https://widget.example.com', false],
    ['https://widget.example.com:8443/s', 'https://widget.example.com', false],
    ['app://desk.evil/index.html', 'app://desk', false],
    ['file:///etc/passwd', 'file:///etc/other', false],
    ['javascript:alert(1)', 'app://desk', false],
    ['data:text/html,<script>1</script>', 'app://desk', false],
    ['about:blank', 'app://desk', false],
    ['not a url', 'app://desk', false],
  ])('%s vs %s → %s', (url, origin, expected) => {
    expect(sameOrigin(url, origin)).toBe(expected);
  });

  it('recognizes the app’s own pages only', () => {
    expect(isAppUrl('app://desk/index.html')).toBe(true);
    expect(isAppUrl('file:///app/dist/renderer/index.html')).toBe(false);
    expect(isAppUrl('https://desk/index.html')).toBe(false);
  });
});

describe('isAllowedExternalUrl', () => {
  it.each([
    ['https://docs.example.com/guide', true],
    ['https://docs.example.com:443/guide?x=1', true],
    ['http://docs.example.com/guide', false],
    ['https://docs.example.com.evil.org/guide', false],
    ['https://app.evil.com/', false],
    ['https://evil.com/docs.example.com', false],
    ['https://user:pass@docs.example.com/', false],
    ['http://evil/', false],
    ['file:///C:/Windows/System32/calc.exe', false],
    ['smb://attacker/share/payload.exe', false],
    ['javascript:alert(document.cookie)', false],
    ['data:text/html,hi', false],
    ['ms-msdt:/id PCWDiagnostic', false],
    ['//docs.example.com/guide', false],
    ['', false],
  ])('%s → %s', (url, expected) => {
    expect(isAllowedExternalUrl(url, ALLOWLIST)).toBe(expected);
  });

  it('allows nothing with an empty allowlist', () => {
    expect(isAllowedExternalUrl('https://docs.example.com/', [])).toBe(false);
  });

  it('does not confuse a lookalike subdomain with the app origin', () => {
    expect(isAllowedExternalUrl('https://app.evil.com/', ['https://app.com'])).toBe(false);
    expect(isAllowedExternalUrl('https://app.com.evil.com/', ['https://app.com'])).toBe(false);
  });
});

describe('hardenWebContents', () => {
  it('denies every new window and sends only allowlisted http(s) links to the system browser', () => {
    const contents = hardened();
    expect(contents.openWindow('https://docs.example.com/guide')).toEqual({ action: 'deny' });
    expect(shell.openExternal).toHaveBeenCalledExactlyOnceWith('https://docs.example.com/guide');

    for (const url of [
      'https://app.evil.com/',
      'https://docs.example.com.evil.org/',
      'http://evil/',
      'file:///etc/passwd',
      'smb://host/share',
      'javascript:alert(1)',
      'app://desk/index.html',
    ]) {
      expect(contents.openWindow(url)).toEqual({ action: 'deny' });
    }
    expect(shell.openExternal).toHaveBeenCalledTimes(1);
  });

  it('blocks navigation outside the app origin on every navigation event', () => {
    const contents = hardened();
    for (const kind of ['will-navigate', 'will-frame-navigate', 'will-redirect'] as const) {
      expect(contents.navigate(kind, 'app://desk/index.html#/batches')).toBe(false);
      expect(contents.navigate(kind, 'https://evil.example/')).toBe(true);
      expect(contents.navigate(kind, 'app://desk.evil/index.html')).toBe(true);
      expect(contents.navigate(kind, 'file:///etc/passwd')).toBe(true);
      expect(contents.navigate(kind, 'javascript:alert(1)')).toBe(true);
    }
  });

  it('opens an allowlisted link clicked in the page externally instead of navigating', () => {
    const contents = hardened();
    expect(contents.navigate('will-navigate', 'https://docs.example.com/help')).toBe(true);
    expect(shell.openExternal).toHaveBeenCalledExactlyOnceWith('https://docs.example.com/help');
    expect(contents.navigate('will-redirect', 'https://docs.example.com/help')).toBe(true);
    expect(shell.openExternal).toHaveBeenCalledTimes(1);
  });

  it('keeps a scoped webContents within its own origin and never opens links from it', () => {
    const contents = new FakeWebContents(new FakeSession('scoped'));
    hardenWebContents(asElectron<WebContents>(contents), {
      externalOrigins: ALLOWLIST,
      logger: captureLogger().logger,
    });
    setNavigationScope(asElectron<WebContents>(contents), 'https://widget.example.com');
    expect(contents.navigate('will-navigate', 'https://widget.example.com/step/2')).toBe(false);
    expect(contents.navigate('will-navigate', 'app://desk/index.html')).toBe(true);
    expect(contents.navigate('will-navigate', 'https://docs.example.com/help')).toBe(true);
    expect(contents.openWindow('https://docs.example.com/help')).toEqual({ action: 'deny' });
    expect(shell.openExternal).not.toHaveBeenCalled();
  });

  it('refuses to attach a <webview>', () => {
    const contents = hardened();
    const event = fakeEvent();
    contents.emit('will-attach-webview', event, {}, { src: 'https://evil.example/' });
    expect(event.defaultPrevented).toBe(true);
  });

  it('denies every permission in a session nobody configured', async () => {
    const contents = hardened();
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
      expect(await contents.session.requestPermission(permission, 'app://desk/index.html')).toBe(false);
      expect(contents.session.checkPermission(permission, 'app://desk')).toBe(false);
    }
    expect(contents.session.devicePermissionHandler?.({})).toBe(false);
  });

  it('does not loosen a session configured on purpose', async () => {
    const ses = new FakeSession('app');
    applyPermissionPolicy(asElectron<Session>(ses), APP_PAGE_PERMISSIONS);
    const contents = new FakeWebContents(ses);
    hardenWebContents(asElectron<WebContents>(contents), {
      externalOrigins: [],
      logger: captureLogger().logger,
    });
    expect(await ses.requestPermission('clipboard-sanitized-write', 'app://desk/index.html')).toBe(true);
  });

  it('is applied to every webContents the app creates', () => {
    hardenAllWebContents(asElectron(app), { externalOrigins: ALLOWLIST, logger: captureLogger().logger });
    const window = new FakeBrowserWindow({});
    expect(window.webContents.openWindow('https://evil.example/')).toEqual({ action: 'deny' });
    expect(window.webContents.navigate('will-navigate', 'https://evil.example/')).toBe(true);
  });
});

describe('permission policies', () => {
  it('denies everything to the app’s pages but clipboard writing', async () => {
    const ses = new FakeSession('app');
    applyPermissionPolicy(asElectron<Session>(ses), APP_PAGE_PERMISSIONS);
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-read',
      'display-capture',
      'midi',
    ]) {
      expect(await ses.requestPermission(permission, 'app://desk/index.html')).toBe(false);
      expect(ses.checkPermission(permission, 'app://desk')).toBe(false);
    }
    expect(await ses.requestPermission('clipboard-sanitized-write', 'app://desk/index.html')).toBe(true);
    expect(ses.checkPermission('clipboard-sanitized-write', 'app://desk')).toBe(true);
    expect(await ses.requestPermission('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
    expect(ses.checkPermission('clipboard-sanitized-write', 'app://desk.evil')).toBe(false);
  });

  it('denies everything with DENY_ALL_PERMISSIONS', async () => {
    const ses = new FakeSession('ceremony-x');
    applyPermissionPolicy(asElectron<Session>(ses), DENY_ALL_PERMISSIONS);
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-sanitized-write',
      'fullscreen',
    ]) {
      expect(await ses.requestPermission(permission, 'https://widget.example.com/s')).toBe(false);
      expect(ses.checkPermission(permission, 'https://widget.example.com')).toBe(false);
    }
  });
});
