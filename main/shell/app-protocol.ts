/**
 * The `app://desk/` scheme: the renderer's files served from dist/renderer with a strict
 * Content-Security-Policy, instead of `file://` (Electron's checklist, item 18).
 */
import { readFile } from 'node:fs/promises';
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';
import { protocol } from 'electron';
import { APP_HOST, APP_SCHEME } from './paths';

/** No inline or eval'd script; styles may be inline (React style attributes); nothing framed. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // pdf.js's worker (the previews), a file of the build.
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Registers `app:` as a standard, secure scheme with the Fetch API. Must run before the app is
 * ready. `corsEnabled` stays off so no other origin (the widget window) can read the app's files.
 */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/**
 * The file under `rootDir` that `requestUrl` names, or undefined when the URL is not ours or
 * would leave `rootDir` (`..`, encoded slashes or backslashes, NUL bytes, absolute paths).
 */
export function resolveAppFile(rootDir: string, requestUrl: string): string | undefined {
  let url: URL;
  let pathname: string;
  try {
    url = new URL(requestUrl);
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return undefined;
  if (pathname.includes('\0')) return undefined;
  const root = resolve(rootDir);
  const wanted = pathname === '/' || pathname === '' ? 'index.html' : pathname.replace(/^\/+/, '');
  const file = resolve(root, wanted);
  const inside = relative(root, file);
  if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))
    return undefined;
  return file;
}

function plainResponse(status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' },
  });
}

/** Serves the app's files: GET/HEAD only, with the CSP and nosniff headers; 404 otherwise. */
export function createAppRequestHandler(rootDir: string): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return plainResponse(405, 'Method not allowed');
    const file = resolveAppFile(rootDir, request.url);
    if (!file) return plainResponse(404, 'Not found');
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      return plainResponse(404, 'Not found');
    }
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
      status: 200,
      headers: {
        'Content-Type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
        'Content-Security-Policy': CONTENT_SECURITY_POLICY,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
      },
    });
  };
}

/** Serves dist/renderer on `app://desk/` in the default session (call once the app is ready). */
export function serveAppScheme(rootDir: string): void {
  protocol.handle(APP_SCHEME, createAppRequestHandler(rootDir));
}
