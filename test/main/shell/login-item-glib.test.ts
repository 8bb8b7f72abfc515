import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AUTOSTART_ID, linuxAutostartItem } from '../../../main/shell/login-item';

/**
 * The autostart entry as the desktop itself reads it: GLib (`gio launch`, the code GNOME's and
 * most desktops' autostart use) loads the entry and runs it. Each app path below is real, with
 * the characters an install folder may hold; the "app" is a script that writes down how it was
 * started. An entry GLib refuses, or one that runs another path, fails here.
 */
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'login-item-glib-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('the Linux autostart entry, launched by GLib', () => {
  it.each([
    ['plain', 'My Apps/desk.AppImage'],
    ['a percent sign', 'My Apps/100%f desk%.AppImage'],
    ['a field code and a double percent', 'Apps %U/%%desk'],
    ['quotes, a dollar sign, a backtick and a backslash', `a"b'c/$HOME \`id\` d\\e`],
    ['a line break', 'My Apps/desk\nExec=evil'],
  ])('runs the app at a path with %s, hidden', async (_, relative) => {
    const executable = join(root, 'install', relative);
    const record = join(root, 'started');
    mkdirSync(dirname(executable), { recursive: true });
    writeFileSync(executable, `#!/bin/sh\nprintf '%s\\n' "$0" "$@" > '${record}'\n`);
    chmodSync(executable, 0o755);
    const configDir = join(root, 'config');
    linuxAutostartItem({ configDir, executable, productName: 'Signing Batch Desk' }).setEnabled(true);

    const launched = spawnSync('gio', ['launch', join(configDir, 'autostart', `${AUTOSTART_ID}.desktop`)], {
      encoding: 'utf8',
    });
    expect(launched.stderr).toBe('');
    expect(launched.status).toBe(0);
    await vi.waitFor(() =>
      expect(existsSync(record) && readFileSync(record, 'utf8').endsWith('\n')).toBe(true),
    );
    expect(readFileSync(record, 'utf8')).toBe(`${executable}\n--hidden\n`);
  });
});
