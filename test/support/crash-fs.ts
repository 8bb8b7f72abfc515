import { posix } from 'node:path';
import { Readable } from 'node:stream';
import type {
  DirectoryEntry,
  FileStats,
  FileSystem,
  OpenFile,
  OpenFlags,
} from '../../main/store/file-system';
import { CrashDisk, DirectoryInode, FileInode, type DiskImage, type Inode } from './crash-disk';
import { CrashOpenFile, fsError, stats } from './crash-open-file';

export type { DiskImage } from './crash-disk';

export type OperationKind =
  | 'mkdir'
  | 'readFile'
  | 'readdir'
  | 'stat'
  | 'open'
  | 'rename'
  | 'rm'
  | 'syncDirectory'
  | 'createReadStream'
  | 'write'
  | 'writeFile'
  | 'datasync'
  | 'sync'
  | 'truncate'
  | 'fstat'
  | 'close';

/** One operation of the file system, as `onOperation` hears of it. */
export interface Operation {
  /** 1 for the first operation of this process. */
  readonly index: number;
  readonly kind: OperationKind;
  readonly path: string;
}

export interface CrashFileSystemOptions {
  /** The disk to start from (what a power cut left); an empty disk when absent. */
  readonly image?: DiskImage;
  /** Size of the disk: writes beyond it fail with ENOSPC. Unlimited when absent. */
  readonly capacityBytes?: number;
  /**
   * Seeded draws that delay each operation by up to three turns of the microtask queue, so
   * concurrent work interleaves differently per seed, and the same way for the same seed.
   */
  readonly scheduling?: () => number;
}

/** File syncs held by `holdSyncs`: they run once released, each making durable what it covered when called. */
export interface HeldSyncs {
  /** Resolves once `count` syncs (in all, since the hold began) were called and wait. */
  called(count: number): Promise<void>;
  /** Lets every held sync go on, in the order they were called, and holds no more. */
  release(): void;
}

const SYNC_KINDS: ReadonlySet<OperationKind> = new Set(['datasync', 'sync', 'syncDirectory']);
const WRITE_KINDS: ReadonlySet<OperationKind> = new Set(['write', 'writeFile']);

/**
 * An in-memory `FileSystem` that models the page cache, for power-cut tests: what was not
 * synced is lost, torn or kept at a power cut (crash-disk.ts says how). One instance is one
 * process on one machine: `powerCut` returns the disk as the power comes back, and a new
 * instance over that image is the restarted machine; `crashProcess` kills the process only
 * (the page cache survives). Once dead, every operation of an instance and of its open files
 * rejects with EIO, so nothing the old process does reaches the new state.
 */
export class CrashFileSystem implements FileSystem {
  readonly #disk: CrashDisk;
  readonly #scheduling: (() => number) | undefined;
  readonly #openFiles = new Set<CrashOpenFile>();
  #capacityBytes: number | undefined;
  #fault: { code: string; bytesLeft: number; kinds: ReadonlySet<OperationKind> } | undefined;
  #operationCount = 0;
  #syncCount = 0;
  /** The armed end of this process: a power cut (with its draws), or a crash of the process only. */
  #cutAt: { readonly index: number; readonly random: (() => number) | undefined } | undefined;
  #cutImage: DiskImage | undefined;
  #dead = false;
  #held: { readonly waiting: (() => void)[]; calls: number; readonly watchers: Set<() => void> } | undefined;
  /** Hears every operation as it takes effect, before it is applied. */
  onOperation: ((operation: Operation) => void) | undefined;

  /** A new machine from `options.image` (or an empty disk); `disk` is for `crashProcess` only. */
  constructor(options: CrashFileSystemOptions = {}, disk?: CrashDisk) {
    this.#disk = disk ?? new CrashDisk(options.image);
    this.#capacityBytes = options.capacityBytes;
    this.#scheduling = options.scheduling;
  }

  /** Operations that took effect so far (the next one is `operationCount + 1`). */
  get operationCount(): number {
    return this.#operationCount;
  }

  /** fsyncs of files and folders so far. */
  get syncCount(): number {
    return this.#syncCount;
  }

  /** Bytes the files of the disk take now (page cache included). */
  get usedBytes(): number {
    return this.#disk.usedBytes;
  }

  /** True once a power cut or a process crash ended this process. */
  get dead(): boolean {
    return this.#dead;
  }

