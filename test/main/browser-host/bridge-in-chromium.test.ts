import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_EVENTS, BRIDGE_METHODS } from '../../../shared/ipc/bridge';
import { launchChromium } from '../../support/browser';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import { bridgeProtocols, startTestHost, type TestHost } from './host-fixtures';

let host: TestHost;
let browser: Browser;
let files: TempFolder;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  [host, browser] = await Promise.all([startTestHost(), launchChromium()]);
  files = makeTempFolder('desk-chromium-');
});

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

afterAll(async () => {
  try {
    await browser?.close();
  } finally {
    files?.remove();
    await host?.close();
  }
});

/** A fresh browser profile (no shared storage between tests) with one page. */
async function newPage(): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  return context.newPage();
}

/** Opens the host's address as a user would, and waits for the app's script to have run. */
async function openApp(url = host.launched.url): Promise<Page> {
  const page = await newPage();
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('status')?.textContent === 'ready');
  return page;
}

describe('the app page in Chromium', () => {
  it('gets window.desk with the named API before the app’s own script runs', async () => {
    const page = await openApp();
    const shape = await page.evaluate(() => {
      const desk = window.desk;
      if (!desk) return undefined;
      const descriptor = Object.getOwnPropertyDescriptor(window, 'desk');
      return {
        host: desk.host,
        atStart: (window as unknown as { deskAtStart?: string }).deskAtStart,
        frozen: Object.isFrozen(desk) && Object.isFrozen(desk.batches) && Object.isFrozen(desk.dialogs),
        readOnly: descriptor?.writable === false && descriptor.configurable === false,
        pathForFile: desk.pathForFile(new File(['x'], 'x.pdf')) ?? 'undefined',
        groups: Object.fromEntries(
          Object.entries(desk)
            .filter(([, value]) => typeof value === 'object')
            .map(([name, value]) => [name, Object.keys(value as object).sort()]),
        ),
      };
    });
    expect(shape).toEqual({
      host: 'browser',
      atStart: 'object',
      frozen: true,
      readOnly: true,
      pathForFile: 'undefined',
      groups: {
        ...Object.fromEntries(
          Object.entries(BRIDGE_METHODS).map(([group, methods]) => [group, Object.keys(methods).sort()]),
        ),
        events: Object.keys(BRIDGE_EVENTS).sort(),
      },
    });
  });

  it('calls the desk service: app.info answers { ok: true, value: { host: "browser", … } }', async () => {
    const page = await openApp();
    const info = await page.evaluate(() => window.desk?.app.info());
    expect(info).toEqual({
      ok: true,
      value: {
        host: 'browser',
        version: expect.any(String),
        dataDir: host.dataDir,
        trackingPaused: false,
        language: expect.any(String),
        locale: expect.any(String),
        languageSetting: 'system',
        systemLanguage: expect.any(String),
        damagedBatches: [],
      },
    });
    const bad = await page.evaluate(() => window.desk?.batches.create(''));
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
  });

  it('clears the secret from the address bar, and still works after a reload', async () => {
    const page = await openApp();
    expect(page.url()).toBe(`${host.launched.origin}/`);
    expect(await page.evaluate(() => location.hash)).toBe('');
    await page.reload();
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'ready');
    expect(page.url()).not.toContain(host.secret);
    expect(await page.evaluate(() => window.desk?.app.info())).toMatchObject({ ok: true });
  });

  it('keeps other fragment parameters', async () => {
    const page = await openApp(`${host.launched.url}&view=batches`);
    expect(page.url()).toBe(`${host.launched.origin}/#view=batches`);
  });

  it('answers with a clear error when opened without the secret', async () => {
    const page = await openApp(`${host.launched.origin}/`);
    expect(await page.evaluate(() => window.desk?.app.info())).toMatchObject({
      ok: false,
      error: { code: 'bridge_unavailable', message: expect.stringContaining('printed') },
    });
  });

  it('sends a trailing undefined argument as absent, as Electron does', async () => {
    const page = await openApp();
    // Past the schema (an undefined id would be refused as invalid): nothing is open to refresh.
    expect(await page.evaluate(() => window.desk?.tracking.refreshNow(undefined))).toEqual({
      ok: true,
      value: { reading: 0 },
    });
  });

  it('delivers events to subscribers until they unsubscribe', async () => {
    const page = await openApp();
    await page.evaluate(() => {
      const seen = { kept: [] as string[], dropped: [] as string[] };
      (window as unknown as { seen: typeof seen }).seen = seen;
      window.desk?.events.batch.changed(({ batch }) => seen.kept.push(batch.name));
      const off = window.desk?.events.batch.changed(({ batch }) => seen.dropped.push(batch.name));
      (window as unknown as { off?: () => void }).off = off;
    });
    await page.evaluate(() => window.desk?.batches.create('First event'));
    await page.waitForFunction(() =>
      (window as unknown as { seen: { dropped: string[] } }).seen.dropped.includes('First event'),
    );
    await page.evaluate(() => (window as unknown as { off: () => void }).off());
    await page.evaluate(() => window.desk?.batches.create('Second event'));
    await page.waitForFunction(() =>
      (window as unknown as { seen: { kept: string[] } }).seen.kept.includes('Second event'),
    );
    const seen = await page.evaluate(() => (window as unknown as { seen: unknown }).seen);
    expect(seen).toMatchObject({ dropped: ['First event'] });
  });

  it('asks for paths to read with a prompt in place of the native open dialogs', async () => {
    const one = await writePdf(files, 'prompted one.pdf');
    const two = await writePdf(files, 'prompted two.pdf');
    const page = await openApp();
    const questions: string[] = [];
    const answerNext = (text: string | null) =>
      page.once('dialog', (dialog) => {
        questions.push(`${dialog.type()}: ${dialog.defaultValue()}`);
        void (text === null ? dialog.dismiss() : dialog.accept(text));
      });

    answerNext(` ${one} ;${two}\n`);
    expect(await page.evaluate(() => window.desk?.dialogs.pickPdfs())).toEqual({
      ok: true,
      value: [one, two],
    });
    answerNext(null);
    expect(await page.evaluate(() => window.desk?.dialogs.pickPdfs())).toEqual({ ok: true, value: [] });
    answerNext(files.path);
    const folder = await page.evaluate(() => window.desk?.dialogs.pickFolder());
    expect(folder?.ok && folder.value?.folder).toBe(files.path);
    expect(folder?.ok && [...(folder.value?.paths ?? [])].sort()).toEqual([one, two].sort());
    answerNext(null);
    expect(await page.evaluate(() => window.desk?.dialogs.pickManifest())).toEqual({ ok: true, value: null });
    expect(questions).toEqual(['prompt: ', 'prompt: ', 'prompt: ', 'prompt: ']);
  });

  it('saves a report where the host chooses, asking the page nothing, and never over an earlier one', async () => {
    const page = await openApp();
    const questions: string[] = [];
    page.on('dialog', (dialog) => {
      questions.push(dialog.type());
      void dialog.accept(files.file('chosen by the page.csv'));
    });
    const created = await page.evaluate(() => window.desk?.batches.create('Report batch'));
    const batchId = created?.ok ? created.value.id : '';
    const downloads = join(host.home, 'Downloads');
    expect(await page.evaluate((id) => window.desk?.report.export(id), batchId)).toEqual({
      ok: true,
      value: join(downloads, 'Report batch.csv'),
    });
    expect(readFileSync(join(downloads, 'Report batch.csv'), 'utf8')).toMatch(
      /^\uFEFF"Batch","External reference",/,
    );
    expect(await page.evaluate((id) => window.desk?.report.export(id), batchId)).toEqual({
      ok: true,
      value: join(downloads, 'Report batch (2).csv'),
    });
    expect(questions).toEqual([]);
    expect(existsSync(files.file('chosen by the page.csv'))).toBe(false);
  });
});

