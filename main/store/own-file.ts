/**
 * Reading a small file of the app's own data folder (profiles.json, settings.json, the lock's
 * owner file, the service holds). The folder is ours, but anything may have been put in a file's
 * place: a FIFO would make a plain `readFile` wait for a writer forever (past SIGTERM), a link
 * would lead elsewhere. So these files are opened like the person's files (main/files/user-files.ts):
 *
 * - without blocking (`O_NONBLOCK`: a FIFO opens at once) and without following a link as the
 *   last part of the path (`O_NOFOLLOW`: a link is refused with ELOOP);
 * - checked with `fstat` on the open handle before a byte is read: anything but a regular file
 *   is refused with a code that names its kind (`FIFO`, `SOCKET`, `DEVICE`, `EISDIR`);
 * - read up to a bound, refused with `TOO_LARGE` above it.
 *
 * Nothing is ever removed: what was found in the file's place stays for the person to look at.
 */
import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { kindCode, NOT_OPENABLE, SAFE_READ_FLAGS } from '../files/file-kind';
import { errorCode } from './file-system';

/**
 * Why a file of the data folder cannot be read: the system's code (ENOENT, EACCES, ELOOP for a
 * link…) or one of ours (`FIFO`, `SOCKET`, `DEVICE`, `EISDIR`, `TOO_LARGE`); the same codes as
 * the person's files, so `unreadableReason` (main/files/user-files.ts) words them.
 */
export class OwnFileError extends Error {
  readonly code: string;
  readonly path: string;
  constructor(code: string, path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = 'OwnFileError';
    this.code = code;
    this.path = path;
  }
}

/** The error for a failed open: a socket gets its kind's code (its open fails with ENXIO, which says little). */
function openFailure(path: string, error: unknown): OwnFileError | undefined {
  const code = errorCode(error);
  if (code === 'ENOENT') return undefined;
  if (code === undefined) throw error;
  return new OwnFileError(NOT_OPENABLE.has(code) ? 'SOCKET' : code, path, 'cannot be opened');
}

function checked(path: string, info: Stats, maxBytes: number): void {
  if (!info.isFile()) throw new OwnFileError(kindCode(info), path, 'not a regular file');
  if (info.size > maxBytes) throw new OwnFileError('TOO_LARGE', path, `larger than ${maxBytes} bytes`);
}

/**
 * The text of a small file of the data folder, or undefined when it does not exist. Fails with
 * an {@link OwnFileError} for anything else that keeps it from being read.
 */
export async function readOwnFile(path: string, maxBytes: number): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, SAFE_READ_FLAGS);
  } catch (error) {
    const failure = openFailure(path, error);
    if (failure === undefined) return undefined;
    throw failure;
  }
  try {
    checked(path, await handle.stat(), maxBytes);
    // One byte more than allowed tells a file that grew past the bound from one that fits.
    const buffer = Buffer.alloc(maxBytes + 1);
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, total, buffer.length - total, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw new OwnFileError('TOO_LARGE', path, `larger than ${maxBytes} bytes`);
    }
    return buffer.subarray(0, total).toString('utf8');
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** {@link readOwnFile}, synchronously: for a file read once before anything else can run (settings at start). */
export function readOwnFileSync(path: string, maxBytes: number): string | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(path, SAFE_READ_FLAGS);
  } catch (error) {
    const failure = openFailure(path, error);
    if (failure === undefined) return undefined;
    throw failure;
  }
  try {
    checked(path, fstatSync(descriptor), maxBytes);
    const buffer = Buffer.alloc(maxBytes + 1);
    let total = 0;
    for (;;) {
      const bytesRead = readSync(descriptor, buffer, total, buffer.length - total, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw new OwnFileError('TOO_LARGE', path, `larger than ${maxBytes} bytes`);
    }
    return buffer.subarray(0, total).toString('utf8');
  } finally {
    closeSync(descriptor);
  }
}
