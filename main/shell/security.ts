/**
 * The shell's hardening helpers (Electron's security checklist): origin comparison with a URL
 * parser, the external-link allowlist, permission policies, and the guards every webContents
 * gets when it is created. Origins are never compared with `startsWith`.
 */
import { shell, type App, type Session, type WebContents, type WebPreferences } from 'electron';
import type { Logger } from '../base/log';
import { APP_ORIGIN, APP_SCHEME } from './paths';

/** Schemes whose URLs have a real (scheme, host, port) origin; every other URL has an opaque one. */
const TUPLE_ORIGIN_PROTOCOLS = new Set(['https:', 'http:', `${APP_SCHEME}:`]);
const EXTERNAL_PROTOCOLS = new Set(['https:', 'http:']);

/**
 * Origins whose pages may be opened in the system browser. The renderer has no external link
 * today; add an origin here when it gets one (help pages, the service's portal).
 */
export const EXTERNAL_LINK_ORIGINS: readonly string[] = [];

/**
 * The web preferences of every window (Electron's security checklist): no Node anywhere,
 * isolated and sandboxed, web security on, no insecure content, no `<webview>`, no
 * experimental or Blink features, no navigation by dropping a file on the window, no DevTools
 * (a window that may have them says so itself, see `isDevelopmentRun`).
 */
export const LOCKED_DOWN_WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  experimentalFeatures: false,
  navigateOnDragDrop: false,
  safeDialogs: true,
  devTools: false,
} as const satisfies WebPreferences;

/**
 * A development run: a development build (`npm start`, tests; installers are built with
 * `--production`) that is not packaged. Only such a run gets DevTools in the main window, the
 * Reload and DevTools menu entries, and the demo connection. The one place this rule lives.
 */
export function isDevelopmentRun(app: Pick<App, 'isPackaged'>): boolean {
  return DESK_DEVELOPMENT_BUILD && !app.isPackaged;
}

/**
 * Command-line switches that let another program inspect or drive the app: Chromium's remote
 * debugging (attaches to every window, the ceremony's secret widget URL included) and Node's
 * inspector. Electron's fuse for inspector arguments covers Node's, not Chromium's, so the app
 * checks them all itself.
 */
export const DEBUGGING_SWITCHES = [
  'remote-debugging-port',
  'remote-debugging-pipe',
  'inspect',
  'inspect-brk',
  'js-flags',
] as const;

/**
 * The debugging switches this run was started with that it must refuse: none in a development
 * run (Playwright drives it with --remote-debugging-port), every one present otherwise.
 */
export function refusedDebuggingSwitches(app: Pick<App, 'isPackaged' | 'commandLine'>): string[] {
  if (isDevelopmentRun(app)) return [];
  return DEBUGGING_SWITCHES.filter((name) => app.commandLine.hasSwitch(name));
}

/** The parsed URL, or undefined for anything that is not an absolute URL. */
export function parseUrl(text: unknown): URL | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * True when `url` has the same scheme, host and port as `origin`, both parsed. URLs with an
 * opaque origin (file:, data:, javascript:, about:blank, smb:…) never match anything.
 */
export function sameOrigin(url: string, origin: string): boolean {
  const target = parseUrl(url);
  const reference = parseUrl(origin);
  if (!target || !reference || !TUPLE_ORIGIN_PROTOCOLS.has(target.protocol)) return false;
  return target.protocol === reference.protocol && target.host !== '' && target.host === reference.host;
}

/** True for a page of the app itself (`app://desk/…`). */
export function isAppUrl(url: string): boolean {
  return sameOrigin(url, APP_ORIGIN);
}

/**
 * True when `url` may be handed to the system browser: http(s) only, no credentials in it, and
 * its origin exactly one of `allowedOrigins` (so `https://app.evil.com` never passes for
 * `https://app.com`, nor `file:`, `smb:` or `javascript:` for anything).
 */
