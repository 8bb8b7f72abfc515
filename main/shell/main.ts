/**
 * Electron entry point: the composition root of the shell. One instance per user-data folder;
 * the app's pages come from `app://desk/`; every webContents is hardened as it is created; the
 * desk service runs over the data folder and is reached only through the IPC bridge; the app
 * lives on in the tray with its window closed and quits from the tray menu.
 */
// First: the bundled CommonJS dependencies below need `require` while they load.
import { app, dialog, session, type BrowserWindow } from 'electron';
import type { DeskHandlers, EventChannel } from '../../shared/ipc/contract';
import type { AppInfo } from '../../shared/ipc/views';
import { resolveLanguage } from '../../shared/i18n/languages';
import { createTranslator, type Translator } from '../../shared/i18n/translator';
import { createDeskService } from '../app/desk-service';
import { SettingsFile } from '../app/desk-settings';
import { openDataDir } from '../app/desk-core';
import type { Logger } from '../base/log';
import { speaking } from '../base/words';
import { installAppMenu } from './app-menu';
import { registerAppScheme, serveAppScheme } from './app-protocol';
import { createCeremonyWindows } from './ceremony-window';
import { connectionTester } from '../app/connection-tester';
import type { DemoProvider } from '../app/ports';
import { createSystemDialogs } from './dialogs';
import { registerDeskIpc, type DeskIpc } from './ipc-bridge';
import { openLogFile, openLogFileSync } from './log-file';
import { launchedAtLogin, systemLoginItem } from './login-item';
import { createMainWindow, revealWindow } from './main-window';
import { createSystemNotifier, prepareNotifications } from './notifications';
import { APP_ENTRY_URL, shellPaths, userDataDirArgument, type ShellPaths } from './paths';
import { openProfileRegistry } from '../app/profile-registry';
import {
  APP_PAGE_PERMISSIONS,
  applyPermissionPolicy,
  EXTERNAL_LINK_ORIGINS,
  hardenAllWebContents,
  isDevelopmentRun,
  refusedDebuggingSwitches,
} from './security';
import { createDeskTray, type DeskTray } from './tray';

/** Events that can change the tray's counts. */
const TRAY_EVENTS: ReadonlySet<EventChannel> = new Set<EventChannel>([
  'batch.changed',
  'batch.deleted',
  'sending.state',
  'tracking.status',
  'tracking.completed',
  'tracking.paused',
]);

/**
 * The built-in simulator as the demo connection, loaded on first use. Production builds define
 * DESK_DEVELOPMENT_BUILD as false, so the bundler leaves the simulator out of installers.
 */
function lazySimulatorDemo(dataDir: string): DemoProvider {
  let provider: Promise<DemoProvider> | undefined;
  const load = () =>
    (provider ??= import('../app/simulator-demo').then((module) => module.simulatorDemo(dataDir)));
  return {
    async start() {
      return (await load()).start();
    },
    async resume() {
      return (await load()).resume?.();
    },
  };
}

/**
 * The language the desk speaks, known before it starts (its setting in the data folder, or the
 * OS's): the words of a start that fails.
 */
function startupWords(dataDir: string): Translator['t'] {
  const setting = new SettingsFile(dataDir).get().language;
  const { language, locale } = resolveLanguage(setting, app.getPreferredSystemLanguages());
  return createTranslator(language, locale).t;
}

/** The app's menu in the language `info` says the desk speaks. */
function installMenuFor(info: Pick<AppInfo, 'language' | 'locale'>): void {
  installAppMenu({
    productName: app.getName(),
    platform: process.platform,
    development: isDevelopmentRun(app),
    t: createTranslator(info.language, info.locale).t,
  });
}

/**
 * The handlers, with the menu and the tray following the desk's language when the person
 * changes it (`onLanguage` gets the new language).
 */
function withLanguageFollowers(
  handlers: DeskHandlers,
  onLanguage: (info: Pick<AppInfo, 'language' | 'locale'>) => void,
): DeskHandlers {
  return {
    ...handlers,
    'app.setLanguage': async (setting) => {
      const info = await handlers['app.setLanguage'](setting);
      onLanguage(info);
      return info;
    },
  };
}

