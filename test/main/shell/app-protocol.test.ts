import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  createAppRequestHandler,
  registerAppScheme,
  resolveAppFile,
  serveAppScheme,
} from '../../../main/shell/app-protocol';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { protocol, resetFakeElectron } from './fake-electron';

vi.mock('electron', () => import('./fake-electron'));

let folder: TempFolder;
let root: string;

beforeEach(() => {
  resetFakeElectron();
  folder = makeTempFolder('desk-protocol-');
  root = join(folder.path, 'renderer');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>desk</title>');
  writeFileSync(join(root, 'assets', 'index.js'), 'console.log(1)');
  writeFileSync(join(folder.path, 'secret.txt'), 'outside the renderer');
});
afterEach(() => folder.remove());

const get = (url: string, method = 'GET') => createAppRequestHandler(root)(new Request(url, { method }));

describe('the app:// scheme', () => {
  it('is registered as standard and secure, with fetch, without CSP bypass or CORS', () => {
    registerAppScheme();
    expect(protocol.privileged).toEqual([
      { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
    ]);
  });

  it('is served by protocol.handle', () => {
    serveAppScheme(root);
    expect(protocol.handlers.has('app')).toBe(true);
  });

  it('serves index.html for the root, with a strict CSP and nosniff', async () => {
    const response = await get('app://desk/');
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<title>desk</title>');
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(CONTENT_SECURITY_POLICY);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("object-src 'none'");
  });

  it('serves assets with their content type', async () => {
    const response = await get('app://desk/assets/index.js');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it.each([
    'app://desk/../secret.txt',
    'app://desk/%2e%2e/secret.txt',
    'app://desk/..%2fsecret.txt',
    'app://desk/assets/..%2f..%2fsecret.txt',
    'app://desk/..%5csecret.txt',
    'app://desk/assets%2f..%2f..%2fsecret.txt',
    'app://desk/%2fetc%2fpasswd',
    'app://desk/index.html%00.js',
    'app://desk/%E0%A4%A',
    'app://other/index.html',
    'app://desk.evil/index.html',
    'https://desk/index.html',
    'app://desk/missing.js',
    'app://desk/assets',
  ])('answers 404 to %s and never leaves the renderer folder', async (url) => {
    const response = await get(url);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('outside the renderer');
  });

  it('resolves nothing outside the root, whatever the path', () => {
    expect(resolveAppFile(root, 'app://desk/index.html')).toBe(join(root, 'index.html'));
    expect(resolveAppFile(root, 'app://desk/..%2f..%2fetc%2fpasswd')).toBeUndefined();
    expect(resolveAppFile(root, 'app://desk/C:%5cWindows%5cwin.ini')).not.toMatch(/^C:/);
  });

  it('refuses methods other than GET and HEAD', async () => {
    expect((await get('app://desk/index.html', 'POST')).status).toBe(405);
    const head = await get('app://desk/index.html', 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});
