import type { FileStats, OpenFile, OpenFlags } from '../../main/store/file-system';
import type { FileInode, Inode } from './crash-disk';
import type { CrashFileSystem } from './crash-fs';

/** A Node-like file-system error: `.code`, `.syscall`, `.path`. */
export function fsError(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: crash-test file system, ${syscall} '${path}'`), {
    code,
    syscall,
    path,
  });
}

/** What `stat` answers for a node. */
export function stats(node: Inode): FileStats {
  const size = node.kind === 'file' ? node.current.length : 0;
  return { size, isFile: () => node.kind === 'file', isDirectory: () => node.kind === 'directory' };
}

/** An open file of a `CrashFileSystem`; fails with EIO once its process is dead. */
export class CrashOpenFile implements OpenFile {
  readonly #fs: CrashFileSystem;
  readonly #file: FileInode;
  readonly #path: string;
  readonly #flags: OpenFlags;
  #position = 0;
  #closed = false;

  constructor(fs: CrashFileSystem, file: FileInode, path: string, flags: OpenFlags) {
    this.#fs = fs;
    this.#file = file;
    this.#path = path;
    this.#flags = flags;
    fs.disk.open(file);
  }

  /** The process died: the kernel closes the file. */
  release(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#fs.disk.close(this.#file);
  }

  #check(syscall: string): void {
    if (this.#closed) throw fsError('EBADF', syscall, this.#path);
  }

  #writeAt(kind: 'write' | 'writeFile', data: string | Uint8Array): Promise<void> {
    return this.#fs.operation(kind, this.#path, () => {
      this.#check('write');
      if (this.#flags === 'r') throw fsError('EBADF', 'write', this.#path);
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
      const offset = this.#flags === 'a' ? this.#file.current.length : this.#position;
      const allowed = this.#fs.allowance(kind, this.#file.current.length, offset, bytes.length);
      if (allowed.bytes > 0) this.#fs.disk.write(this.#file, offset, bytes.subarray(0, allowed.bytes));
      this.#position = offset + allowed.bytes;
      if (allowed.error !== undefined) throw fsError(allowed.error, 'write', this.#path);
    });
  }

  write(data: string | Uint8Array): Promise<void> {
    return this.#writeAt('write', data);
  }

  writeFile(data: string | Uint8Array): Promise<void> {
    return this.#writeAt('writeFile', data);
  }

  datasync(): Promise<void> {
    return this.#sync('datasync', 'fdatasync');
  }

  sync(): Promise<void> {
    return this.#sync('sync', 'fsync');
  }

  /**
   * A sync makes durable what was written before it was called, however long it runs (held by
   * `holdSyncs`, or waiting its scheduling turns): a write that lands meanwhile needs the next one.
   */
  async #sync(kind: 'datasync' | 'sync', syscall: string): Promise<void> {
    const through = this.#fs.disk.syncPoint(this.#file);
    const held = this.#fs.syncCalled();
    if (held) await held;
    return this.#fs.operation(kind, this.#path, () => {
      this.#check(syscall);
      this.#fs.disk.syncFile(this.#file, through);
    });
  }

  truncate(length: number): Promise<void> {
    return this.#fs.operation('truncate', this.#path, () => {
      this.#check('ftruncate');
      const grows = length - this.#file.current.length;
      if (
        grows > 0 &&
        this.#fs.allowance('truncate', this.#file.current.length, length - grows, grows).error
      ) {
        throw fsError('ENOSPC', 'ftruncate', this.#path);
      }
      this.#fs.disk.truncate(this.#file, length);
    });
  }

  stat(): Promise<FileStats> {
    return this.#fs.operation('fstat', this.#path, () => {
      this.#check('fstat');
      return stats(this.#file);
    });
  }

  close(): Promise<void> {
    return this.#fs.operation('close', this.#path, () => {
      this.#check('close');
      this.release();
      this.#fs.closed(this);
    });
  }
}
