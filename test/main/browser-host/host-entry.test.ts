import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDataDir, parseHostArgs } from '../../../main/browser-host/host-args';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import {
  bridgeProtocols,
  bundleBridgeScript,
  openBridge,
  secretOf,
  writeRendererFixture,
} from './host-fixtures';

describe('the command line of the browser host', () => {
  const env = { XDG_DATA_HOME: '/xdg/data' };

  it('has defaults: any free port, the XDG data folder, a window', () => {
    expect(parseHostArgs([], env, '/home/ada')).toEqual({
      ok: true,
      value: { port: 0, dataDir: '/xdg/data/signing-batch-desk', open: true, help: false },
    });
    expect(defaultDataDir({}, '/home/ada')).toBe('/home/ada/.local/share/signing-batch-desk');
    // The XDG rules ignore a relative XDG_DATA_HOME.
    expect(defaultDataDir({ XDG_DATA_HOME: 'relative' }, '/home/ada')).toBe(
      '/home/ada/.local/share/signing-batch-desk',
    );
  });

  it('reads --port, --data-dir and --no-open', () => {
    expect(parseHostArgs(['--port', '4100', '--data-dir', 'here', '--no-open'], env, '/home/ada')).toEqual({
      ok: true,
      value: { port: 4100, dataDir: resolve('here'), open: false, help: false },
    });
    expect(parseHostArgs(['--port=0'], env)).toMatchObject({ ok: true, value: { port: 0 } });
  });

  it('reports bad arguments as sentences', () => {
    for (const argv of [
      ['--port', 'abc'],
      ['--port', '70000'],
      ['--port', '-1'],
      ['--port', '1e3'],
    ]) {
      expect(parseHostArgs(argv, env), argv.join(' ')).toMatchObject({
        ok: false,
        error: expect.stringContaining('--port'),
      });
    }
    expect(parseHostArgs(['--data-dir', ' '], env)).toMatchObject({ ok: false });
    expect(parseHostArgs(['--open-everything'], env)).toMatchObject({
      ok: false,
      error: expect.any(String),
    });
    expect(parseHostArgs(['extra'], env)).toMatchObject({ ok: false });
  });
});

/** The entry bundled as the build does, laid out like dist/ with the renderer fixture beside it. */
async function bundleEntry(folder: TempFolder): Promise<string> {
  const hostDir = folder.file('dist/browser-host');
  mkdirSync(hostDir, { recursive: true });
  writeRendererFixture(folder.file('dist/renderer'));
  copyFileSync(await bundleBridgeScript(folder.path), join(hostDir, 'desk-bridge.js'));
  const outfile = join(hostDir, 'index.js');
  await build({
    entryPoints: [fileURLToPath(new URL('../../../main/browser-host/index.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    outfile,
    // fs-native-extensions loads its binary beside its own file: imported by path from this
    // repository's node_modules, since the bundle is written to a temporary folder.
    external: [
      'keytar',
      `${fileURLToPath(new URL('../../../node_modules/fs-native-extensions/', import.meta.url))}*`,
    ],
    banner: {
      js: "import { createRequire as __hostCreateRequire } from 'node:module'; const require = __hostCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return outfile;
}

interface Run {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<number | null>;
}

function run(entry: string, args: string[]): Run {
  const child = spawn(process.execPath, [entry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function waitFor<T>(find: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  for (let waited = 0; waited < timeoutMs; waited += 50) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('node dist/browser-host/index.js', () => {
  let folder: TempFolder;
  let entry: string;

  beforeAll(async () => {
    folder = makeTempFolder('desk-host-entry-');
    entry = await bundleEntry(folder);
  });

  afterAll(() => folder?.remove());

  it('prints the address with its secret, serves the app, refuses a second run on the same data, and stops on SIGTERM', async () => {
    const dataDir = folder.file('data');
    const host = run(entry, ['--no-open', '--data-dir', dataDir]);
    try {
      const [, origin, url] = await waitFor(
        () =>
          /Browser host on (http:\/\/127\.0\.0\.1:\d+) — open this address:\n(\S+)\n/.exec(host.stdout()) ??
          undefined,
        'the address',
      );
      const secret = secretOf(url as string);
      expect(url).toBe(`${origin}/#secret=${secret}`);
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const index = await fetch(`${origin}/`);
      expect(index.status).toBe(200);
      expect(await index.text()).toContain('<script src="/desk-bridge.js"></script>');

      const port = Number(new URL(origin as string).port);
      const opening = await openBridge(port, {
        origin: origin as string,
        protocols: bridgeProtocols(secret),
      });
      if (!opening.opened) throw new Error(`refused: ${opening.status}`);
      expect((await opening.client.call('app.info', [])).result).toMatchObject({
        ok: true,
        value: { host: 'browser', dataDir },
      });

      const second = run(entry, ['--no-open', '--data-dir', dataDir]);
      expect(await second.exited).toBe(1);
      expect(second.stderr()).toContain('is in use by another process');

      host.child.kill('SIGTERM');
      expect(await host.exited).toBe(0);
      expect(await opening.client.closed()).toBe(1001);
      // The lock file stays (deleting it would break the kernel lock); the owner's name goes.
      expect(existsSync(join(dataDir, 'lock-owner.json'))).toBe(false);
      expect(host.stderr()).not.toContain(secret);
    } finally {
      host.child.kill('SIGKILL');
    }
  });

  it('exits with 2 and the usage on a bad argument', async () => {
    const bad = run(entry, ['--port', 'many']);
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toContain('--port must be a number');
    expect(bad.stderr()).toContain('Usage: node dist/browser-host/index.js');
  });
});
