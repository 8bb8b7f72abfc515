import type { MenuItemConstructorOptions } from 'electron';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { appMenuTemplate, installAppMenu, type AppMenuOptions } from '../../../main/shell/app-menu';
import { createTranslator } from '../../../shared/i18n/translator';
import { Menu, resetFakeElectron, type FakeMenuItem } from './fake-electron';

vi.mock('electron', () => import('./fake-electron'));

beforeEach(() => resetFakeElectron());

function options(overrides: Partial<AppMenuOptions> = {}): AppMenuOptions {
  return {
    productName: 'Signing Batch Desk',
    platform: 'linux',
    development: false,
    t: createTranslator('en').t,
    ...overrides,
  };
}

type Item = MenuItemConstructorOptions | FakeMenuItem;

/** Every item of the menu, submenus included, depth first. */
function everyItem(items: readonly Item[]): Item[] {
  return items.flatMap((item) => [
    item,
    ...(Array.isArray(item.submenu) ? everyItem(item.submenu as Item[]) : []),
  ]);
}

const rolesOf = (items: readonly Item[]) =>
  everyItem(items).flatMap((item) => (item.role ? [item.role] : []));

function submenuOf(items: readonly Item[], label: string): Item[] {
  const menu = items.find((item) => item.label === label);
  if (!menu || !Array.isArray(menu.submenu)) throw new Error(`no menu "${label}"`);
  return menu.submenu as Item[];
}

describe('the application menu', () => {
  it('has Edit, View, Window and Help on Windows and Linux', () => {
    for (const platform of ['linux', 'win32'] as const) {
      const template = appMenuTemplate(options({ platform }));
      expect(template.map((item) => item.label)).toEqual(['Edit', 'View', 'Window', 'Help']);
      expect(rolesOf(submenuOf(template, 'Help'))).toEqual(['about']);
    }
  });

  it('edits text with roles, so fields get the platform’s shortcuts', () => {
    const edit = submenuOf(appMenuTemplate(options()), 'Edit');
    expect(rolesOf(edit)).toEqual(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll']);
    expect(edit.filter((item) => item.role).map((item) => item.label)).toEqual([
      'Undo',
      'Redo',
      'Cut',
      'Copy',
      'Paste',
      'Select All',
    ]);
  });

  it('has no Reload and no DevTools outside a development run', () => {
    for (const platform of ['linux', 'win32', 'darwin'] as const) {
      const roles = rolesOf(appMenuTemplate(options({ platform, development: false })));
      expect(roles).not.toContain('toggleDevTools');
      expect(roles).not.toContain('reload');
      expect(roles).not.toContain('forceReload');
      expect(roles).toEqual(expect.arrayContaining(['zoomIn', 'zoomOut', 'resetZoom', 'togglefullscreen']));
    }
  });

  it('has Reload and DevTools in a development run', () => {
    const view = submenuOf(appMenuTemplate(options({ development: true })), 'View');
    expect(rolesOf(view)).toEqual([
      'reload',
      'forceReload',
      'toggleDevTools',
      'resetZoom',
      'zoomIn',
      'zoomOut',
      'togglefullscreen',
    ]);
  });

  it('starts with the app menu on macOS: About, Hide, Quit', () => {
    const template = appMenuTemplate(options({ platform: 'darwin' }));
    expect(template.map((item) => item.label)).toEqual(['Signing Batch Desk', 'Edit', 'View', 'Window']);
    const appMenu = submenuOf(template, 'Signing Batch Desk');
    expect(rolesOf(appMenu)).toEqual(['about', 'hide', 'hideOthers', 'unhide', 'quit']);
    expect(appMenu.find((item) => item.role === 'quit')?.label).toBe('Quit Signing Batch Desk');
  });

  it('speaks the desk’s language', () => {
    const french = appMenuTemplate(options({ t: createTranslator('fr').t }));
    expect(french.map((item) => item.label)).toEqual(['Édition', 'Affichage', 'Fenêtre', 'Aide']);
    expect(submenuOf(french, 'Édition').find((item) => item.role === 'paste')?.label).toBe('Coller');
    const german = appMenuTemplate(options({ platform: 'darwin', t: createTranslator('de').t }));
    expect(submenuOf(german, 'Signing Batch Desk').find((item) => item.role === 'quit')?.label).toBe(
      'Signing Batch Desk beenden',
    );
  });

  it('leaves no item in English in French or German, nor to Electron’s English role labels, on every platform', () => {
    for (const platform of ['linux', 'win32', 'darwin'] as const) {
      const labelsIn = (language: 'en' | 'fr' | 'de') =>
        everyItem(appMenuTemplate(options({ platform, development: true, t: createTranslator(language).t })))
          .filter((item) => item.type !== 'separator')
          .map((item) => item.label);
      const english = labelsIn('en');
      for (const language of ['fr', 'de'] as const) {
        const labels = labelsIn(language);
        expect(labels).toHaveLength(english.length);
        labels.forEach((label, index) => {
          expect(label, `${platform} ${language} item ${index} has a label`).toBeTruthy();
          // The macOS app menu is named after the product, in every language.
          if (label !== 'Signing Batch Desk')
            expect(label, `${platform} ${language} item ${index}`).not.toBe(english[index]);
        });
      }
    }
    const aboutIn = (language: 'fr' | 'de') =>
      submenuOf(
        appMenuTemplate(options({ t: createTranslator(language).t })),
        language === 'fr' ? 'Aide' : 'Hilfe',
      ).find((item) => item.role === 'about')?.label;
    expect(aboutIn('fr')).toBe('À propos de Signing Batch Desk');
    expect(aboutIn('de')).toBe('Über Signing Batch Desk');
    const macIn = (language: 'fr' | 'de') =>
      submenuOf(
        appMenuTemplate(options({ platform: 'darwin', t: createTranslator(language).t })),
        'Signing Batch Desk',
      )
        .filter((item) => item.role)
        .map((item) => item.label);
    expect(macIn('fr')).toEqual([
      'À propos de Signing Batch Desk',
      'Masquer Signing Batch Desk',
      'Masquer les autres',
      'Tout afficher',
      'Quitter Signing Batch Desk',
    ]);
    expect(macIn('de')).toEqual([
      'Über Signing Batch Desk',
      'Signing Batch Desk ausblenden',
      'Andere ausblenden',
      'Alle einblenden',
      'Signing Batch Desk beenden',
    ]);
  });

  it('replaces Electron’s default menu', () => {
    installAppMenu(options());
    expect(Menu.setApplicationMenu).toHaveBeenCalledOnce();
    expect(Menu.application?.items.map((item) => item.label)).toEqual(['Edit', 'View', 'Window', 'Help']);
  });
});