export function isAllowedExternalUrl(url: string, allowedOrigins: readonly string[]): boolean {
  const parsed = parseUrl(url);
  if (!parsed || !EXTERNAL_PROTOCOLS.has(parsed.protocol)) return false;
  if (parsed.username !== '' || parsed.password !== '') return false;
  return allowedOrigins.some((origin) => sameOrigin(parsed.href, origin));
}

/** Decides a permission for a page: `requestingUrl` is the page's URL or origin. */
export type PermissionRule = (permission: string, requestingUrl: string) => boolean;

/** The widget window and any session we did not configure: nothing is granted. */
export const DENY_ALL_PERMISSIONS: PermissionRule = () => false;

/**
 * The app's own pages may write (never read) the clipboard, for the "copy SHA-256" button;
 * everything else (media, geolocation, notifications…) is denied.
 */
export const APP_PAGE_PERMISSIONS: PermissionRule = (permission, requestingUrl) =>
  permission === 'clipboard-sanitized-write' && isAppUrl(requestingUrl);

const configuredSessions = new WeakSet<Session>();

/** Installs `rule` as the session's permission request and check handlers; devices are always denied. */
export function applyPermissionPolicy(session: Session, rule: PermissionRule): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(rule(permission, details.requestingUrl));
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    rule(permission, requestingOrigin),
  );
  session.setDevicePermissionHandler(() => false);
  configuredSessions.add(session);
}

/** Denies everything in a session nobody configured on purpose. */
function ensurePermissionPolicy(session: Session): void {
  if (!configuredSessions.has(session)) applyPermissionPolicy(session, DENY_ALL_PERMISSIONS);
}

const navigationScopes = new WeakMap<WebContents, string>();

/**
 * Lets `contents` navigate within `origin` instead of the app's own origin (the ceremony
 * window, within the widget's origin). Must be called right after the window is created.
 */
export function setNavigationScope(contents: WebContents, origin: string): void {
  navigationScopes.set(contents, origin);
}

/** True when `contents` may go to `url`: the app's origin, or the scope set for it. */
export function isNavigationAllowed(contents: WebContents, url: string): boolean {
  return sameOrigin(url, navigationScopes.get(contents) ?? APP_ORIGIN);
}

export interface HardeningOptions {
  /** Origins the app's pages may open in the system browser. */
  readonly externalOrigins: readonly string[];
  readonly logger: Logger;
}

/**
 * Guards one webContents: new windows denied (allowlisted http(s) links from the app's pages go
 * to the system browser), navigation and redirects outside its scope prevented, `<webview>`
 * refused, and its session denying permissions unless configured on purpose.
 */
export function hardenWebContents(contents: WebContents, options: HardeningOptions): void {
  const isAppContents = () => !navigationScopes.has(contents);
  const openExternally = (url: string) => {
    if (!isAppContents() || !isAllowedExternalUrl(url, options.externalOrigins)) return false;
    void shell
      .openExternal(new URL(url).href)
      .catch(() => options.logger.log('warn', 'external_link.failed'));
    return true;
  };
  const guard =
    (kind: string, opensExternally: boolean) => (event: { url: string; preventDefault(): void }) => {
      if (isNavigationAllowed(contents, event.url)) return;
      event.preventDefault();
      // The URL is not logged: in the ceremony window it can be the secret widget URL.
      const opened = opensExternally && openExternally(event.url);
      if (!opened) options.logger.log('warn', 'navigation.blocked', { kind });
    };

  contents.setWindowOpenHandler(({ url }) => {
    if (!openExternally(url)) options.logger.log('warn', 'window_open.denied');
    return { action: 'deny' };
  });
  contents.on('will-navigate', guard('will-navigate', true));
  contents.on('will-frame-navigate', guard('will-frame-navigate', false));
  contents.on('will-redirect', guard('will-redirect', false));
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    options.logger.log('warn', 'webview.refused');
  });
  ensurePermissionPolicy(contents.session);
}

/** Hardens every webContents the app ever creates, as it is created. */
export function hardenAllWebContents(app: App, options: HardeningOptions): void {
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, options));
}