  /** Resizes the disk: writes beyond it fail with ENOSPC; undefined is unlimited (space freed). */
  setCapacity(bytes: number | undefined): void {
    this.#capacityBytes = bytes;
  }

  /**
   * After `afterBytes` more bytes are written (0 by default), every operation of the given
   * kinds (writes by default) fails with `code`; a write crossing the limit writes what fits
   * first, as a real short write would. Lasts until `clearFailure`.
   */
  failWith(
    code: string,
    options: { readonly afterBytes?: number; readonly operations?: readonly OperationKind[] } = {},
  ): void {
    const kinds = new Set<OperationKind>(options.operations ?? ['write', 'writeFile']);
    this.#fault = { code, bytesLeft: options.afterBytes ?? 0, kinds };
  }

  clearFailure(): void {
    this.#fault = undefined;
  }

  /**
   * Arms a power cut: the `count`-th operation from now is interrupted by it and rejects with
   * EIO (a write it made may reach the disk like any unsynced write; a sync it was making did
   * not complete), and so does everything after it. `cutImage` then holds the disk.
   */
  cutAfterOperations(count: number, random: () => number): void {
    this.#cutAt = { index: this.#operationCount + count, random };
  }

  /**
   * Arms a crash of this process only (SIGKILL): the `count`-th operation from now reaches the
   * page cache (a sync does not complete), then it and everything after reject with EIO. The
   * machine keeps running: `new CrashFileSystem({}, fs.disk)` is the next process on it.
   */
  crashAfterOperations(count: number): void {
    this.#cutAt = { index: this.#operationCount + count, random: undefined };
  }

  /** The disk left by the power cut `cutAfterOperations` armed, once it happened. */
  get cutImage(): DiskImage | undefined {
    return this.#cutImage;
  }

  /** What a power cut now would leave, without cutting it: to try several cuts of one moment. */
  imageAfterPowerCut(random: () => number): DiskImage {
    return this.#disk.powerCut(random);
  }

