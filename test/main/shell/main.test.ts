import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eventually } from '../../support/outcomes';
import { DESK_INVOKE_CHANNEL } from '../../../shared/ipc/channels';
import { openDataDir } from '../../../main/app/desk-core';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import type * as FakeElectronModule from './fake-electron';

vi.mock('electron', () => import('./fake-electron'));

type FakeElectron = typeof FakeElectronModule;

let folder: TempFolder;
let running: FakeElectron | undefined;

beforeEach(() => {
  vi.resetModules();
  folder = makeTempFolder('desk-shell-main-');
});

afterEach(async () => {
  // Let a started app close its data folder, as a real quit does.
  if (running) await quitApp(running);
  running = undefined;
  folder.remove();
});

/** Starts main.ts against a fresh fake Electron (the very instance main.ts imports). */
async function launch(options: {
  lock: boolean;
  packaged?: boolean;
  switches?: readonly string[];
}): Promise<FakeElectron> {
  const fake = (await import('electron')) as unknown as FakeElectron;
  fake.resetFakeElectron();
  fake.app.hasLock = options.lock;
  // As packaged by default: the log goes to its file only, not to the test's output.
  fake.app.isPackaged = options.packaged ?? true;
  fake.app.switches = new Set(options.switches ?? []);
  fake.app.paths = { userData: folder.file('user-data'), documents: folder.file('documents') };
  vi.spyOn(fake.app, 'whenReady');
  resourcesBeforeLaunch = process.getActiveResourcesInfo();
  await import('../../../main/shell/main');
  return fake;
}

/** Timers and I/O under way before main.ts ran (vitest's own): what it adds shows in the difference. */
let resourcesBeforeLaunch: string[] = [];

/** The timers and I/O requests under way now that were not before the launch. */
function resourcesAddedByLaunch(): string[] {
  const added = process.getActiveResourcesInfo();
  for (const before of resourcesBeforeLaunch) {
    const index = added.indexOf(before);
    if (index !== -1) added.splice(index, 1);
  }
  return added;
}

/**
 * Nothing was started and nothing can start later: the desk starts only once the app is ready
 * (Electron creates no window before), and this run never asked for that moment, listens for no
 * app event and left no timer or I/O under way. A check of what is, not a wait for what might come.
 */
function expectNothingStarted(fake: FakeElectron): void {
  expect(fake.app.whenReady).not.toHaveBeenCalled();
  expect(fake.app.eventNames()).toEqual([]);
  // No timer, file or socket work left behind that could start something later.
  expect(resourcesAddedByLaunch()).toEqual([]);
  expect(fake.FakeBrowserWindow.windows).toHaveLength(0);
  expect(fake.ipcMain.handlers.size).toBe(0);
  expect(fake.FakeTray.trays).toHaveLength(0);
}

async function launchReady(
  options: { packaged?: boolean; switches?: readonly string[] } = {},
): Promise<FakeElectron> {
  const fake = await launch({ lock: true, ...options });
  running = fake;
  await eventually(() => expect(fake.FakeTray.trays).toHaveLength(1));
  await eventually(() => expect(fake.app.listenerCount('will-quit')).toBe(1));
  return fake;
}

function mainWindow(fake: FakeElectron) {
  const window = fake.FakeBrowserWindow.windows[0];
  if (!window) throw new Error('no main window');
  return window;
}

/** Every role in a menu, submenus included. */
function rolesIn(items: readonly FakeElectronModule.FakeMenuItem[]): string[] {
  return items.flatMap((item) => [...(item.role ? [item.role] : []), ...rolesIn(item.submenu ?? [])]);
}

async function quitApp(fake: FakeElectron): Promise<void> {
  const quits = fake.app.quit.mock.calls.length;
  fake.app.emit('before-quit', fake.fakeEvent());
  for (const window of fake.FakeBrowserWindow.windows) window.close();
  const willQuit = fake.fakeEvent();
  fake.app.emit('will-quit', willQuit);
  if (willQuit.defaultPrevented)
    await eventually(() => expect(fake.app.quit.mock.calls.length).toBeGreaterThan(quits));
}

