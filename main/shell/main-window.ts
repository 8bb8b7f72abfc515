/**
 * The main window: the renderer, locked down, loaded from `app://desk/`. Closing it hides it to
 * the tray; the app quits only from the tray menu (or app.quit on the OS's request).
 */
import { BrowserWindow, type BrowserWindowConstructorOptions } from 'electron';
import type { Logger } from '../base/log';
import { LOCKED_DOWN_WEB_PREFERENCES } from './security';

export interface MainWindowOptions {
  readonly preloadFile: string;
  readonly url: string;
  readonly iconFile?: string;
  /** Launched at login: stay in the tray until asked. */
  readonly startHidden: boolean;
  /** True once the user chose Quit: the close is then a real one. */
  readonly isQuitting: () => boolean;
  /** DevTools in this window: a development run only (`isDevelopmentRun`). */
  readonly devTools: boolean;
  readonly logger: Logger;
}

/**
 * The constructor options: hardened web preferences plus the preload, shown only when ready;
 * DevTools only when `devTools` (a development run).
 */
export function mainWindowOptions(
  preloadFile: string,
  options: { readonly iconFile?: string | undefined; readonly devTools: boolean },
): BrowserWindowConstructorOptions {
  const { iconFile, devTools } = options;
  return {
    width: 1280,
    height: 840,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Signing Batch Desk',
    ...(iconFile ? { icon: iconFile } : {}),
    webPreferences: { ...LOCKED_DOWN_WEB_PREFERENCES, preload: preloadFile, spellcheck: false, devTools },
  };
}

/** Creates the main window and starts loading the app into it. */
export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const window = new BrowserWindow(
    mainWindowOptions(options.preloadFile, { iconFile: options.iconFile, devTools: options.devTools }),
  );
  window.once('ready-to-show', () => {
    if (!options.startHidden) window.show();
  });
  // Windows ends a session without 'before-quit': the window must not hold up a shutdown.
  let sessionEnding = false;
  window.on('query-session-end', () => {
    sessionEnding = true;
  });
  window.on('close', (event) => {
    if (options.isQuitting() || sessionEnding) return;
    event.preventDefault();
    window.hide();
  });
  // The page keeps its own title; it must not rename the window.
  window.on('page-title-updated', (event) => event.preventDefault());
  window.loadURL(options.url).catch((error: unknown) => {
    options.logger.log('error', 'main_window.load_failed', {
      error: error instanceof Error ? error.name : typeof error,
    });
  });
  return window;
}

/** Brings the window back from the tray, a minimized state or behind other windows. */
export function revealWindow(window: BrowserWindow | undefined): void {
  if (!window || window.isDestroyed()) return;
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}
