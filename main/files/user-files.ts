/**
 * Reading the files a person names — a manifest, the PDFs it lists, PDFs added by hand or from a
 * folder. Every one is hostile until checked (ARCHITECTURE.md "Principles the code keeps"):
 *
 * - **Regular files only.** A file is opened without blocking (`O_NONBLOCK`: a FIFO opens at
 *   once instead of waiting for a writer) and without following a last symbolic link, then
 *   checked with `fstat` on the open handle, so what is checked is what is read. FIFOs, devices,
 *   sockets and folders are refused with a reason, before a single byte is read.
 * - **Inside its folder** when asked: a manifest's PDFs, after their symbolic links are resolved
 *   (`realpath`), must stay inside the manifest's folder, so a folder received from someone else
 *   cannot send `innocent.pdf → /elsewhere/private.pdf`.
 * - **Bounded in time and in threads.** Node runs file-system calls on a small shared pool of
 *   threads (libuv's, four by default), the same threads the data folder's journal writes on. A
 *   file on a drive that stopped answering would hold a thread for as long as the drive hangs, so
 *   at most {@link USER_FILE_THREADS} calls on the person's files are in flight at once (the
 *   journal always keeps the other threads), and each call gives up after a deadline with a
 *   clear reason. A call that never returns keeps its thread; later reads wait for a free one,
 *   under the same deadline.
 */
import { kindCode, NOT_OPENABLE, SAFE_READ_FLAGS } from './file-kind';
import type { BigIntStats, Stats } from 'node:fs';
import {
  open as openFile,
  readdir as readdirOf,
  readlink as readlinkOf,
  realpath as realpathOf,
  stat as statOf,
  type FileHandle,
} from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { systemClock, type Clock } from '../time/clock';
import type { Translator } from '../../shared/i18n/translator';

/** At most this many of libuv's threads serve the person's files at once; the journal keeps the rest. */
export const USER_FILE_THREADS = 2;
/** A file-system call on a person's file that takes longer than this is a drive that stopped answering. */
export const USER_FILE_DEADLINE_MS = 15_000;

/**
 * Why a file the person named cannot be read. `code` is the system's (ENOENT, EACCES, EISDIR…)
 * or one of ours for what the system does not call an error: `FIFO`, `DEVICE`, `SOCKET`,
 * `OUTSIDE_FOLDER`, `ETIMEDOUT` (our deadline), `TOO_LARGE`.
 */
export class UserFileError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'UserFileError';
    this.code = code;
  }
}

/** The reason a file cannot be read, in `t`'s language, by its code (see {@link UserFileError}). */
export function unreadableReason(code: string | undefined, t: Translator['t']): string {
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return t('manifest.reasonMissing');
    case 'EACCES':
    case 'EPERM':
      return t('manifest.reasonPermission');
    case 'EISDIR':
      return t('manifest.reasonFolder');
    case 'FIFO':
      return t('manifest.reasonPipe');
    case 'DEVICE':
      return t('manifest.reasonDevice');
    case 'SOCKET':
      return t('manifest.reasonSocket');
    case 'OUTSIDE_FOLDER':
      return t('manifest.reasonOutside');
    case 'ETIMEDOUT':
      return t('manifest.reasonTimeout', { seconds: USER_FILE_DEADLINE_MS / 1000 });
    case 'ELOOP':
      return t('manifest.reasonLink');
    case 'SYSTEM_FILE':
      return t('manifest.reasonSystem');
    case 'BAD_PATH':
    case 'ERR_INVALID_ARG_VALUE':
    case 'ENAMETOOLONG':
      return t('manifest.reasonBadPath');
    default:
      return t('manifest.reasonOther', { code: code ?? 'unknown error' });
  }
}

/** The system calls this module makes; a test gives ones that hang, to check the deadline and the thread budget. */
export interface UserFileSystem {
  realpath(path: string): Promise<string>;
  open(path: string, flags: number): Promise<FileHandle>;
  stat(path: string): Promise<Stats>;
  readdir(path: string): Promise<readonly FolderEntry[]>;
  readlink(path: string): Promise<string>;
}

const nodeCalls: UserFileSystem = {
  realpath: (path) => realpathOf(path),
  open: openFile,
  stat: statOf,
  readdir: (path) => readdirOf(path, { withFileTypes: true }),
  readlink: (path) => readlinkOf(path),
};

/** True when `path` is inside `folder` (both resolved), not the folder itself. */
function isInside(folder: string, path: string): boolean {
  const inside = relative(folder, path);
  return inside !== '' && inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside);
}

/**
 * The operating system's own pseudo-files (Linux's /proc and /sys, and /dev): "regular" to
 * `fstat` at times, but never a document, and some hold secrets (a process's environment).
 */
function isSystemPath(path: string): boolean {
  return process.platform !== 'win32' && /^\/(proc|sys|dev)(\/|$)/.test(path);
}

export interface UserFileOptions {
  /** The file must be inside this folder once symbolic links are resolved (a manifest's folder). */
  readonly within?: string;
  /**
   * The path and `within` are already resolved ({@link UserFiles.resolved}): they are not resolved
   * again. What is opened is still checked against where the system says the open file is.
   */
  readonly resolved?: boolean;
}

