import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_PROTOCOL, SECRET_PROTOCOL_PREFIX } from '../../../shared/ipc/browser-host-protocol';
import { contentSecurityPolicy, injectBridgeScript } from '../../../main/browser-host/host-server';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import {
  bridgeProtocols,
  maskedTextFrame,
  openBridge,
  openTrustedBridge,
  rawExchange,
  startTestHost,
  statusOf,
  upgradeRequest,
  type BridgeClient,
  type TestHost,
} from './host-fixtures';

interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A plain HTTP request with the path sent exactly as given (no client-side normalization). */
function get(
  port: number,
  path: string,
  options: { method?: string; host?: string } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: { host: options.host ?? `127.0.0.1:${port}` },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

let host: TestHost;
let page: BridgeClient;

beforeAll(async () => {
  host = await startTestHost();
  page = await openTrustedBridge(host);
});

afterAll(async () => {
  page?.close();
  await host?.close();
});

describe('the bridge accepts only this launch’s page', () => {
  it('accepts the right secret from the right origin, and a call reaches the desk service', async () => {
    const reply = await page.call('app.info', []);
    expect(reply.result).toEqual({
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
  });

  it('refuses a missing secret with 403 before upgrading', async () => {
    const origin = host.launched.origin;
    expect(await openBridge(host.port, { origin })).toEqual({ opened: false, status: 403 });
    expect(await openBridge(host.port, { origin, protocols: [BRIDGE_PROTOCOL] })).toEqual({
      opened: false,
      status: 403,
    });
    expect(
      await openBridge(host.port, { origin, protocols: [BRIDGE_PROTOCOL, SECRET_PROTOCOL_PREFIX] }),
    ).toEqual({
      opened: false,
      status: 403,
    });
  });

  it('refuses a wrong secret, whatever its length, and the secret without the bridge protocol', async () => {
    const origin = host.launched.origin;
    const sameLength = `${host.secret.slice(0, -1)}${host.secret.endsWith('A') ? 'B' : 'A'}`;
    for (const secret of [sameLength, 'short', `${host.secret}x`, host.secret.toLowerCase()]) {
      if (secret === host.secret) continue;
      expect(await openBridge(host.port, { origin, protocols: bridgeProtocols(secret) })).toEqual({
        opened: false,
        status: 403,
      });
    }
    expect(
      await openBridge(host.port, { origin, protocols: [`${SECRET_PROTOCOL_PREFIX}${host.secret}`] }),
    ).toEqual({ opened: false, status: 403 });
    // Two secrets, one right: ambiguous, refused.
    expect(
      await openBridge(host.port, {
        origin,
        protocols: [...bridgeProtocols(host.secret), `${SECRET_PROTOCOL_PREFIX}x`],
      }),
    ).toEqual({ opened: false, status: 403 });
  });

  it('refuses any Origin but exactly http://127.0.0.1:PORT, even with the right secret', async () => {
    const foreign = [
      `http://localhost:${host.port}`,
      `http://127.0.0.1:${host.port + 1}`,
      'null',
      'http://evil.example',
      `https://127.0.0.1:${host.port}`,
      `http://127.0.0.1:${host.port}.evil.example`,
      `http://127.0.0.1:${host.port}/`,
      `HTTP://127.0.0.1:${host.port}`,
      `http://[::1]:${host.port}`,
      'file://',
    ];
    for (const origin of foreign) {
      expect(
        await openBridge(host.port, { origin, protocols: bridgeProtocols(host.secret) }),
        origin,
      ).toEqual({
        opened: false,
        status: 403,
      });
    }
  });

  it('refuses raw upgrade requests without an Origin, with a foreign Host, or on another path', async () => {
    const protocols = bridgeProtocols(host.secret).join(', ');
    const origin = host.launched.origin;
    const noOrigin = await rawExchange(
      host.port,
      upgradeRequest(host.port, { 'Sec-WebSocket-Protocol': protocols }),
    );
    expect(statusOf(noOrigin)).toBe(403);
    // DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends its own Host.
    const rebound = await rawExchange(
      host.port,
      upgradeRequest(host.port, {
        Host: `evil.example:${host.port}`,
        Origin: origin,
        'Sec-WebSocket-Protocol': protocols,
      }),
    );
    expect(statusOf(rebound)).toBe(403);
    const wrongPath = await rawExchange(
      host.port,
      upgradeRequest(host.port, { Origin: origin, 'Sec-WebSocket-Protocol': protocols }).replace(
        'GET /bridge ',
        'GET /bridge/x ',
      ),
    );
    expect(statusOf(wrongPath)).toBe(404);
    const accepted = await rawExchange(
      host.port,
      upgradeRequest(host.port, { Origin: origin, 'Sec-WebSocket-Protocol': protocols }),
      300,
    );
    expect(statusOf(accepted)).toBe(101);
    expect(accepted).toContain(`Sec-WebSocket-Protocol: ${BRIDGE_PROTOCOL}\r\n`);
    expect(accepted).not.toContain(host.secret);
  });

  it('processes nothing a refused client sent along with its upgrade request', async () => {
    const call = JSON.stringify({ id: 1, channel: 'batches.create', args: ['Smuggled'] });
    const request = upgradeRequest(host.port, {
      Origin: host.launched.origin,
      'Sec-WebSocket-Protocol': bridgeProtocols('not-the-secret').join(', '),
    });
    const answer = await rawExchange(host.port, Buffer.concat([Buffer.from(request), maskedTextFrame(call)]));
    expect(statusOf(answer)).toBe(403);
    expect(answer).not.toContain('"result"');
    const listed = await page.call('batches.list', []);
    expect(
      listed.result.ok && (listed.result.value as { name: string }[]).map((batch) => batch.name),
    ).not.toContain('Smuggled');
  });

  it('never logs the secret, whether it refuses or accepts', async () => {
    await openBridge(host.port, { origin: 'http://evil.example', protocols: bridgeProtocols(host.secret) });
    const joined = host.logLines.join('');
    expect(joined).toContain('"bridge.refused"');
    expect(joined).toContain('"reason":"origin"');
    expect(joined).not.toContain(host.secret);
  });
});

describe('calls and events over the bridge', () => {
  it('creates a batch through the real desk service and returns { ok, value }', async () => {
    const created = await page.call('batches.create', ['Monday contracts']);
    expect(created.result).toMatchObject({ ok: true, value: { name: 'Monday contracts', documentCount: 0 } });
    const listed = await page.call('batches.list', []);
    expect(listed.result).toMatchObject({
      ok: true,
      value: expect.arrayContaining([expect.objectContaining({ name: 'Monday contracts' })]),
    });
  });

  it('answers bad arguments and unknown channels with errors, and keeps serving', async () => {
    expect((await page.call('batches.create', [''])).result).toMatchObject({
      ok: false,
      error: { code: 'invalid_arguments', message: expect.stringContaining('argument 1') },
    });
    expect((await page.call('batches.create', [])).result).toMatchObject({
      ok: false,
      error: { code: 'invalid_arguments' },
    });
    expect((await page.call('batches.create', [42, 'extra'])).result).toMatchObject({
      ok: false,
      error: { code: 'invalid_arguments' },
    });
    expect((await page.call('batches.get', ['no-such-batch'])).result).toMatchObject({
      ok: false,
      error: { code: 'batch_not_found' },
    });
    expect((await page.call('shell.exec', ['rm -rf /'])).result).toMatchObject({
      ok: false,
      error: { code: 'unknown_channel' },
    });
    expect((await page.call('__proto__', [])).result).toMatchObject({
      ok: false,
      error: { code: 'unknown_channel' },
    });
    expect((await page.call('app.info', [])).result).toMatchObject({ ok: true });
  });

  it('answers malformed messages with an error and keeps serving', async () => {
    const invalid = { ok: false, error: { code: 'invalid_message', message: expect.any(String) } };
    const refused = (id: string | null) => ({ type: 'result', id, result: invalid });
    const id = 'malformed-messages-test.77';
    expect(await page.sendRaw('not json')).toEqual(refused(null));
    expect(await page.sendRaw('[1, 2, 3]')).toEqual(refused(null));
    expect(await page.sendRaw('null')).toEqual(refused(null));
    expect(
      await page.sendRaw(JSON.stringify({ type: 'call', id: -1, channel: 'app.info', args: [] })),
    ).toEqual(refused(null));
    // No type, an unknown type, a request id of another shape: not read.
    expect(await page.sendRaw(JSON.stringify({ id, channel: 'app.info', args: [] }))).toEqual(refused(id));
    expect(await page.sendRaw(JSON.stringify({ type: 'run', id, channel: 'app.info', args: [] }))).toEqual(
      refused(id),
    );
    expect(
      await page.sendRaw(JSON.stringify({ type: 'call', id: '../x.1', channel: 'app.info', args: [] })),
    ).toEqual(refused(null));
    expect(
      await page.sendRaw(JSON.stringify({ type: 'call', id, channel: 'app.info', args: [], extra: true })),
    ).toEqual(refused(id));
    expect(
      await page.sendRaw(
        Buffer.from(JSON.stringify({ type: 'call', id: `${id}8`, channel: 'app.info', args: [] })),
        true,
      ),
    ).toEqual(refused(null));
    // A page says hello once per connection; a hello of the wrong shape is refused too.
    expect(await page.sendRaw(JSON.stringify({ type: 'hello', awaiting: [] }))).toEqual(refused(null));
    expect(await page.sendRaw(JSON.stringify({ type: 'hello', awaiting: ['x'] }))).toEqual(refused(null));
    // A dialog answer is only taken for a dialog call.
    expect(await page.call('batches.list', [], { paths: ['/etc'] })).toMatchObject({ result: invalid });
    expect((await page.call('app.info', [])).result).toMatchObject({ ok: true });
  });

  it('closes a connection that sends more than 64 MiB, and keeps serving others', async () => {
    const greedy = await openTrustedBridge(host);
    greedy.socket.send(Buffer.alloc(64 * 1024 * 1024 + 1, 0x20));
    expect(await greedy.closed()).toBe(1009);
    expect((await page.call('app.info', [])).result).toMatchObject({ ok: true });
    const next = await openTrustedBridge(host);
    expect((await next.call('app.info', [])).result).toMatchObject({ ok: true });
    next.close();
  });

  it('pushes events to every connected page', async () => {
    const other = await openTrustedBridge(host);
    const created = await page.call('batches.create', ['Announced']);
    const batchId = created.result.ok ? (created.result.value as { id: string }).id : '';
    const isOurs = (event: { event: string; payload: unknown }) =>
      event.event === 'batch.changed' && (event.payload as { batch: { id: string } }).batch.id === batchId;
    for (const client of [page, other]) {
      expect((await client.waitForEvent(isOurs)).payload).toMatchObject({ batch: { name: 'Announced' } });
    }
    await page.call('batches.delete', [batchId]);
    await other.waitForEvent((event) => event.event === 'batch.deleted');
    other.close();
  });
});

describe('dialogs in the browser host', () => {
  let files: TempFolder;

  beforeAll(() => {
    files = makeTempFolder('desk-dialogs-');
  });
  afterAll(() => files.remove());

  it('lists the PDFs of the folder the page answered, as Electron’s folder dialog does, and counts what it left out', async () => {
    await writePdf(files, 'one.pdf');
    await writePdf(files, 'Two.PDF');
    writeFileSync(files.file('notes.txt'), 'not a pdf');
    mkdirSync(files.file('older'));
    await writePdf(files, 'older/three.pdf');
    const picked = await page.call('dialogs.pickFolder', [], { paths: [files.path] });
    const value = picked.result.ok
      ? (picked.result.value as {
          folder: string;
          paths: string[];
          skipped: { subfolders: number; otherFiles: number };
        })
      : null;
    expect(value?.folder).toBe(files.path);
    expect([...(value?.paths ?? [])].sort()).toEqual([files.file('Two.PDF'), files.file('one.pdf')].sort());
    expect(value?.skipped).toEqual({ subfolders: 1, otherFiles: 1 });
  });

  it('returns the paths answered for PDFs and manifests, and "cancelled" without an answer', async () => {
    const pdfs = [files.file('one.pdf'), files.file('Two.PDF')];
    expect((await page.call('dialogs.pickPdfs', [], { paths: pdfs })).result).toEqual({
      ok: true,
      value: pdfs,
    });
    expect((await page.call('dialogs.pickPdfs', [])).result).toEqual({ ok: true, value: [] });
    expect((await page.call('dialogs.pickFolder', [], { paths: [] })).result).toEqual({
      ok: true,
      value: null,
    });
    expect((await page.call('dialogs.pickManifest', [], { paths: ['/data/manifest.csv'] })).result).toEqual({
      ok: true,
      value: '/data/manifest.csv',
    });
    expect((await page.call('dialogs.pickManifest', [])).result).toEqual({ ok: true, value: null });
  });

  it('saves a report in the host’s Downloads folder and refuses a path sent with it', async () => {
    const created = await page.call('batches.create', ['Report']);
    const batchId = created.result.ok ? (created.result.value as { id: string }).id : '';
    const sent = files.file('r.csv');
    expect((await page.call('report.export', [batchId], { paths: [sent] })).result).toMatchObject({
      ok: false,
      error: { code: 'invalid_message' },
    });
    expect(existsSync(sent)).toBe(false);
    const saved = join(host.home, 'Downloads', 'Report.csv');
    expect((await page.call('report.export', [batchId])).result).toEqual({ ok: true, value: saved });
    expect(existsSync(saved)).toBe(true);
  });

  it('says so when the answered folder does not exist', async () => {
    expect(
      (await page.call('dialogs.pickFolder', [], { paths: [files.file('missing')] })).result,
    ).toMatchObject({
      ok: false,
      error: { code: 'folder_not_found' },
    });
  });
});

describe('static serving', () => {
  it('serves index.html with the bridge script before the app’s module script, and the strict headers', async () => {
    const index = await get(host.port, '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-security-policy']).toBe(
      `default-src 'self'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ws://127.0.0.1:${host.port}; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect(index.headers['cache-control']).toBe('no-store');
    const bridgeAt = index.body.indexOf('<script src="/desk-bridge.js"></script>');
    const appAt = index.body.indexOf('<script type="module"');
    expect(bridgeAt).toBeGreaterThan(index.body.indexOf('<head>'));
    expect(bridgeAt).toBeLessThan(appAt);
    expect(index.body).not.toContain(host.secret);
    expect((await get(host.port, '/index.html')).body).toBe(index.body);
    expect((await get(host.port, '/./index.html')).body).toBe(index.body);
  });

  it('serves the bridge script and the assets with their types', async () => {
    const bridge = await get(host.port, '/desk-bridge.js');
    expect(bridge.status).toBe(200);
    expect(bridge.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(bridge.body).toContain(BRIDGE_PROTOCOL);
    expect(bridge.body).not.toContain(host.secret);
    const script = await get(host.port, '/assets/app.js?v=1');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await get(host.port, '/assets/app.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await get(host.port, '/assets/missing.js')).status).toBe(404);
    expect((await get(host.port, '/assets')).status).toBe(404);
    expect((await get(host.port, '/favicon.ico')).status).toBe(204);
    expect((await get(host.port, '/bridge')).status).toBe(426);
  });

  it('refuses to serve anything outside the renderer folder', async () => {
    writeFileSync(host.folder.file('outside.txt'), 'TOP-SECRET-OUTSIDE');
    mkdirSync(host.folder.file('renderer/links'), { recursive: true });
    symlinkSync(host.folder.file('outside.txt'), host.folder.file('renderer/links/escape.txt'));
    const attempts = [
      '/../outside.txt',
      '/assets/../../outside.txt',
      '/%2e%2e/outside.txt',
      '/..%2foutside.txt',
      '/assets/..%2f..%2foutside.txt',
      '/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/../../../../etc/passwd',
      `/${join(host.folder.path, 'outside.txt')}`,
      '/links/escape.txt',
      '/%00index.html',
      '/%E0%A4%A',
    ];
    for (const path of attempts) {
      const answer = await get(host.port, path);
      expect([400, 403, 404], path).toContain(answer.status);
      expect(answer.body, path).not.toContain('TOP-SECRET-OUTSIDE');
      expect(answer.body, path).not.toContain('root:');
    }
  });

  it('answers only GET and HEAD, and only for the Host 127.0.0.1:PORT', async () => {
    expect((await get(host.port, '/', { method: 'POST' })).status).toBe(405);
    const head = await get(host.port, '/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect((await get(host.port, '/', { host: `localhost:${host.port}` })).status).toBe(403);
    expect((await get(host.port, '/', { host: 'evil.example' })).status).toBe(403);
  });
});

describe('per launch', () => {
  it('makes a new 32-byte secret at every launch, and the old one opens nothing', async () => {
    const second = await startTestHost();
    try {
      expect(second.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(host.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(second.secret).not.toBe(host.secret);
      expect(
        await openBridge(second.port, {
          origin: second.launched.origin,
          protocols: bridgeProtocols(host.secret),
        }),
      ).toEqual({ opened: false, status: 403 });
      expect(second.launched.url).toBe(`http://127.0.0.1:${second.port}/#secret=${second.secret}`);
    } finally {
      await second.close();
    }
  });
});

describe('helpers', () => {
  it('injects the bridge before the first script of <head>, or at its end', () => {
    expect(
      injectBridgeScript(
        '<html><head><title>x</title><script type="module" src="a.js"></script></head></html>',
      ),
    ).toBe(
      '<html><head><title>x</title><script src="/desk-bridge.js"></script><script type="module" src="a.js"></script></head></html>',
    );
    expect(
      injectBridgeScript(
        '<html><head><title>x</title></head><body><script src="b.js"></script></body></html>',
      ),
    ).toBe(
      '<html><head><title>x</title><script src="/desk-bridge.js"></script></head><body><script src="b.js"></script></body></html>',
    );
  });

  it('allows the page to connect to its own bridge only', () => {
    expect(contentSecurityPolicy(4321)).toContain("connect-src 'self' ws://127.0.0.1:4321;");
  });
});
