import { open, mkdir, rm, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { tryLock, unlock } from 'fs-native-extensions';
import { z } from 'zod';
import { err, ok, type Result } from '../../shared/base/result';
import type { Translator } from '../../shared/i18n/translator';
import { markDataFolder } from './data-folder-marker';
import { writeFileAtomic } from './durable-fs';
import { readOwnFile } from './own-file';

/** Who holds a data folder, as its owner wrote it down when it took the lock. */
export interface LockHolder {
  /** `os.hostname()` of the holder's computer. */
  readonly host: string;
  readonly pid: number;
  /** When the holder's process started (ISO 8601). */
  readonly processStartedAt: string;
  /** When it took the lock (ISO 8601). */
  readonly lockedAt: string;
}

/** The data folder's lock, held until released. */
export interface DataDirLock {
  release(): Promise<void>;
}

/**
 * The lock, or who holds it: undefined when the holder has not written its name yet, or it
 * cannot be read.
 */
export type LockResult = Result<DataDirLock, LockHolder | undefined>;

const fileLocks = { tryLock, unlock };

const LOCK_FILE = 'lock';
const OWNER_FILE = 'lock-owner.json';
/** An owner file is a few hundred bytes; anything larger is not one. */
const OWNER_FILE_LIMIT = 4096;

const ownerSchema = z.object({
  host: z
    .string()
    .min(1)
    .max(255)
    .regex(/^\P{C}+$/u),
  pid: z.number().int().positive(),
  processStartedAt: z.iso.datetime(),
  lockedAt: z.iso.datetime(),
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The owner file, or undefined when it is missing, oversized, not a regular file or not an owner.
 * Opened without blocking or following a link: a FIFO in its place must not hang the refused process.
 */
async function readOwnerFile(path: string): Promise<LockHolder | undefined> {
  try {
    const text = await readOwnFile(path, OWNER_FILE_LIMIT);
    if (text === undefined) return undefined;
    const parsed = ownerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Names the holder of a lock this process could not take. A holder that has just taken over
 * from a crashed one writes its name a moment after taking the lock; until then the file still
 * names the crashed process. A process of this computer that no longer exists cannot hold a
 * lock, so such a name is read again briefly and then reported as unknown. This check only
 * labels the message: who holds the folder is decided by the kernel alone.
 */
async function identifyHolder(ownerPath: string): Promise<LockHolder | undefined> {
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const holder = await readOwnerFile(ownerPath);
    if (holder === undefined || holder.host !== hostname() || isAlive(holder.pid)) return holder;
    await new Promise((resolveWait) => setTimeout(resolveWait, 20));
  }
  return undefined;
}

/** Error codes of a Windows sharing violation: a contender is reading the owner file right now. */
const SHARING_VIOLATIONS = new Set(['EPERM', 'EACCES', 'EBUSY']);

/** Writes the owner file atomically; on Windows, tries again while a contender is reading it. */
async function writeOwnerFile(path: string, owner: LockHolder): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await writeFileAtomic(path, `${JSON.stringify(owner)}\n`);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (process.platform !== 'win32' || !SHARING_VIOLATIONS.has(code) || attempt === 5) throw error;
      await new Promise((resolveWait) => setTimeout(resolveWait, 20 * attempt));
    }
  }
}

/** Windows frees the lock of a closed file only "eventually" (LockFileEx): unlock first. */
async function unlockAndClose(handle: FileHandle): Promise<void> {
  try {
    fileLocks.unlock(handle.fd);
  } finally {
    await handle.close();
  }
}

/**
 * Takes the data folder for this process, so two processes (the app and a command line run, on
 * this computer or another one sharing the folder) never work on the same batches at once.
 *
 * The lock is an advisory lock held by the kernel on `<dataDir>/lock` for as long as this
 * process keeps the file open (fs-native-extensions: an open-file-description `fcntl` lock on
 * Linux, `flock` on macOS, `LockFileEx` on Windows). It is taken and released in one atomic
 * step, and the kernel releases it when the process dies, even by SIGKILL, so a folder whose
 * holder crashed is free at once, and whatever pid a stale file names never blocks anyone.
 * (Windows frees a dead process's locks "depending on available system resources": there a
 * folder may be refused for a moment after a crash, never handed out twice.)
 *
 * - The lock file is never deleted, by anyone. A process that deleted it would leave the holder
 *   locking a file no longer in the folder, and the next process would create and lock a new
 *   one: two holders.
 * - Who holds the lock is written to a separate file, `<dataDir>/lock-owner.json`, by the holder
 *   only, atomically (temporary file, fsync, rename), right after taking the lock. Windows locks
 *   are mandatory, so nobody else could read a name kept inside the locked file. The owner file
 *   only feeds the message of a refused process; nothing is decided from it.
 * - On a network drive, NFSv4 and SMB servers keep these locks for their clients, so a holder on
 *   another computer is respected (its owner file names its host). When that computer vanishes
 *   without closing the file, the server frees the lock once its lease runs out (about 90 s on
 *   NFSv4) rather than at once. A file system without lock support (NFSv3 without lockd) makes
 *   this function throw rather than hand out a lock it cannot hold.
 *
 * The lock is also exclusive within one process: a second call for the same folder is refused.
 */
export async function lockDataDir(dataDir: string): Promise<LockResult> {
  // The first folder mkdir made, or undefined when the data folder was already there.
  const created = (await mkdir(dataDir, { recursive: true, mode: 0o700 })) !== undefined;
  const ownerPath = join(dataDir, OWNER_FILE);
  // Node opens files close-on-exec, so a child process started later does not inherit the lock.
  const handle = await open(join(dataDir, LOCK_FILE), 'a+', 0o600);
  let locked: boolean;
  try {
    locked = fileLocks.tryLock(handle.fd);
  } catch (error) {
    await handle.close();
    throw new Error(`the data folder ${dataDir} cannot be locked`, { cause: error });
  }
  if (!locked) {
    await handle.close();
    return err(await identifyHolder(ownerPath));
  }
  const owner: LockHolder = {
    host: hostname(),
    pid: process.pid,
    processStartedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    lockedAt: new Date().toISOString(),
  };
  try {
    await writeOwnerFile(ownerPath, owner);
    await markDataFolder(dataDir, { created });
  } catch (error) {
    await unlockAndClose(handle);
    throw error;
  }
  let released = false;
  return ok({
    async release() {
      if (released) return;
      released = true;
      try {
        // Removed while the lock is still held, so it can only be this process's own name.
        await rm(ownerPath, { force: true });
      } finally {
        await unlockAndClose(handle);
      }
    },
  });
}

function twoDigits(value: number): string {
  return String(value).padStart(2, '0');
}

/** A local time as `2026-11-23 09:12`. */
function formatLocalTime(iso: string): string {
  const date = new Date(iso);
  return `${date.getFullYear()}-${twoDigits(date.getMonth() + 1)}-${twoDigits(date.getDate())} ${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}`;
}

/** Describes a holder for a message in `t`'s language: `pid 123 on host ws-42, running since 2026-11-23 09:12`. */
export function describeLockHolder(holder: LockHolder, t: Translator['t']): string {
  const since = formatLocalTime(holder.processStartedAt);
  return holder.host === hostname()
    ? t('shell.lockHolderHere', { pid: String(holder.pid), since })
    : t('shell.lockHolderElsewhere', { pid: String(holder.pid), host: holder.host, since });
}
