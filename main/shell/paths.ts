import { join } from 'node:path';

/** The privileged scheme the app's own pages are served from (never `file://`). */
export const APP_SCHEME = 'app';
export const APP_HOST = 'desk';
/** Written out because `new URL('app://desk').origin` is "null" for non-special schemes. */
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/** Where the shell finds its bundles and keeps its files. */
export interface ShellPaths {
  /** The built renderer (dist/renderer), served over `app://`. */
  readonly rendererDir: string;
  /** The sandboxed preload bundle (dist/preload/index.cjs). */
  readonly preloadFile: string;
  readonly trayIcon: string;
  readonly windowIcon: string;
  /** The data folder: batches and PDF copies (the same layout the command line's --data-dir uses). */
  readonly dataDir: string;
  readonly logFile: string;
}

export interface ShellPathInputs {
  /** The folder of the main bundle (dist/main). */
  readonly bundleDir: string;
  /** `app.getPath('userData')`. */
  readonly userData: string;
  /** `app.getAppPath()`: the project folder in development, app.asar when packaged. */
  readonly appPath: string;
  readonly packaged: boolean;
  /** `process.resourcesPath` (packaged only): where electron-builder's extraResources land. */
  readonly resourcesPath: string | undefined;
}

const USER_DATA_SWITCH = '--user-data-dir=';

/**
 * The folder given as `--user-data-dir=PATH` (tests, a second profile on one account), or
 * undefined. The shell applies it before anything reads the user-data folder, the
 * single-instance lock included (that lock is per folder).
 */
export function userDataDirArgument(argv: readonly string[]): string | undefined {
  const given = argv
    .find((argument) => argument.startsWith(USER_DATA_SWITCH))
    ?.slice(USER_DATA_SWITCH.length);
  return given ? given : undefined;
}

/** Resolves every path the shell needs, for development and packaged runs alike. */
export function shellPaths(inputs: ShellPathInputs): ShellPaths {
  const iconDir =
    inputs.packaged && inputs.resourcesPath ? inputs.resourcesPath : join(inputs.appPath, 'build');
  return {
    rendererDir: join(inputs.bundleDir, '..', 'renderer'),
    preloadFile: join(inputs.bundleDir, '..', 'preload', 'index.cjs'),
    trayIcon: join(iconDir, 'tray.png'),
    windowIcon: join(iconDir, 'icon.png'),
    dataDir: join(inputs.userData, 'data'),
    logFile: join(inputs.userData, 'logs', 'main.log'),
  };
}