  /**
   * Holds every file sync (fsync, fdatasync) called from now on until `release`: a sync that
   * takes its time, so a test can see what arrives while one runs. What each held sync makes
   * durable is fixed when it is called.
   */
  holdSyncs(): HeldSyncs {
    const held = { waiting: [] as (() => void)[], calls: 0, watchers: new Set<() => void>() };
    this.#held = held;
    return {
      called: (count) =>
        new Promise<void>((resolve) => {
          const watch = () => {
            if (held.calls < count) return;
            held.watchers.delete(watch);
            resolve();
          };
          held.watchers.add(watch);
          watch();
        }),
      release: () => {
        if (this.#held === held) this.#held = undefined;
        for (const go of held.waiting.splice(0)) go();
      },
    };
  }

  /** For its open files, as a sync is called: a promise to wait for while syncs are held, else undefined. */
  syncCalled(): Promise<void> | undefined {
    const held = this.#held;
    if (!held) return undefined;
    held.calls += 1;
    const waiting = new Promise<void>((resolve) => held.waiting.push(resolve));
    for (const watch of [...held.watchers]) watch();
    return waiting;
  }

  /** Cuts the power now: returns what the disk holds when it comes back; this process is dead. */
  powerCut(random: () => number): DiskImage {
    if (this.#dead) throw new Error('this process is already dead');
    this.#die();
    this.#cutImage = this.#disk.powerCut(random);
    return this.#cutImage;
  }

  /** Kills this process without a power cut: a new process on the same machine, page cache kept. */
  crashProcess(): CrashFileSystem {
    if (this.#dead) throw new Error('this process is already dead');
    this.#die();
    const next = new CrashFileSystem(
      { ...(this.#scheduling ? { scheduling: this.#scheduling } : {}) },
      this.#disk,
    );
    next.#capacityBytes = this.#capacityBytes;
    return next;
  }

  #die(): void {
    this.#dead = true;
    // The kernel closes a dead process's files.
    for (const file of this.#openFiles) file.release();
    this.#openFiles.clear();
  }

  /**
   * Runs one operation (for this file system and its open files): waits its scheduling turns,
   * counts it, applies its faults and the armed cut, then `effect`. The cut interrupts a sync before it completes, anything else after it
   * reached the page cache.
   */
  async operation<T>(kind: OperationKind, path: string, effect: () => T): Promise<T> {
    const turns = this.#scheduling ? Math.floor(this.#scheduling() * 4) : 0;
    for (let turn = 0; turn < turns; turn += 1) await Promise.resolve();
    if (this.#dead) throw fsError('EIO', kind, path);
    this.#operationCount += 1;
    this.onOperation?.({ index: this.#operationCount, kind, path });
    const cut =
      this.#cutAt !== undefined && this.#operationCount >= this.#cutAt.index ? this.#cutAt : undefined;
    if (SYNC_KINDS.has(kind)) {
      if (cut) throw this.#cutNow(cut.random, kind, path);
      this.#syncCount += 1;
    }
    if (this.#fault && !WRITE_KINDS.has(kind) && this.#fault.kinds.has(kind) && this.#fault.bytesLeft <= 0) {
      throw fsError(this.#fault.code, kind, path);
    }
    if (!cut) return effect();
    try {
      effect();
    } catch {
      // The process never hears how it ended: the power is off.
    }
    throw this.#cutNow(cut.random, kind, path);
  }

  #cutNow(random: (() => number) | undefined, kind: OperationKind, path: string): NodeJS.ErrnoException {
    this.#cutAt = undefined;
    if (random) this.powerCut(random);
    else this.#die();
    return fsError('EIO', kind, path);
  }

  /**
   * For its open files: how many of `wanted` bytes a write may add to a file of `size` bytes at `offset`, and the
   * error of the rest: the disk's capacity, then an injected fault.
   */
  allowance(
    kind: OperationKind,
    size: number,
    offset: number,
    wanted: number,
  ): { bytes: number; error?: string } {
    let bytes = wanted;
    let error: string | undefined;
    if (this.#capacityBytes !== undefined) {
      // Bytes written over existing ones take no new space; the rest must fit in what is free.
      const fits = Math.max(0, size + this.#capacityBytes - this.#disk.usedBytes - offset);
      if (fits < bytes) [bytes, error] = [fits, 'ENOSPC'];
    }
    const fault = this.#fault;
    if (fault && fault.kinds.has(kind) && fault.bytesLeft < bytes)
      [bytes, error] = [Math.max(0, fault.bytesLeft), fault.code];
    if (fault && fault.kinds.has(kind)) fault.bytesLeft -= bytes;
    return error === undefined ? { bytes } : { bytes, error };
  }

  /** The machine this process runs on: `new CrashFileSystem({}, fs.disk)` starts another. */
  get disk(): CrashDisk {
    return this.#disk;
  }

  #parts(path: string): string[] {
    return posix
      .resolve('/', path)
      .split('/')
      .filter((part) => part !== '');
  }

  /** The node at `path`, or ENOENT/ENOTDIR. */
  #lookup(path: string, syscall: string): Inode {
    let node: Inode = this.#disk.root;
    for (const part of this.#parts(path)) {
      if (node.kind !== 'directory') throw fsError('ENOTDIR', syscall, path);
      const next: Inode | undefined = node.current.get(part);
      if (!next) throw fsError('ENOENT', syscall, path);
      node = next;
    }
    return node;
  }

  /** The folder holding `path` and the name in it, or ENOENT/ENOTDIR. */
  #parent(path: string, syscall: string): { directory: DirectoryInode; name: string } {
    const parts = this.#parts(path);
    const name = parts.pop();
    if (name === undefined) throw fsError('EPERM', syscall, path);
    const directory = this.#lookup(`/${parts.join('/')}`, syscall);
    if (directory.kind !== 'directory') throw fsError('ENOTDIR', syscall, path);
    return { directory, name };
  }

  mkdir(path: string): Promise<string | undefined> {
    return this.operation('mkdir', path, () => {
      let node: DirectoryInode = this.#disk.root;
      let walked = '';
      let firstCreated: string | undefined;
      for (const part of this.#parts(path)) {
        walked = `${walked}/${part}`;
        let next = node.current.get(part);
        if (!next) {
          next = new DirectoryInode();
          this.#disk.link(node, part, next);
          firstCreated ??= walked;
        }
        if (next.kind !== 'directory') throw fsError('EEXIST', 'mkdir', path);
        node = next;
      }
      return firstCreated;
    });
  }

  readFile(path: string): Promise<Buffer>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  readFile(path: string, encoding?: 'utf8'): Promise<Buffer | string> {
    return this.operation('readFile', path, () => {
      const node = this.#lookup(path, 'open');
      if (node.kind !== 'file') throw fsError('EISDIR', 'read', path);
      return encoding === undefined ? Buffer.from(node.current) : node.current.toString('utf8');
    });
  }

  readdir(path: string): Promise<DirectoryEntry[]> {
    return this.operation('readdir', path, () => {
      const node = this.#lookup(path, 'scandir');
      if (node.kind !== 'directory') throw fsError('ENOTDIR', 'scandir', path);
      return [...node.current].map(([name, child]) => ({ name, ...stats(child) }));
    });
  }

  stat(path: string): Promise<FileStats> {
    return this.operation('stat', path, () => stats(this.#lookup(path, 'stat')));
  }

  open(path: string, flags: OpenFlags): Promise<OpenFile> {
    return this.operation('open', path, () => {
      const { directory, name } = this.#parent(path, 'open');
      let node = directory.current.get(name);
      if (node && flags === 'wx') throw fsError('EEXIST', 'open', path);
      if (!node) {
        if (flags === 'r') throw fsError('ENOENT', 'open', path);
        node = new FileInode(Buffer.alloc(0));
        this.#disk.link(directory, name, node);
      } else if (node.kind !== 'file') {
        throw fsError('EISDIR', 'open', path);
      } else if (flags === 'w') {
        this.#disk.truncate(node, 0);
      }
      const file = new CrashOpenFile(this, node, path, flags);
      this.#openFiles.add(file);
      return file;
    });
  }

  /** Forgets a closed file (so a process crash does not close it twice). */
  closed(file: CrashOpenFile): void {
    this.#openFiles.delete(file);
  }

  rename(from: string, to: string): Promise<void> {
    return this.operation('rename', from, () => {
      const source = this.#parent(from, 'rename');
      const node = source.directory.current.get(source.name);
      if (!node) throw fsError('ENOENT', 'rename', from);
      const target = this.#parent(to, 'rename');
      const replaced = target.directory.current.get(target.name);
      if (replaced === node) return;
      if (replaced?.kind === 'directory' && (node.kind === 'file' || replaced.current.size > 0)) {
        throw fsError(node.kind === 'file' ? 'EISDIR' : 'ENOTEMPTY', 'rename', to);
      }
      if (replaced?.kind === 'file' && node.kind === 'directory') throw fsError('ENOTDIR', 'rename', to);
      if (source.directory === target.directory) {
        this.#disk.rename(source.directory, source.name, target.name);
      } else {
        // Two folders, two entry changes: each is durable only with its own folder's sync.
        this.#disk.link(target.directory, target.name, node);
        this.#disk.unlink(source.directory, source.name);
      }
    });
  }

  rm(path: string, options: { readonly recursive?: boolean; readonly force?: boolean } = {}): Promise<void> {
    return this.operation('rm', path, () => {
      let parent: { directory: DirectoryInode; name: string };
      try {
        parent = this.#parent(path, 'rm');
      } catch (error) {
        if (options.force && (error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      const node = parent.directory.current.get(parent.name);
      if (!node) {
        if (options.force) return;
        throw fsError('ENOENT', 'rm', path);
      }
      if (node.kind === 'directory' && !options.recursive) throw fsError('EISDIR', 'rm', path);
      this.#removeTree(parent.directory, parent.name, node);
    });
  }

  /** Removes children first, each an entry change of its own folder, as `rm -r` does. */
  #removeTree(directory: DirectoryInode, name: string, node: Inode): void {
    if (node.kind === 'directory') {
      for (const [childName, child] of [...node.current]) this.#removeTree(node, childName, child);
    }
    this.#disk.unlink(directory, name);
  }

  syncDirectory(path: string): Promise<void> {
    return this.operation('syncDirectory', path, () => {
      const node = this.#lookup(path, 'open');
      if (node.kind !== 'directory') throw fsError('ENOTDIR', 'fsync', path);
      this.#disk.syncDirectory(node);
    });
  }

  createReadStream(path: string, options: { readonly highWaterMark: number }): Readable {
    const chunks = async function* (this: CrashFileSystem): AsyncGenerator<Buffer> {
      const content = await this.operation('createReadStream', path, () => {
        const node = this.#lookup(path, 'open');
        if (node.kind !== 'file') throw fsError('EISDIR', 'read', path);
        return node.current;
      });
      for (let offset = 0; offset < content.length; offset += options.highWaterMark) {
        if (this.#dead) throw fsError('EIO', 'read', path);
        yield Buffer.from(content.subarray(offset, offset + options.highWaterMark));
      }
    }.call(this);
    return Readable.from(chunks, { objectMode: false, highWaterMark: options.highWaterMark });
  }
}
