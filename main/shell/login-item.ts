/**
 * "Start at login" through the OS's login items (macOS and Windows; Electron offers none on
 * Linux). A login launch starts in the tray, with the window hidden.
 */
import type { App } from 'electron';
import type { LoginItem } from './tray';

/** Passed to the app by the login item so it starts hidden (Windows; macOS tells us itself). */
export const START_HIDDEN_FLAG = '--hidden';

/** The OS login item, or undefined where Electron cannot set one. */
export function systemLoginItem(app: App, platform: NodeJS.Platform): LoginItem | undefined {
  if (platform !== 'darwin' && platform !== 'win32') return undefined;
  return {
    isEnabled: () => app.getLoginItemSettings().openAtLogin,
    setEnabled: (enabled) => app.setLoginItemSettings({ openAtLogin: enabled, args: [START_HIDDEN_FLAG] }),
  };
}

/** True when this launch came from the login item: the window then stays in the tray. */
export function launchedAtLogin(app: App, argv: readonly string[], platform: NodeJS.Platform): boolean {
  if (argv.includes(START_HIDDEN_FLAG)) return true;
  return platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin;
}