/** An entry of a folder: its name, and whether it is a folder itself (a link is not). */
export interface FolderEntry {
  readonly name: string;
  isDirectory(): boolean;
}

/**
 * A person's file, open and checked as a regular file, nothing of it read yet: what `fstat` said
 * of it, then its bytes as asked for. Reads and the close are bounded like every other call.
 */
export interface OpenUserFile {
  /** Its size in bytes when it was opened (a file may still grow: reads say what is there). */
  readonly size: number;
  /**
   * Which file it is, whatever name led to it: its device and inode. Two names with one identity
   * (a hard link, a path through another folder's name) are one file.
   */
  readonly identity: string;
  /** At most `length` bytes from where the last read ended; an empty buffer at the end of the file. */
  read(length: number): Promise<Buffer>;
  /** Closes the file; the first call closes it, later ones answer the same. */
  close(): Promise<void>;
}

/** The person's files, read by the rules above. */
export interface UserFiles {
  /** Opens the file and checks it (regular, where it may be) without reading a byte; fails with a {@link UserFileError}. */
  open(path: string, options: UserFileOptions): Promise<OpenUserFile>;
  /** The whole file, refused with `TOO_LARGE` when it holds more than `maxBytes`. */
  readWhole(path: string, options: UserFileOptions & { readonly maxBytes: number }): Promise<Buffer>;
  /** The entries of a folder, sorted by name. */
  list(folder: string): Promise<FolderEntry[]>;
  /** The path with its links resolved (what two spellings of one file share); fails like a read would (ENOENT…). */
  resolved(path: string): Promise<string>;
}

/** A counting gate: at most `size` holders at once, the others wait in turn. */
class ThreadBudget {
  readonly #waiting: (() => void)[] = [];
  #free: number;
  constructor(size: number) {
    this.#free = size;
  }
  /** A place in the queue; `cancel` leaves the queue (a place already granted is given back with `give`). */
  take(): { readonly granted: Promise<void>; readonly cancel: () => void } {
    if (this.#free > 0) {
      this.#free -= 1;
      return { granted: Promise.resolve(), cancel: () => undefined };
    }
    let grant!: () => void;
    const granted = new Promise<void>((resolveGrant) => {
      grant = resolveGrant;
    });
    this.#waiting.push(grant);
    return {
      granted,
      cancel: () => {
        const index = this.#waiting.indexOf(grant);
        if (index !== -1) this.#waiting.splice(index, 1);
      },
    };
  }
  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free += 1;
  }
}

export interface UserFilesOptions {
  readonly calls?: UserFileSystem;
  readonly deadlineMs?: number;
  readonly threads?: number;
  /** The clock the deadlines run on (default: the system's; tests pass a virtual one). */
  readonly clock?: Clock;
}

