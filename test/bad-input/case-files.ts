/**
 * The files a bad-input case is made of, described as data (so that a case is one line of the
 * table) and made in a fresh folder: text, bytes, real PDFs (pdf-lib), folders, sparse files of
 * any size, and the odd kinds a manifest's folder can hold: FIFOs, unix sockets, symbolic links,
 * and a device (a link to one, since only root can create device nodes).
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { makePdfBytes } from '../support/pdf-files';

/** A character device every Unix has; reading it never ends (and never gives a byte that is not 0). */
export const ZERO_DEVICE = '/dev/zero';

export type FileSpec = { readonly path: string } & (
  | { readonly text: string }
  | { readonly bytes: readonly number[] }
  /** A real one-page PDF whose text is `pdf`. */
  | { readonly pdf: string }
  | { readonly folder: true }
  /** A file of `sparse` bytes that takes no room on disk; it starts with `start` when given. */
  | { readonly sparse: number; readonly start?: string }
  | { readonly fifo: true }
  /** A unix socket with a server listening on it while the case runs. */
  | { readonly socket: true }
  /** A symbolic link to `symlink` (absolute, or relative to the link's folder). */
  | { readonly symlink: string }
);

/** What making the files left running (socket servers), to stop when the case is over. */
export interface MadeFiles {
  close(): Promise<void>;
}

/** A named pipe: opening it for reading waits until someone opens it for writing. */
export function makeFifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/** A unix socket at `path`, with a server accepting (and ignoring) connections until closed. */
export function listenOnSocket(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((connection) => connection.end());
    server.once('error', reject);
    server.listen(path, () => resolve(server));
  });
}

/** A file of `size` bytes made with truncate: a hole, so a huge file costs no disk and no time. */
export function makeSparseFile(path: string, size: number, start = ''): void {
  const descriptor = openSync(path, 'w');
  try {
    if (start !== '') writeSync(descriptor, start);
    ftruncateSync(descriptor, size);
  } finally {
    closeSync(descriptor);
  }
}

const pdfBytes = new Map<string, Promise<Uint8Array>>();

/** A PDF's bytes, made once per title and process (pdf-lib takes tens of milliseconds a file). */
function pdfOf(title: string): Promise<Uint8Array> {
  let bytes = pdfBytes.get(title);
  if (bytes === undefined) pdfBytes.set(title, (bytes = makePdfBytes(title)));
  return bytes;
}

/** Makes every file of `specs` under `folder` (parents created as needed), in order. */
export async function makeCaseFiles(folder: string, specs: readonly FileSpec[]): Promise<MadeFiles> {
  const servers: Server[] = [];
  for (const spec of specs) {
    const path = join(folder, spec.path);
    mkdirSync(dirname(path), { recursive: true });
    if ('text' in spec) writeFileSync(path, spec.text);
    else if ('bytes' in spec) writeFileSync(path, Uint8Array.from(spec.bytes));
    else if ('pdf' in spec) writeFileSync(path, await pdfOf(spec.pdf));
    else if ('folder' in spec) mkdirSync(path, { recursive: true });
    else if ('sparse' in spec) makeSparseFile(path, spec.sparse, spec.start);
    else if ('fifo' in spec) makeFifo(path);
    else if ('socket' in spec) servers.push(await listenOnSocket(path));
    else symlinkSync(spec.symlink, path);
  }
  return {
    close: () =>
      Promise.all(
        servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
      ).then(() => undefined),
  };
}
