/**
 * Ceremonies in a locked-down window of their own (README "Using the app", Open ceremony): an in-memory session
 * partition per window with every permission denied, no preload, sandboxed, navigation kept
 * within the widget's origin, the partition cleared on close, no menu and no DevTools. The
 * widget URL is a secret: it is revealed only to call loadURL, never logged, never put in a
 * title, never shown in DevTools (not even in a development run), and never loaded expired.
 */
import { randomUUID } from 'node:crypto';
import { BrowserWindow, session, type BrowserWindowConstructorOptions, type Session } from 'electron';
import { CeremonyWindowFailure } from '../app/ceremony-window-failure';
import { DeskError } from '../app/desk-error';
import type { CeremonyOpener, CeremonyRequest } from '../app/ports';
import type { WidgetSessionHandle } from '../client/service-client';
import { serviceFailureWords } from '../domain/service-failure';
import type { Logger } from '../base/log';
import { words } from '../base/words';
import { revealWindow } from './main-window';
import {
  applyPermissionPolicy,
  DENY_ALL_PERMISSIONS,
  LOCKED_DOWN_WEB_PREFERENCES,
  parseUrl,
  sameOrigin,
  setNavigationScope,
} from './security';

/** How long the widget's page may take to fail to load before the window counts as open. */
const LOAD_GRACE_MS = 5_000;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The origin the widget may navigate within: https, or plain http on loopback only (the
 * built-in simulator). Undefined for anything else, which is then not opened at all.
 */
export function widgetOriginOf(widgetUrl: string): string | undefined {
  const url = parseUrl(widgetUrl);
  if (!url || url.username !== '' || url.password !== '') return undefined;
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  return secure && url.host !== '' ? `${url.protocol}//${url.host}` : undefined;
}

/**
 * The window options: hardened, no preload, the given in-memory partition, the request's title,
 * DevTools off whatever the build (the page's address is the secret widget URL).
 */
export function ceremonyWindowOptions(title: string, partition: string): BrowserWindowConstructorOptions {
  return {
    width: 1100,
    height: 860,
    title,
    webPreferences: { ...LOCKED_DOWN_WEB_PREFERENCES, partition, spellcheck: false, devTools: false },
  };
}

export interface CeremonyWindowsOptions {
  readonly logger: Logger;
  /** The clock used against `session.expiresAt` (ms since the epoch). */
  readonly now?: () => number;
  /** Names each window's partition; random by default so no two ceremonies share storage. */
  readonly newPartitionId?: () => string;
}

/** Opens each ceremony in its own window; a second request for the same key focuses the first. */
export function createCeremonyWindows(options: CeremonyWindowsOptions): CeremonyOpener {
  const { logger } = options;
  const now = options.now ?? Date.now;
  const newPartitionId = options.newPartitionId ?? randomUUID;
  const windows = new Map<string, BrowserWindow>();
  const opening = new Map<string, Promise<void>>();

  /** The request's session, or a fresh one when it has expired: an expired URL is never loaded. */
  async function usableSession(request: CeremonyRequest): Promise<WidgetSessionHandle> {
    if (now() < request.session.expiresAt) return request.session;
    logger.log('info', 'ceremony.session_renewed', { key: request.key });
    const renewed = await request.renew();
    if (!renewed.ok) throw new DeskError(renewed.error.code, serviceFailureWords(renewed.error, words()));
    if (now() >= renewed.value.expiresAt) {
      throw new DeskError('widget_session_expired', words()('shell.ceremonyExpired'));
    }
    return renewed.value;
  }

  async function clearPartition(ses: Session): Promise<void> {
    try {
      await ses.clearStorageData();
      await ses.clearCache();
    } catch (error) {
      logger.log('warn', 'ceremony.clear_failed', {
        error: error instanceof Error ? error.name : typeof error,
      });
    }
  }

  async function show(request: CeremonyRequest): Promise<void> {
    const handle = await usableSession(request);
    const widgetUrl = handle.widgetUrl.reveal();
    const origin = widgetOriginOf(widgetUrl);
    if (!origin) {
      throw new DeskError('widget_url_rejected', words()('shell.ceremonyAddressRefused'));
    }

    const partition = `ceremony-${newPartitionId()}`;
    const ses = session.fromPartition(partition, { cache: false });
    applyPermissionPolicy(ses, DENY_ALL_PERMISSIONS);
    ses.on('will-download', (event) => event.preventDefault());

    const window = new BrowserWindow(ceremonyWindowOptions(request.title, partition));
    // No menu on Windows and Linux, so none of the app menu's shortcuts (macOS has one menu
    // for the whole app; DevTools stay off there through the web preferences).
    window.removeMenu();
    const contents = window.webContents;
    setNavigationScope(contents, origin);
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    const keepWithinWidget = (event: { url: string; preventDefault(): void }) => {
      if (!sameOrigin(event.url, origin)) event.preventDefault();
    };
    contents.on('will-navigate', keepWithinWidget);
    contents.on('will-frame-navigate', keepWithinWidget);
    contents.on('will-redirect', keepWithinWidget);
    // The widget's page title could be anything; the window keeps the request's title.
    window.on('page-title-updated', (event) => event.preventDefault());

    windows.set(request.key, window);
    window.once('closed', () => {
      windows.delete(request.key);
      void clearPartition(ses);
      try {
        request.onClosed();
      } catch (error) {
        logger.log('error', 'ceremony.on_closed_failed', {
          error: error instanceof Error ? error.name : typeof error,
        });
      }
    });

    logger.log('info', 'ceremony.opened', { key: request.key, expiresInSeconds: handle.expiresInSeconds });
    let grace: Parameters<typeof clearTimeout>[0];
    const failed = await Promise.race([
      window.loadURL(widgetUrl).then(
        () => undefined,
        (error: unknown) => {
          // Electron's load errors quote the URL: only their code is logged.
          const code =
            typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'unknown';
          logger.log('warn', 'ceremony.load_failed', { key: request.key, code });
          // ERR_ABORTED: the page went on to another address of the widget's own; the window is fine.
          return code === 'ERR_ABORTED' ? undefined : code;
        },
      ),
      // A page still loading after this long is left to load in its own time.
      new Promise<undefined>((resolve) => (grace = setTimeout(() => resolve(undefined), LOAD_GRACE_MS))),
    ]);
    clearTimeout(grace);
    if (failed !== undefined) {
      // An empty window says nothing: it is closed, and the page says why, with "Try again".
      if (!window.isDestroyed()) window.close();
      throw new CeremonyWindowFailure({ kind: 'load_failed', code: failed });
    }
  }

  return {
    focus(key) {
      const existing = windows.get(key);
      if (!existing || existing.isDestroyed()) return false;
      revealWindow(existing);
      return true;
    },
    async open(request) {
      const existing = windows.get(request.key);
      if (existing && !existing.isDestroyed()) {
        revealWindow(existing);
        return;
      }
      const pending = opening.get(request.key);
      if (pending) return pending;
      const job = show(request).finally(() => opening.delete(request.key));
      opening.set(request.key, job);
      return job;
    },
  };
}