/** Wires the app once Electron is ready; returns what must run before the process exits. */
async function startDesk(
  paths: ShellPaths,
  logger: Logger,
  state: { mainWindow: BrowserWindow | undefined; quitting: boolean },
): Promise<(() => Promise<void>) | undefined> {
  applyPermissionPolicy(session.defaultSession, APP_PAGE_PERMISSIONS);
  serveAppScheme(paths.rendererDir);

  const t = startupWords(paths.dataDir);
  const opened = await speaking(t, () => openDataDir(paths.dataDir));
  if (!opened.ok) {
    dialog.showErrorBox(t('shell.cannotStartTitle', { name: app.getName() }), opened.error);
    app.quit();
    return undefined;
  }
  const dataDir = opened.value;
  const mainWebContents = () =>
    state.mainWindow && !state.mainWindow.isDestroyed() ? state.mainWindow.webContents : undefined;
  const showWindow = () => revealWindow(state.mainWindow);

  // Where events go; both are created right after the service that emits them.
  const outlets: { ipc?: DeskIpc; tray?: DeskTray } = {};
  const notifier = createSystemNotifier(showWindow);
  const service = createDeskService({
    host: 'electron',
    version: app.getVersion(),
    dataDir,
    // Connection profiles: settings in the data folder, secrets in the OS keychain.
    profiles: openProfileRegistry(dataDir.path),
    dialogs: createSystemDialogs({ window: () => state.mainWindow, documentsDir: app.getPath('documents') }),
    ceremony: createCeremonyWindows({ logger }),
    notifier,
    emit: (event, payload) => {
      outlets.ipc?.emit(event, payload);
      if (TRAY_EVENTS.has(event)) outlets.tray?.scheduleRefresh();
    },
    // From the source folder (npm start), the built-in simulator is offered as a demo connection.
    // The literal flag first lets the bundler drop the simulator from installers' bundles.
    ...(DESK_DEVELOPMENT_BUILD && isDevelopmentRun(app) ? { demo: lazySimulatorDemo(paths.dataDir) } : {}),
    logger,
    systemLocales: () => app.getPreferredSystemLanguages(),
    testConnection: connectionTester(logger),
  });
  // Ours before any window exists: Electron's default menu opens DevTools (Ctrl+Shift+I).
  installMenuFor(await service.handlers['app.info']());
  const followLanguage = (info: Pick<AppInfo, 'language' | 'locale'>) => {
    installMenuFor(info);
    outlets.tray?.refresh();
  };
  outlets.ipc = registerDeskIpc({
    handlers: withLanguageFollowers(service.handlers, followLanguage),
    logger,
    mainWebContents,
  });
  state.mainWindow = createMainWindow({
    preloadFile: paths.preloadFile,
    url: APP_ENTRY_URL,
    iconFile: paths.windowIcon,
    startHidden: launchedAtLogin(app, process.argv, process.platform),
    isQuitting: () => state.quitting,
    devTools: isDevelopmentRun(app),
    logger,
  });
  outlets.tray = createDeskTray({
    iconFile: paths.trayIcon,
    productName: app.getName(),
    service,
    words: () => service.translator().t,
    openWindow: showWindow,
    quit: () => app.quit(),
    tellProblem: (title, message) => notifier.notify(title, message),
    loginItem: systemLoginItem(app, process.platform),
  });
  await service.start();
  logger.log('info', 'app.started', { version: app.getVersion(), packaged: app.isPackaged });

  return async () => {
    outlets.tray?.destroy();
    outlets.ipc?.dispose();
    await service.close();
    await dataDir.close();
  };
}

/** Where this app's files are. */
function appShellPaths(): ShellPaths {
  return shellPaths({
    bundleDir: import.meta.dirname,
    userData: app.getPath('userData'),
    appPath: app.getAppPath(),
    packaged: app.isPackaged,
    resourcesPath: process.resourcesPath,
  });
}

/**
 * True (after saying why in the log) when this run was started with a debugging switch it must
 * refuse: a packaged build relaunched with --remote-debugging-port would let any program attach
 * to its windows. Only the switches' names are logged, never their values.
 */
function refusesDebugging(): boolean {
  const switches = refusedDebuggingSwitches(app);
  if (switches.length === 0) return false;
  openLogFileSync(appShellPaths().logFile).log('error', 'app.debugging_refused', { switches });
  return true;
}

function runDesk(): void {
  const paths = appShellPaths();
  const logger = openLogFile(paths.logFile, !app.isPackaged);
  const state: { mainWindow: BrowserWindow | undefined; quitting: boolean } = {
    mainWindow: undefined,
    quitting: false,
  };
  /** Closes what the start opened; settles once the start has ended, whether or not it succeeded. */
  let startup: Promise<(() => Promise<void>) | undefined> = Promise.resolve(undefined);
  let shuttingDown = false;

  hardenAllWebContents(app, { externalOrigins: EXTERNAL_LINK_ORIGINS, logger });
  prepareNotifications(app, process.platform);
  app.on('second-instance', () => revealWindow(state.mainWindow));
  app.on('activate', () => revealWindow(state.mainWindow));
  // Closing the last window leaves the app in the tray: a listener here stops the default quit.
  app.on('window-all-closed', () => undefined);
  app.on('before-quit', () => {
    state.quitting = true;
  });
  app.on('will-quit', (event) => {
    if (shuttingDown) return;
    shuttingDown = true;
    // Batches and the data folder lock are closed before the process exits, also when the
    // person quits from the tray while the desk is still starting: the start is awaited first.
    event.preventDefault();
    void startup
      // A start that failed was reported where it failed; there is nothing of it to close.
      .catch(() => undefined)
      .then((close) => close?.())
      .catch((error: unknown) =>
        logger.log('error', 'app.shutdown_failed', {
          error: error instanceof Error ? error.name : typeof error,
        }),
      )
      .finally(() => app.quit());
  });

  startup = app.whenReady().then(() => startDesk(paths, logger, state));
  void startup.catch((error: unknown) => {
    logger.log('error', 'app.start_failed', { error: error instanceof Error ? error.name : typeof error });
    const t = startupWords(paths.dataDir);
    dialog.showErrorBox(t('shell.cannotStartTitle', { name: app.getName() }), t('shell.cannotStart'));
    app.quit();
  });
}

// Must run before the app is ready.
registerAppScheme();
const userDataDir = userDataDirArgument(process.argv);
if (userDataDir) app.setPath('userData', userDataDir);

if (refusesDebugging()) {
  // Before any window, any IPC handler and the single-instance lock: nothing to attach to.
  app.exit(1);
} else if (app.requestSingleInstanceLock()) {
  runDesk();
} else {
  // Another instance owns this user-data folder: it gets the 'second-instance' event and shows itself.
  app.quit();
}