describe('pages of other origins', () => {
  let foreign: Server;
  let foreignOrigin: string;

  beforeAll(async () => {
    foreign = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.end(`<!doctype html><title>Elsewhere</title>
<script src="${host.launched.origin}/desk-bridge.js"></script>
<iframe id="framed" src="${host.launched.url}"></iframe>`);
    });
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    foreignOrigin = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => foreign.close(() => resolve())));

  it('cannot open the bridge, even knowing the secret', async () => {
    const page = await newPage();
    await page.goto(`${foreignOrigin}/`);
    const outcome = await page.evaluate(
      ({ url, protocols }) =>
        new Promise<string>((resolve) => {
          const socket = new WebSocket(url, protocols);
          socket.onopen = () => resolve('open');
          socket.onclose = (event) => resolve(`closed ${event.code}`);
        }),
      { url: `ws://127.0.0.1:${host.port}/bridge`, protocols: bridgeProtocols(host.secret) },
    );
    expect(outcome).toBe('closed 1006');
    expect(host.logLines.some((line) => line.includes('"reason":"origin"'))).toBe(true);
  });

  it('gets no window.desk from the host’s script, and cannot frame the app', async () => {
    const page = await newPage();
    await page.goto(`${foreignOrigin}/`);
    expect(await page.evaluate(() => typeof window.desk)).toBe('undefined');
    const framed = page.frames().find((frame) => frame !== page.mainFrame());
    const framedDesk = await framed?.evaluate(() => typeof window.desk).catch(() => 'inaccessible');
    expect(framedDesk === 'undefined' || framedDesk === 'inaccessible').toBe(true);
  });

  it('is refused when it reaches the host under another name (localhost)', async () => {
    const page = await newPage();
    const response = await page.goto(`http://localhost:${host.port}/#secret=${host.secret}`);
    expect(response?.status()).toBe(403);
    expect(await page.evaluate(() => typeof window.desk)).toBe('undefined');
  });
});
