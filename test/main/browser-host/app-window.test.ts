/**
 * The browser host's Chromium windows leave nothing behind: no profile and none of Chromium's own
 * temporary files, when a window is closed, when the host stops, or — for a host that was killed —
 * when the next host starts. Real Chromium on a virtual display.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openAppWindow, removeOrphanedWindowFolders } from '../../../main/browser-host/app-window';
import { silentLogger } from '../../../main/base/log';
import { startVirtualDisplay, type VirtualDisplay } from '../../support/display';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { startTestHost } from './host-fixtures';

let display: VirtualDisplay;
let temporary: TempFolder;
const saved = { TMPDIR: process.env.TMPDIR, DISPLAY: process.env.DISPLAY };

beforeAll(async () => {
  display = await startVirtualDisplay();
});
afterAll(() => display?.close());

beforeEach(() => {
  // The system's temporary folder, for this test alone: whatever a window leaves shows here.
  temporary = makeTempFolder('desk-tmp-');
  process.env.TMPDIR = temporary.path;
  process.env.DISPLAY = display.display;
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  temporary.remove();
});

const left = () => readdirSync(temporary.path);

/** Waits until Chromium has written into its window folder (it is running). */
async function untilStarted(): Promise<void> {
  for (let waited = 0; waited < 15_000; waited += 25) {
    const folder = left().find((name) => name.startsWith('desk-window-'));
    if (folder && readdirSync(join(temporary.path, folder)).includes('profile')) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('Chromium did not start');
}

describe('Chromium app windows', () => {
  it('a closed window leaves nothing in the temporary folder (its profile and Chromium’s own files)', async () => {
    const window = await openAppWindow({ url: 'about:blank', label: 'test', logger: silentLogger });
    await untilStarted();
    expect(left().filter((name) => name.startsWith('desk-window-'))).toHaveLength(1);
    await window.close();
    expect(left()).toEqual([]);
  }, 40_000);

  it('a stopping host closes its window and removes its folder', async () => {
    const host = await startTestHost();
    try {
      await host.launched.openWindow();
      await untilStarted();
    } finally {
      await host.close();
    }
    expect(left()).toEqual([]);
  }, 40_000);

  it('the folder of a host that was killed goes when the next host starts; a running host’s stays', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const orphan = join(temporary.path, 'desk-window-orphan');
    const alive = join(temporary.path, 'desk-window-alive');
    const other = join(temporary.path, 'not-a-window');
    for (const folder of [orphan, alive, other]) mkdirSync(join(folder, 'profile'), { recursive: true });
    writeFileSync(join(orphan, 'host.pid'), `${dead}\n`);
    writeFileSync(join(alive, 'host.pid'), `${process.pid}\n`);
    writeFileSync(join(other, 'host.pid'), `${dead}\n`);

    expect(await removeOrphanedWindowFolders()).toBe(1);
    expect(left().sort()).toEqual(['desk-window-alive', 'not-a-window']);

    const host = await startTestHost();
    await host.close();
    expect(left().sort()).toEqual(['desk-window-alive', 'not-a-window']);
  }, 40_000);
});