/** The person's files on the real disk, or through `calls` in a test. */
export function createUserFiles(options: UserFilesOptions = {}): UserFiles {
  const calls = options.calls ?? nodeCalls;
  const deadlineMs = options.deadlineMs ?? USER_FILE_DEADLINE_MS;
  const budget = new ThreadBudget(options.threads ?? USER_FILE_THREADS);
  const clock = options.clock ?? systemClock;

  /**
   * One file-system call, on one of the budget's threads, given up after the deadline (waiting
   * for a thread counts). A call given up keeps its thread until the system answers.
   */
  function bounded<T>(call: () => Promise<T>, onLateResult?: (value: T) => void): Promise<T> {
    return new Promise<T>((resolveCall, rejectCall) => {
      let settled = false;
      const ticket = budget.take();
      const cancelTimer = clock.timer(deadlineMs, () => {
        settled = true;
        ticket.cancel();
        rejectCall(new UserFileError('ETIMEDOUT', `no answer from the file system in ${deadlineMs} ms`));
      });
      void ticket.granted.then(() => {
        // Granted after the deadline: the thread was never used.
        if (settled) {
          budget.give();
          return;
        }
        call().then(
          (value) => {
            budget.give();
            cancelTimer();
            if (settled) onLateResult?.(value);
            else resolveCall(value);
            settled = true;
          },
          (error: unknown) => {
            budget.give();
            cancelTimer();
            if (!settled) rejectCall(error);
            settled = true;
          },
        );
      });
    });
  }

  /** The file open, once checked, with what `fstat` says of it (exact numbers: an inode may pass 2^53). */
  async function openRegular(
    path: string,
    { within, resolved = false }: UserFileOptions,
  ): Promise<{ readonly handle: FileHandle; readonly info: BigIntStats }> {
    if (path.includes('\0')) throw new UserFileError('BAD_PATH', 'a path with a NUL character');
    const real = resolved ? path : await bounded(() => calls.realpath(path));
    if (isSystemPath(real)) throw new UserFileError('SYSTEM_FILE', 'a file of the operating system');
    const folder =
      within === undefined || resolved ? within : await bounded(() => calls.realpath(resolve(within)));
    if (folder !== undefined && !isInside(folder, real))
      throw new UserFileError('OUTSIDE_FOLDER', 'the file is outside its folder');
    let handle: FileHandle;
    try {
      handle = await bounded(
        () => calls.open(real, SAFE_READ_FLAGS),
        (late) => void late.close().catch(() => undefined),
      );
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !NOT_OPENABLE.has(code)) throw error;
      const info = await bounded(() => calls.stat(real));
      throw new UserFileError(info.isFile() ? code : kindCode(info), 'not a regular file');
    }
    try {
      const info = await bounded(() => handle.stat({ bigint: true }));
      if (!info.isFile()) throw new UserFileError(kindCode(info), 'not a regular file');
      // A folder on the way may have been swapped for a link between `realpath` and `open`
      // (O_NOFOLLOW guards the last part only): the file opened must be the one checked.
      const opened = await openedPath(handle, real, info);
      if (isSystemPath(opened)) throw new UserFileError('SYSTEM_FILE', 'a file of the operating system');
      if (folder !== undefined && !isInside(folder, opened))
        throw new UserFileError('OUTSIDE_FOLDER', 'the file is outside its folder');
      return { handle, info };
    } catch (error) {
      await release(handle);
      throw error;
    }
  }

  /**
   * Closes a file without waiting past the deadline: Node's close waits for the handle's pending
   * reads, and a read from a drive that stopped answering mid-file never returns (the close then
   * ends whenever that read does, on its own).
   */
  async function release(handle: FileHandle): Promise<void> {
    await new Promise<void>((resolveRelease) => {
      const cancelTimer = clock.timer(deadlineMs, resolveRelease);
      void handle
        .close()
        .catch(() => undefined)
        .finally(() => {
          cancelTimer();
          resolveRelease();
        });
    });
  }

  /**
   * Where the open file really is: on Linux the kernel says it (`/proc/self/fd`); elsewhere the
   * checked path, provided it still resolves to itself (no folder on the way became a link since
   * it was checked: `stat` alone would follow such a link to the very file opened) and still
   * names the very file that was opened (same device and inode). Without the kernel's word, a
   * swap made and undone between the open and these checks goes unseen: the README says so.
   */
  async function openedPath(handle: FileHandle, checked: string, info: BigIntStats): Promise<string> {
    if (process.platform === 'linux') {
      const where = await bounded(() => calls.readlink(`/proc/self/fd/${handle.fd}`)).catch(() => undefined);
      if (where !== undefined && isAbsolute(where)) return where;
    }
    const [now, resolvedNow] = await Promise.all([
      bounded(() => calls.stat(checked)),
      bounded(() => calls.realpath(checked)),
    ]);
    if (resolvedNow !== checked || now.dev !== Number(info.dev) || now.ino !== Number(info.ino))
      throw new UserFileError('ELOOP', 'the file changed while it was being opened');
    return checked;
  }

  async function openChecked(path: string, options: UserFileOptions): Promise<OpenUserFile> {
    const { handle, info } = await openRegular(path, options);
    // `Number` and `String` also take a test's plain `Stats` in place of the exact ones.
    let left = Number(info.size);
    let closed: Promise<void> | undefined;
    return {
      size: left,
      identity: `${String(info.dev)}:${String(info.ino)}`,
      async read(length) {
        // Sized to what `fstat` said is left, plus a byte to see the end (or a file that grew):
        // a small file's buffers come from Node's shared pool instead of a fresh 64 KiB each.
        const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(length, left + 1)));
        const { bytesRead } = await bounded(() => handle.read(buffer, 0, buffer.length, null));
        // Past what `fstat` said, the file grew: full reads from then on.
        left = bytesRead > left ? Number.POSITIVE_INFINITY : left - bytesRead;
        return bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
      },
      close: () => (closed ??= release(handle)),
    };
  }

  return {
    open: openChecked,
    async readWhole(path, options) {
      const { handle, info } = await openRegular(path, options);
      try {
        if (Number(info.size) > options.maxBytes)
          throw new UserFileError('TOO_LARGE', 'the file is too large');
        const chunks: Buffer[] = [];
        let total = 0;
        for (;;) {
          // One byte more than allowed tells a file that grew past the limit from one that fits.
          const buffer = Buffer.allocUnsafe(Math.min(1024 * 1024, options.maxBytes - total + 1));
          const { bytesRead } = await bounded(() => handle.read(buffer, 0, buffer.length, null));
          if (bytesRead === 0) break;
          total += bytesRead;
          if (total > options.maxBytes) throw new UserFileError('TOO_LARGE', 'the file is too large');
          chunks.push(buffer.subarray(0, bytesRead));
        }
        return Buffer.concat(chunks, total);
      } finally {
        await release(handle);
      }
    },
    async list(folder) {
      const entries = await bounded(() => calls.readdir(folder));
      return [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    resolved: (path) =>
      path.includes('\0')
        ? Promise.reject(new UserFileError('BAD_PATH', 'a path with a NUL character'))
        : bounded(() => calls.realpath(path)),
  };
}

/** The real disk, shared by the whole process so that the thread budget holds for every caller. */
export const userFiles: UserFiles = createUserFiles();