describe('the Electron entry point', () => {
  it('quits at once when another instance holds the lock, creating nothing', async () => {
    const fake = await launch({ lock: false });
    expect(fake.app.requestSingleInstanceLock).toHaveBeenCalledOnce();
    expect(fake.app.quit).toHaveBeenCalledOnce();
    expectNothingStarted(fake);
  });

  it('uses the user-data folder given as --user-data-dir, set before the single-instance lock', async () => {
    const chosen = folder.file('chosen-user-data');
    const argv = process.argv;
    process.argv = [...argv, `--user-data-dir=${chosen}`];
    try {
      const fake = await launch({ lock: true });
      running = fake;
      expect(fake.app.setPath).toHaveBeenCalledWith('userData', chosen);
      expect(fake.app.setPath.mock.invocationCallOrder[0]).toBeLessThan(
        fake.app.requestSingleInstanceLock.mock.invocationCallOrder[0] ?? 0,
      );
      await eventually(() => expect(existsSync(join(chosen, 'data'))).toBe(true));
      await eventually(() => expect(fake.FakeTray.trays).toHaveLength(1));
    } finally {
      process.argv = argv;
    }
  });

  it('registers the app:// scheme as privileged before anything else', async () => {
    const fake = await launch({ lock: false });
    expect(fake.protocol.privileged).toEqual([
      { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
    ]);
  });

  it('starts the desk: data folder, app:// pages, hardened main window, IPC and tray', async () => {
    const fake = await launchReady();
    expect(fake.app.quit).not.toHaveBeenCalled();
    expect(existsSync(join(folder.file('user-data'), 'data'))).toBe(true);
    expect(existsSync(join(folder.file('user-data'), 'logs', 'main.log'))).toBe(true);
    expect(fake.protocol.handlers.has('app')).toBe(true);
    expect(fake.ipcMain.handlers.has(DESK_INVOKE_CHANNEL)).toBe(true);

    const window = mainWindow(fake);
    expect(fake.FakeBrowserWindow.windows).toHaveLength(1);
    expect(window.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    });
    expect(String(window.options.webPreferences?.preload)).toMatch(/preload[\\/]index\.cjs$/);
    expect(window.webContents.loadURL).toHaveBeenCalledWith('app://desk/index.html');
    window.emit('ready-to-show');
    expect(window.show).toHaveBeenCalled();
  });

  it('hardens every webContents as it is created', async () => {
    const fake = await launchReady();
    const window = mainWindow(fake);
    expect(window.webContents.openWindow('https://evil.example/')).toEqual({ action: 'deny' });
    expect(window.webContents.navigate('will-navigate', 'https://evil.example/')).toBe(true);
    const webview = fake.fakeEvent();
    window.webContents.emit('will-attach-webview', webview, {}, {});
    expect(webview.defaultPrevented).toBe(true);

    const later = new fake.FakeBrowserWindow({ webPreferences: { partition: 'other' } });
    expect(later.webContents.openWindow('https://evil.example/')).toEqual({ action: 'deny' });
    expect(await later.webContents.session.requestPermission('media', 'https://evil.example/')).toBe(false);
  });

  it('denies permissions to the app’s pages but clipboard writing', async () => {
    const fake = await launchReady();
    const ses = fake.session.defaultSession;
    expect(await ses.requestPermission('media', 'app://desk/index.html')).toBe(false);
    expect(await ses.requestPermission('geolocation', 'app://desk/index.html')).toBe(false);
    expect(ses.checkPermission('notifications', 'app://desk')).toBe(false);
    expect(await ses.requestPermission('clipboard-sanitized-write', 'app://desk/index.html')).toBe(true);
  });

  it('serves the real desk service to the main window through IPC', async () => {
    const fake = await launchReady();
    const window = mainWindow(fake);
    await window.loadURL('app://desk/index.html');
    const from = { sender: window.webContents, senderFrame: window.webContents.mainFrame };
    expect(await fake.ipcMain.invoke(DESK_INVOKE_CHANNEL, from, 'app.info', [])).toEqual({
      ok: true,
      value: {
        host: 'electron',
        version: '0.1.0-test',
        dataDir: join(folder.file('user-data'), 'data'),
        trackingPaused: false,
        language: expect.any(String),
        locale: expect.any(String),
        languageSetting: 'system',
        systemLanguage: expect.any(String),
        damagedBatches: [],
      },
    });
    expect(await fake.ipcMain.invoke(DESK_INVOKE_CHANNEL, from, 'batches.create', [42])).toMatchObject({
      ok: false,
      error: { code: 'invalid_arguments' },
    });
    const created = await fake.ipcMain.invoke(DESK_INVOKE_CHANNEL, from, 'batches.create', ['Monday']);
    expect(created).toMatchObject({ ok: true, value: { name: 'Monday' } });
    expect(window.webContents.sent.some(([, event]) => event === 'batch.changed')).toBe(true);
  });

  it('packaged: our own menu before the window, with no Reload or DevTools, and a window without DevTools', async () => {
    const fake = await launchReady({ packaged: true });
    const menu = fake.Menu.application;
    expect(fake.Menu.setApplicationMenu).toHaveBeenCalled();
    expect(menu?.items.map((item) => item.label)).toEqual(
      process.platform === 'darwin'
        ? ['Signing Batch Desk', 'Edit', 'View', 'Window']
        : ['Edit', 'View', 'Window', 'Help'],
    );
    const roles = rolesIn(menu?.items ?? []);
    expect(roles).toEqual(expect.arrayContaining(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll']));
    expect(roles).not.toContain('toggleDevTools');
    expect(roles).not.toContain('reload');
    expect(roles).not.toContain('forceReload');
    const window = mainWindow(fake);
    expect(window.options.webPreferences?.devTools).toBe(false);
    // Installed before the window loads anything: no moment with Electron's default menu.
    expect(fake.Menu.setApplicationMenu.mock.invocationCallOrder[0]).toBeLessThan(
      window.webContents.loadURL.mock.invocationCallOrder[0] ?? 0,
    );
  });

  it('in a development run: Reload and DevTools in the menu, DevTools in the window', async () => {
    const fake = await launchReady({ packaged: false });
    expect(rolesIn(fake.Menu.application?.items ?? [])).toEqual(
      expect.arrayContaining(['reload', 'forceReload', 'toggleDevTools']),
    );
    expect(mainWindow(fake).options.webPreferences?.devTools).toBe(true);
  });

  it.each(['remote-debugging-port', 'remote-debugging-pipe', 'inspect', 'inspect-brk', 'js-flags'])(
    'packaged: refuses to run with --%s, before any window, saying why in the log',
    async (name) => {
      const fake = await launch({ lock: true, packaged: true, switches: [name] });
      expect(fake.app.exit).toHaveBeenCalledWith(1);
      expectNothingStarted(fake);
      expect(fake.app.requestSingleInstanceLock).not.toHaveBeenCalled();
      expect(existsSync(join(folder.file('user-data'), 'data'))).toBe(false);
      const log = readFileSync(join(folder.file('user-data'), 'logs', 'main.log'), 'utf8');
      expect(log).toContain('"app.debugging_refused"');
      expect(log).toContain(`"${name}"`);
    },
  );

  it('in a development run: runs with --remote-debugging-port, as Playwright launches it', async () => {
    const fake = await launchReady({ packaged: false, switches: ['remote-debugging-port'] });
    expect(fake.app.exit).not.toHaveBeenCalled();
    expect(fake.FakeBrowserWindow.windows).toHaveLength(1);
  });

  it('speaks the desk’s language in the menu and the tray when the person changes it', async () => {
    const fake = await launchReady();
    const window = mainWindow(fake);
    await window.loadURL('app://desk/index.html');
    const from = { sender: window.webContents, senderFrame: window.webContents.mainFrame };
    const tray = fake.FakeTray.trays[0];
    const quitLabel = () => tray?.contextMenu?.items.find((item) => item.id === 'quit')?.label;
    expect(await fake.ipcMain.invoke(DESK_INVOKE_CHANNEL, from, 'app.setLanguage', ['fr'])).toMatchObject({
      ok: true,
      value: { language: 'fr' },
    });
    expect(fake.Menu.application?.items.map((item) => item.label)).toContain('Édition');
    // At once, not at the next count change: nothing else refreshes an idle tray.
    expect(tray?.tooltip).toBe(
      'Signing Batch Desk — 0 envoi en cours · 0 en attente de signatures · 0 terminé aujourd’hui',
    );
    expect(quitLabel()).toBe('Quitter');
    await fake.ipcMain.invoke(DESK_INVOKE_CHANNEL, from, 'app.setLanguage', ['de']);
    expect(tray?.tooltip).toBe(
      'Signing Batch Desk — 0 werden gesendet · 0 warten auf Unterschriften · 0 heute abgeschlossen',
    );
    expect(quitLabel()).toBe('Beenden');
  });

  it('says why it cannot start in the desk’s language: a data folder another process holds, in German', async () => {
    const dataDir = join(folder.file('user-data'), 'data');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ language: 'de', trackingPaused: false }));
    const held = await openDataDir(dataDir);
    try {
      const fake = await launch({ lock: true });
      await eventually(() => expect(fake.dialog.showErrorBox).toHaveBeenCalledOnce());
      const [title, message] = fake.dialog.showErrorBox.mock.calls[0] ?? [];
      expect(title).toBe('Signing Batch Desk kann nicht starten');
      expect(message).toContain(
        `Der Datenordner ${dataDir} wird von einem anderen Prozess verwendet (PID ${process.pid} auf diesem Computer, läuft seit `,
      );
      expect(message).toMatch(
        /läuft seit \d{4}-\d{2}-\d{2} \d{2}:\d{2}\)\. Schließen Sie ihn oder warten Sie, bis er fertig ist\.$/,
      );
      expect(fake.app.quit).toHaveBeenCalled();
      expect(fake.FakeTray.trays).toHaveLength(0);
    } finally {
      if (held.ok) await held.value.close();
    }
  });

  it('pauses tracking from the tray menu', async () => {
    const fake = await launchReady();
    const window = mainWindow(fake);
    await window.loadURL('app://desk/index.html');
    const tray = fake.FakeTray.trays[0];
    tray?.contextMenu?.click('pause-tracking');
    const from = { sender: window.webContents, senderFrame: window.webContents.mainFrame };
    expect(await fake.ipcMain.invoke(DESK_INVOKE_CHANNEL, from, 'app.info', [])).toMatchObject({
      value: { trackingPaused: true },
    });
    expect(tray?.contextMenu?.items.find((item) => item.id === 'pause-tracking')?.checked).toBe(true);
  });

  it('focuses the existing window when a second instance is launched', async () => {
    const fake = await launchReady();
    const window = mainWindow(fake);
    window.close();
    expect(window.visible).toBe(false);
    window.minimized = true;
    fake.app.emit('second-instance', fake.fakeEvent(), ['desk'], '/');
    expect(window.restore).toHaveBeenCalled();
    expect(window.show).toHaveBeenCalled();
    expect(window.focus).toHaveBeenCalled();
    expect(fake.FakeBrowserWindow.windows).toHaveLength(1);
  });

  it('stays in the tray when its window is closed', async () => {
    const fake = await launchReady();
    const window = mainWindow(fake);
    window.close();
    expect(window.hide).toHaveBeenCalled();
    expect(window.destroyed).toBe(false);
    expect(fake.app.quit).not.toHaveBeenCalled();
    expect(fake.app.listenerCount('window-all-closed')).toBeGreaterThan(0);

    fake.FakeTray.trays[0]?.contextMenu?.click('open');
    expect(window.show).toHaveBeenCalled();
  });

  it('quits from the tray, closing the window and the data folder', async () => {
    const fake = await launchReady();
    fake.FakeTray.trays[0]?.contextMenu?.click('quit');
    expect(fake.app.quit).toHaveBeenCalledOnce();
    await quitApp(fake);
    running = undefined;
    expect(mainWindow(fake).destroyed).toBe(true);
    expect(fake.FakeTray.trays[0]?.destroyed).toBe(true);
    expect(fake.ipcMain.handlers.size).toBe(0);
    const reopened = await openDataDir(join(folder.file('user-data'), 'data'));
    expect(reopened.ok).toBe(true);
    if (reopened.ok) await reopened.value.close();
  });
});
