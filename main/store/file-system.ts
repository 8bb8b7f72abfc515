import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';

/**
 * The durable file layer: exactly what the store needs of a disk, and nothing more. The app
 * runs on `nodeFileSystem`; the power-cut tests run the same code on a double that forgets
 * what was not synced (test/support/crash-fs.ts). Failures are Node-like errors with `.code`
 * (ENOENT, EEXIST, ENOSPC, EIO…), so callers handle both alike.
 */
export interface FileSystem {
  /** Creates the folder and any missing parent; answers the first folder created, if any. */
  mkdir(path: string, options?: { readonly mode?: number }): Promise<string | undefined>;
  readFile(path: string): Promise<Buffer>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  readdir(path: string): Promise<DirectoryEntry[]>;
  stat(path: string): Promise<FileStats>;
  /**
   * Opens a file: 'r' to read, 'w' to create or empty it, 'a' to append (created if missing),
   * 'wx' to create one that must not exist yet (EEXIST otherwise).
   */
  open(path: string, flags: OpenFlags, mode?: number): Promise<OpenFile>;
  /** Replaces `to` with `from` in one step; durable only once both folders are synced. */
  rename(from: string, to: string): Promise<void>;
  rm(path: string, options?: { readonly recursive?: boolean; readonly force?: boolean }): Promise<void>;
  /** Makes the folder's entries (files created, renamed or removed in it) survive a power cut. */
  syncDirectory(path: string): Promise<void>;
  /** Streams a file's bytes in chunks of at most `highWaterMark`; a read error is a stream error. */
  /** `end`: the last byte to read (inclusive), as Node's; the rest of the file is never read. */
  createReadStream(
    path: string,
    options: { readonly highWaterMark: number; readonly end?: number },
  ): Readable;
}

export type OpenFlags = 'r' | 'w' | 'a' | 'wx';

export interface FileStats {
  readonly size: number;
  isFile(): boolean;
  isDirectory(): boolean;
}

export interface DirectoryEntry {
  readonly name: string;
  isFile(): boolean;
  isDirectory(): boolean;
}

/** An open file. Writes reach the page cache; only `sync`/`datasync` make them survive a power cut. */
export interface OpenFile {
  /** Writes all of `data` at the current position (at the end for 'a'), or rejects. */
  write(data: string | Uint8Array): Promise<void>;
  /** Writes all of `data` from the current position: on a freshly opened file, its whole content. */
  writeFile(data: string | Uint8Array): Promise<void>;
  /** Makes the file's content and size durable (fdatasync). */
  datasync(): Promise<void>;
  /** Makes the file's content and all its metadata durable (fsync). */
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  stat(): Promise<FileStats>;
  close(): Promise<void>;
}

/** One open file of `node:fs/promises`. */
class NodeOpenFile implements OpenFile {
  readonly #handle: FileHandle;

  constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  async write(data: string | Uint8Array): Promise<void> {
    let bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    // A write to a file may be short (a disk filling up); the rest is written, or its error reported.
    while (bytes.length > 0) {
      const { bytesWritten } = await this.#handle.write(bytes);
      bytes = bytes.subarray(bytesWritten);
    }
  }

  writeFile(data: string | Uint8Array): Promise<void> {
    return this.#handle.writeFile(data);
  }

  datasync(): Promise<void> {
    return this.#handle.datasync();
  }

  sync(): Promise<void> {
    return this.#handle.sync();
  }

  truncate(length: number): Promise<void> {
    return this.#handle.truncate(length);
  }

  stat(): Promise<FileStats> {
    return this.#handle.stat();
  }

  close(): Promise<void> {
    return this.#handle.close();
  }
}

/** The real disk, through `node:fs/promises`. */
class NodeFileSystem implements FileSystem {
  mkdir(path: string, options: { readonly mode?: number } = {}): Promise<string | undefined> {
    return mkdir(path, { recursive: true, ...(options.mode === undefined ? {} : { mode: options.mode }) });
  }

  readFile(path: string): Promise<Buffer>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  readFile(path: string, encoding?: 'utf8'): Promise<Buffer | string> {
    return encoding === undefined ? readFile(path) : readFile(path, encoding);
  }

  readdir(path: string): Promise<DirectoryEntry[]> {
    return readdir(path, { withFileTypes: true });
  }

  stat(path: string): Promise<FileStats> {
    return stat(path);
  }

  async open(path: string, flags: OpenFlags, mode?: number): Promise<OpenFile> {
    return new NodeOpenFile(await open(path, flags, mode));
  }

  rename(from: string, to: string): Promise<void> {
    return rename(from, to);
  }

  rm(path: string, options: { readonly recursive?: boolean; readonly force?: boolean } = {}): Promise<void> {
    return rm(path, { recursive: options.recursive === true, force: options.force === true });
  }

  async syncDirectory(path: string): Promise<void> {
    // Windows has no writable handle on a folder, and FlushFileBuffers needs one (EPERM,
    // nodejs/node#3879); NTFS journals entry changes itself, so there is nothing to flush.
    if (process.platform === 'win32') return;
    const handle = await open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  createReadStream(
    path: string,
    options: { readonly highWaterMark: number; readonly end?: number },
  ): Readable {
    return createReadStream(path, {
      highWaterMark: options.highWaterMark,
      ...(options.end === undefined ? {} : { end: options.end }),
    });
  }
}

/** The real disk. The default of every store, so existing callers keep working unchanged. */
export const nodeFileSystem: FileSystem = new NodeFileSystem();

/** The `.code` of a file-system error (ENOENT, ENOSPC…), or undefined for anything else. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
