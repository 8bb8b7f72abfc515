/**
 * "Start at login": the OS login items on macOS and Windows; on Linux, where Electron offers
 * none, a freedesktop autostart entry (`~/.config/autostart/<app id>.desktop`) that desktop
 * sessions (GNOME, KDE, Xfce…) run at login. A login launch starts in the tray, window hidden.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { App } from 'electron';
import type { LoginItem } from './tray';

/** Passed to the app by the login item so it starts hidden (Windows, Linux; macOS tells us itself). */
export const START_HIDDEN_FLAG = '--hidden';

/** The app id of electron-builder.yml: it names the autostart entry. */
export const AUTOSTART_ID = 'com.example.signingbatchdesk';

export interface LinuxAutostartOptions {
  /** `$XDG_CONFIG_HOME`, or `~/.config`. */
  readonly configDir: string;
  /** What to run: the AppImage (`$APPIMAGE`) or the installed executable. */
  readonly executable: string;
  readonly productName: string;
}

/**
 * Control characters a key file's string value cannot hold (the Desktop Entry Specification
 * allows none raw, and escapes only tab, line feed and carriage return).
 */
const UNWRITABLE = /(?![\t\n\r])\p{Cc}/gu;

/** The escapes of a key file's string values. */
const KEY_FILE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\n': '\\n',
  '\t': '\\t',
  '\r': '\\r',
};

/**
 * A value as a key file holds it (`\\`, `\n`, `\t`, `\r`; a leading space as `\s`, since a
 * reader drops the spaces after `=`): a line break in the value can never start a key of its own.
 */
function keyFileValue(value: string): string {
  const escaped = value.replace(/[\\\n\t\r]/g, (character) => KEY_FILE_ESCAPES[character]!);
  return escaped.replace(/^ /, '\\s');
}

/**
 * One Exec argument, quoted as the specification asks: in double quotes, with `"`, `` ` ``, `$`
 * and `\` escaped by a backslash, and `%` written `%%` so no part of it reads as a field code.
 * The key file's own escapes are applied over this by keyFileValue.
 */
function execArgument(value: string): string {
  return `"${value.replace(/(["`$\\])/g, '\\$1').replace(/%/g, '%%')}"`;
}

/**
 * The start of the Exec line. GLib refuses to load an entry whose program it cannot find, and
 * it looks for the program before it turns `%%` back into `%`: a path holding a `%` would never
 * be found and Start at login would silently do nothing. Such a path is handed to `env`, which
 * GLib finds, and which runs the path once the field codes are expanded.
 */
function execProgram(executable: string): string {
  const argument = execArgument(executable);
  return executable.includes('%') ? `${ENV_PROGRAM} ${argument}` : argument;
}
const ENV_PROGRAM = '/usr/bin/env';

/** The autostart entry's text: runs the app hidden at login. */
export function autostartEntry(options: LinuxAutostartOptions): string {
  // A path the entry would have to alter is refused rather than written as another program.
  if (options.executable.match(UNWRITABLE))
    throw new Error(
      `Start at login cannot be set up: the app's path contains a control character a desktop entry cannot hold (${JSON.stringify(options.executable)}).`,
    );
  return [
    '[Desktop Entry]',
    'Type=Application',
    `Name=${keyFileValue(options.productName.replace(UNWRITABLE, ' '))}`,
    `Exec=${keyFileValue(`${execProgram(options.executable)} ${START_HIDDEN_FLAG}`)}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}
/** A login item over `<configDir>/autostart/<app id>.desktop`: present means enabled. */
export function linuxAutostartItem(options: LinuxAutostartOptions): LoginItem {
  const folder = join(options.configDir, 'autostart');
  const file = join(folder, `${AUTOSTART_ID}.desktop`);
  return {
    isEnabled: () => existsSync(file),
    setEnabled(enabled) {
      if (!enabled) {
        rmSync(file, { force: true });
        return;
      }
      mkdirSync(folder, { recursive: true });
      writeFileSync(file, autostartEntry(options), { mode: 0o644 });
    },
  };
}

/** The login item of this platform. */
export function systemLoginItem(
  app: App,
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv = process.env,
): LoginItem | undefined {
  if (platform === 'linux') {
    return linuxAutostartItem({
      configDir: env.XDG_CONFIG_HOME || join(homedir(), '.config'),
      // An AppImage runs from a temporary mount: the entry must start the AppImage itself.
      executable: env.APPIMAGE || process.execPath,
      productName: app.getName(),
    });
  }
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
