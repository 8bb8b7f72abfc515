/**
 * The application menu: ours, never Electron's default (whose View menu carries Reload and
 * Toggle Developer Tools, Ctrl+Shift+I, in every build). Edit entries are roles, so text fields
 * get undo, cut, copy, paste and select all with the platform's shortcuts (on macOS a role in
 * the menu is the only way Cmd+C reaches a page); Reload and DevTools exist in a development run
 * only. Labels are in the desk's language: Electron's own role labels are English everywhere.
 */
import { Menu, type MenuItemConstructorOptions } from 'electron';
import type { Translator } from '../../shared/i18n/translator';

export interface AppMenuOptions {
  readonly productName: string;
  /** `process.platform`: macOS has an app menu first (About, Hide, Quit). */
  readonly platform: NodeJS.Platform;
  /** A development run (`isDevelopmentRun`): Reload and Toggle Developer Tools in View. */
  readonly development: boolean;
  readonly t: Translator['t'];
}

/** The menu's template, built from the options alone (no Electron call): what the tests read. */
export function appMenuTemplate(options: AppMenuOptions): MenuItemConstructorOptions[] {
  const { t, productName: name } = options;
  const mac = options.platform === 'darwin';
  const separator: MenuItemConstructorOptions = { type: 'separator' };
  const about: MenuItemConstructorOptions = { role: 'about', label: t('menu.about', { name }) };

  const edit: MenuItemConstructorOptions = {
    label: t('menu.edit'),
    submenu: [
      { role: 'undo', label: t('menu.undo') },
      { role: 'redo', label: t('menu.redo') },
      separator,
      { role: 'cut', label: t('menu.cut') },
      { role: 'copy', label: t('menu.copy') },
      { role: 'paste', label: t('menu.paste') },
      { role: 'selectAll', label: t('menu.selectAll') },
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: t('menu.view'),
    submenu: [
      ...(options.development
        ? ([
            { role: 'reload', label: t('menu.reload') },
            { role: 'forceReload', label: t('menu.forceReload') },
            { role: 'toggleDevTools', label: t('menu.toggleDevTools') },
            separator,
          ] satisfies MenuItemConstructorOptions[])
        : []),
      { role: 'resetZoom', label: t('menu.resetZoom') },
      { role: 'zoomIn', label: t('menu.zoomIn') },
      { role: 'zoomOut', label: t('menu.zoomOut') },
      separator,
      { role: 'togglefullscreen', label: t('menu.toggleFullScreen') },
    ],
  };
  const window: MenuItemConstructorOptions = {
    label: t('menu.window'),
    submenu: [
      { role: 'minimize', label: t('menu.minimize') },
      { role: 'close', label: t('menu.close') },
    ],
  };
  // No link to the web: About is the one help entry (a documentation page would need an
  // origin in EXTERNAL_LINK_ORIGINS first). On macOS it lives in the app menu instead.
  if (!mac) return [edit, view, window, { label: t('menu.help'), submenu: [about] }];
  const appMenu: MenuItemConstructorOptions = {
    label: name,
    submenu: [
      about,
      separator,
      { role: 'hide', label: t('menu.hide', { name }) },
      { role: 'hideOthers', label: t('menu.hideOthers') },
      { role: 'unhide', label: t('menu.showAll') },
      separator,
      { role: 'quit', label: t('menu.quit', { name }) },
    ],
  };
  return [appMenu, edit, view, window];
}

/** Installs the menu for every window (the ceremony window removes its own, see ceremony-window.ts). */
export function installAppMenu(options: AppMenuOptions): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(options)));
}
