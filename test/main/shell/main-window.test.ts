import type { BrowserWindow } from 'electron';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createMainWindow, mainWindowOptions, revealWindow } from '../../../main/shell/main-window';
import { asElectron, FakeBrowserWindow, fakeEvent, resetFakeElectron } from './fake-electron';
import { captureLogger } from './log-capture';

vi.mock('electron', () => import('./fake-electron'));

beforeEach(() => resetFakeElectron());

function open(
  overrides: { startHidden?: boolean; quitting?: () => boolean; devTools?: boolean } = {},
): FakeBrowserWindow {
  createMainWindow({
    devTools: overrides.devTools ?? false,
    preloadFile: '/app/dist/preload/index.cjs',
    url: 'app://desk/index.html',
    startHidden: overrides.startHidden ?? false,
    isQuitting: overrides.quitting ?? (() => false),
    logger: captureLogger().logger,
  });
  const window = FakeBrowserWindow.windows.at(-1);
  if (!window) throw new Error('no window was created');
  return window;
}

describe('the main window', () => {
  it('is created locked down, with the preload, hidden until ready', () => {
    const window = open();
    expect(window.options.show).toBe(false);
    expect(window.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      preload: '/app/dist/preload/index.cjs',
    });
    expect(window.options.webPreferences).not.toHaveProperty('enableBlinkFeatures');
    expect(window.options.webPreferences).not.toHaveProperty('partition');
  });

  it('loads the app from app://, never file://', () => {
    const window = open();
    expect(window.webContents.loadURL).toHaveBeenCalledExactlyOnceWith('app://desk/index.html');
  });

  it('shows itself when ready, unless launched at login', () => {
    const shown = open();
    shown.emit('ready-to-show');
    expect(shown.show).toHaveBeenCalled();

    const hidden = open({ startHidden: true });
    hidden.emit('ready-to-show');
    expect(hidden.show).not.toHaveBeenCalled();
  });

  it('hides to the tray when closed, instead of quitting', () => {
    const window = open();
    window.visible = true;
    window.close();
    expect(window.hide).toHaveBeenCalled();
    expect(window.destroyed).toBe(false);
  });

  it('closes for real once the app is quitting', () => {
    let quitting = false;
    const window = open({ quitting: () => quitting });
    quitting = true;
    window.close();
    expect(window.hide).not.toHaveBeenCalled();
    expect(window.destroyed).toBe(true);
  });

  it('does not hold up a Windows shutdown or log-off', () => {
    const window = open();
    window.emit('query-session-end', fakeEvent({ reasons: ['shutdown'] }));
    window.close();
    expect(window.hide).not.toHaveBeenCalled();
    expect(window.destroyed).toBe(true);
  });

  it('keeps its own title whatever the page says', () => {
    const window = open();
    const event = fakeEvent();
    window.emit('page-title-updated', event, 'something else');
    expect(event.defaultPrevented).toBe(true);
  });

  it('comes back from the tray, minimized or not', () => {
    const window = open();
    window.minimized = true;
    revealWindow(asElectron<BrowserWindow>(window));
    expect(window.restore).toHaveBeenCalled();
    expect(window.show).toHaveBeenCalled();
    expect(window.focus).toHaveBeenCalled();
    expect(() => revealWindow(undefined)).not.toThrow();
  });

  it('has options with no icon unless given one', () => {
    expect(mainWindowOptions('/p.cjs', { devTools: false })).not.toHaveProperty('icon');
    expect(mainWindowOptions('/p.cjs', { iconFile: '/icon.png', devTools: false })).toMatchObject({
      icon: '/icon.png',
    });
  });

  it('has DevTools only when told (a development run)', () => {
    expect(open().options.webPreferences?.devTools).toBe(false);
    expect(open({ devTools: true }).options.webPreferences?.devTools).toBe(true);
  });
});
