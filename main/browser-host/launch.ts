/**
 * Wires the browser host: the data folder, the profiles (keychain), the desk service with the
 * browser's stand-ins for dialogs, ceremony windows and notifications, and the host server.
 * The command line entry (index.ts) and the end-to-end tests both start it through here.
 */
import { join } from 'node:path';
import packageJson from '../../package.json' with { type: 'json' };
import { DeskError } from '../app/desk-error';
import { createDeskService, type DeskService } from '../app/desk-service';
import type { CeremonyOpener, DemoProvider, Notifier, ProfileRegistry } from '../app/ports';
import { connectionTester } from '../app/connection-tester';
import { simulatorDemo } from '../app/simulator-demo';
import { openProfileRegistry } from '../app/profile-registry';
import { createKeytarCredentialStore, type CredentialStore } from '../credentials/credential-store';
import { openDataDir, type ConnectionTuning } from '../app/desk-core';
import { silentLogger, type Logger } from '../base/log';
import type { BridgeTuning } from './bridge-pages';
import { openAppWindow, removeOrphanedWindowFolders, type AppWindow } from './app-window';
import { createChromiumCeremonyOpener, type ClosableCeremonyOpener } from './chromium-ceremony-opener';
import { createPromptedDialogs, processPathBases } from './host-dialogs';
import { startBrowserHost, type BrowserHost } from './host-server';
import { posixLocales } from '../app/system-locales';
import { words } from '../base/words';

export { simulatorDemo };

export interface BrowserHostLaunchOptions {
  /** The data folder (created if needed, locked for this process). */
  readonly dataDir: string;
  /** Default 0: any free port. */
  readonly port?: number;
  /** Default: each ceremony in a Chromium app window. Tests pass one that opens a Playwright page. */
  readonly ceremonyOpener?: CeremonyOpener;
  /** Default: the simulator, started in this process on first use; `false` offers no demo. */
  readonly demo?: DemoProvider | false;
  /** Default: `<dataDir>/profiles.json` with secrets in the OS keychain. */
  readonly profiles?: ProfileRegistry;
  readonly tuning?: ConnectionTuning;
  readonly logger?: Logger;
  /** Default: dist/renderer, next to this bundle's folder. */
  readonly rendererDir?: string;
  /** Default: desk-bridge.js next to this bundle. */
  readonly bridgeScriptPath?: string;
  /** The browser for windows (default /usr/bin/chromium). */
  readonly chromiumPath?: string;
  /** The system's preferred locales (default: the POSIX environment's). */
  readonly systemLocales?: readonly string[];
  /**
   * The home folder: `~/…` in prompts, and the Downloads folder reports are saved in (default:
   * this user's). Tests give one of their own, so no real user folder is touched.
   */
  readonly home?: string;
  /** Tests only: the bridge's quicker pings and fewer kept events. */
  readonly bridgeTuning?: BridgeTuning;
}

/** A running browser host. */
export interface LaunchedBrowserHost {
  /** The app's address with this launch's secret: `http://127.0.0.1:PORT/#secret=…`. */
  readonly url: string;
  readonly origin: string;
  readonly service: DeskService;
  /** Opens the app in a Chromium app window (its address never on the command line). */
  openWindow(): Promise<AppWindow>;
  /** Closes windows, pages, the service, the demo simulator and the data folder, in that order. */
  close(): Promise<void>;
}

/** The app's profiles: `<dataDir>/profiles.json` with secrets in `credentials` (the OS keychain). */
export function profileRegistry(
  dataDir: string,
  credentials: CredentialStore = createKeytarCredentialStore(),
): ProfileRegistry {
  return openProfileRegistry(dataDir, credentials);
}

/** A notification becomes a log line: the browser host is for development, and these hold no secret. */
function loggingNotifier(logger: Logger): Notifier {
  return { notify: (title, body) => logger.log('info', 'notification', { title, body }) };
}

/**
 * Starts the browser host over `dataDir`: opens the data folder, builds the desk service
 * (host 'browser'), starts the server and resumes unfinished work. Throws with a readable
 * message when the data folder is in use or the port cannot be taken.
 */
export async function launchBrowserHost(options: BrowserHostLaunchOptions): Promise<LaunchedBrowserHost> {
  const logger = options.logger ?? silentLogger;
  const opened = await openDataDir(options.dataDir);
  if (!opened.ok) throw new Error(opened.error);
  // Window folders of a host that was killed before it could remove them.
  const orphaned = await removeOrphanedWindowFolders();
  if (orphaned > 0) logger.log('info', 'app_window.orphans_removed', { count: orphaned });
  const dataDir = opened.value;
  const demo = options.demo === false ? undefined : (options.demo ?? simulatorDemo(options.dataDir));
  const ownDemo = options.demo === undefined ? (demo as ReturnType<typeof simulatorDemo>) : undefined;
  const windows = new Set<AppWindow>();
  // The service needs `emit` and the opener needs one-time links before the host exists.
  let host: BrowserHost | undefined;
  const requireHost = (): BrowserHost => {
    if (!host) throw new DeskError('host_stopped', words()('host.notRunning'));
    return host;
  };
  const chromiumOpener: ClosableCeremonyOpener | undefined = options.ceremonyOpener
    ? undefined
    : createChromiumCeremonyOpener({
        handoff: (target) => requireHost().handoff(target),
        logger,
        ...(options.chromiumPath ? { executable: options.chromiumPath } : {}),
      });
  const profiles = options.profiles ?? profileRegistry(dataDir.path);
  const tuning = { logger, ...options.tuning };
  const service = createDeskService({
    host: 'browser',
    version: packageJson.version,
    dataDir,
    profiles,
    dialogs: createPromptedDialogs(processPathBases(options.home)),
    ceremony: options.ceremonyOpener ?? (chromiumOpener as ClosableCeremonyOpener),
    notifier: loggingNotifier(logger),
    emit: (event, payload) => host?.emit(event, payload),
    ...(demo ? { demo } : {}),
    logger,
    tuning,
    systemLocales: () => options.systemLocales ?? posixLocales(),
    testConnection: connectionTester(logger, tuning),
  });

  try {
    host = await startBrowserHost({
      handlers: service.handlers,
      logger,
      rendererDir: options.rendererDir ?? join(import.meta.dirname, '..', 'renderer'),
      ...(options.bridgeScriptPath ? { bridgeScriptPath: options.bridgeScriptPath } : {}),
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.bridgeTuning ? { bridgeTuning: options.bridgeTuning } : {}),
      words: () => service.translator().t,
    });
    await service.start();
  } catch (error) {
    await host?.close();
    await service.close();
    await ownDemo?.close();
    await dataDir.close();
    throw error;
  }
  const running = host;

  let closing: Promise<void> | undefined;
  return {
    url: running.url,
    origin: running.origin,
    service,
    async openWindow() {
      const window = await openAppWindow({
        url: running.handoff(async () => ({ location: running.url })),
        label: 'main',
        logger,
        ...(options.chromiumPath ? { executable: options.chromiumPath } : {}),
      });
      windows.add(window);
      void window.exited.then(() => windows.delete(window));
      return window;
    },
    close() {
      closing ??= (async () => {
        await Promise.all([...windows].map((window) => window.close()));
        await chromiumOpener?.closeAll();
        await running.close();
        await service.close();
        await ownDemo?.close();
        await dataDir.close();
      })();
      return closing;
    },
  };
}
