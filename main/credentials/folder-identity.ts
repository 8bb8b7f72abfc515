/**
 * Which keychain entries belong to this data folder. Every data folder of one account shares one
 * keychain, so the entries of each are filed under an id of its own (folder-secrets.ts names
 * them): a random id kept in the folder's `keychain-id.json`, made the first time a secret is
 * saved. A random id rather than the folder's path, so a folder that is moved or renamed keeps
 * its secrets.
 *
 * A file can be copied, and a copy carries the same id. So the keychain also records, for each
 * id, the folder that owns it on this computer: its path, device and inode, and when it was made.
 * Only that very folder may write or delete the id's entries. Any other folder that finds the id
 * in its file (a copy, a backup opened in place of the original, a folder moved to another disk)
 * takes a new id and copies to it the secrets its own profiles can use (sealed for their
 * addresses), never deleting or changing one of the old id's: the original may still be
 * somewhere and use them. A folder on another computer meets another keychain, where the id has
 * no owner yet: it becomes the owner there.
 */
import { randomUUID } from 'node:crypto';
import { link, realpath, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { err, ok, type Err, type Result } from '../../shared/base/result';
import { Secret } from '../base/secret';
import { words } from '../base/words';
import { unreadableReason } from '../files/user-files';
import { makeDirectoryDurable, syncDirectory, writeFileAtomic } from '../store/durable-fs';
import { errorCode } from '../store/file-system';
import { OwnFileError, readOwnFile } from '../store/own-file';
import type { CredentialStore, KeychainUnavailable } from './credential-store';
import type { SettingsNotSaved, SettingsUnreadable } from './settings-failures';

export const KEYCHAIN_ID_FILE = 'keychain-id.json';
/** The file holds one id: a few dozen bytes; anything larger is not one. */
const ID_FILE_LIMIT = 4096;

/**
 * Starts every keychain account this version files. An earlier version filed a secret under the
 * bare profile name: a name that starts like this is never looked up as such an entry, so no
 * profile name can reach another folder's entry (folder-secrets.ts).
 */
export const FOLDER_ACCOUNT_PREFIX = 'folder:';

/** The keychain account that records which folder owns `id` on this computer. */
export const ownerAccount = (id: string): string => `${FOLDER_ACCOUNT_PREFIX}${id}`;

const idFileSchema = z.object({ version: z.literal(1), id: z.string().uuid() });

/**
 * Where a folder is: its real path, and the device and inode of the folder itself (decimal); when
 * its file system says, the instant it was made (`born`, in nanoseconds: a copy is made anew).
 */
interface Location {
  readonly home: string;
  readonly device: string;
  readonly inode: string;
  readonly born?: string | undefined;
}

const locationSchema = z.object({
  home: z.string(),
  device: z.string(),
  inode: z.string(),
  born: z.string().optional(),
});

export type FolderFailure = KeychainUnavailable | SettingsUnreadable | SettingsNotSaved;
export type FolderResult<T> = Result<T, FolderFailure>;

export interface FolderIdentity {
  /**
   * The id whose entries are this folder's, or undefined when it has none yet (nothing was ever
   * saved from it). An id this folder does not own is replaced first (see above).
   */
  current(): Promise<FolderResult<string | undefined>>;
  /** {@link current}, making an id when the folder has none. */
  owned(): Promise<FolderResult<string>>;
}

export interface FolderIdentityOptions {
  readonly dataDir: string;
  readonly credentials: CredentialStore;
  /**
   * Copies what this folder's profiles can use from the entries of `from` to those of `to`,
   * when the folder takes a new id. Never deletes or changes an entry of `from`.
   */
  readonly carryOver: (from: string, to: string) => Promise<Result<void, KeychainUnavailable>>;
  /** Deletes what was copied to `id` (as far as the keychain lets): a new id that could not be taken. */
  readonly forget: (id: string) => Promise<void>;
}

/**
 * The very folder an owner record names: the same inode, made at the same instant when both say
 * when, on the same device or at the same path. Inode numbers repeat from one disk to another
 * (two disks formatted alike give a copy made the same way the original's number), and so do
 * device numbers (the next disk plugged in gets the last one's). So at the same path on another
 * device (a removable disk mounted again) the folder must also have been made at the same
 * instant: a copy was made when it was copied. Where the file system does not say when, it counts
 * as a copy there: it takes an id of its own with its usable secrets, and the original's stay.
 */
function sameFolder(owner: Location, here: Location): boolean {
  if (owner.inode !== here.inode) return false;
  if (owner.born !== undefined && here.born !== undefined && owner.born !== here.born) return false;
  if (owner.device === here.device) return true;
  return owner.home === here.home && owner.born !== undefined && owner.born === here.born;
}

function sameLocation(a: Location, b: Location): boolean {
  return a.home === b.home && a.device === b.device && a.inode === b.inode && a.born === b.born;
}

function idFileContents(id: string): string {
  return `${JSON.stringify({ version: 1, id }, null, 2)}\n`;
}

export function openFolderIdentity(options: FolderIdentityOptions): FolderIdentity {
  const { dataDir, credentials } = options;
  const path = join(dataDir, KEYCHAIN_ID_FILE);
  // The id this process settled on (see settle).
  let known: string | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };

  function unreadable(detail: string): Err<SettingsUnreadable> {
    return err({
      code: 'settings_unreadable',
      message: words()('connections.keychainIdUnreadable', { path, detail }),
      detail,
    });
  }

  function notSaved(error: unknown): Err<SettingsNotSaved> {
    const detail = errorCode(error) ?? (error as Error).message;
    return err({
      code: 'settings_not_saved',
      message: words()('connections.settingsNotSaved', { path, detail }),
      detail,
    });
  }

  async function readId(): Promise<FolderResult<string | undefined>> {
    let text: string | undefined;
    try {
      text = await readOwnFile(path, ID_FILE_LIMIT);
    } catch (error) {
      const code = errorCode(error) ?? 'unknown error';
      return unreadable(
        error instanceof OwnFileError
          ? unreadableReason(code, words())
          : words()('connections.settingsCannotOpen', { code }),
      );
    }
    if (text === undefined) return ok(undefined);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return unreadable(words()('connections.settingsNotJson'));
    }
    const parsed = idFileSchema.safeParse(json);
    return parsed.success ? ok(parsed.data.id) : unreadable(words()('connections.keychainIdInvalid'));
  }

  async function locate(): Promise<FolderResult<Location>> {
    try {
      const home = await realpath(dataDir);
      const info = await stat(home, { bigint: true });
      // 0: the file system does not say when the folder was made.
      const born = info.birthtimeNs > 0n ? String(info.birthtimeNs) : undefined;
      return ok({ home, device: String(info.dev), inode: String(info.ino), ...(born ? { born } : {}) });
    } catch (error) {
      return unreadable(words()('connections.settingsCannotOpen', { code: errorCode(error) ?? 'unknown' }));
    }
  }

  /** The folder that owns `id` on this computer, as the keychain records it; undefined when none does. */
  async function ownerOf(id: string): Promise<FolderResult<Location | undefined>> {
    const stored = await credentials.readSecret(ownerAccount(id));
    if (!stored.ok) return stored;
    if (!stored.value) return ok(undefined);
    try {
      const parsed = locationSchema.safeParse(JSON.parse(stored.value.reveal()));
      // A record no version wrote is as good as none: the folder that finds it claims the id.
      return ok(parsed.success ? parsed.data : undefined);
    } catch {
      return ok(undefined);
    }
  }

  const claim = (id: string, here: Location) =>
    credentials.saveSecret(ownerAccount(id), new Secret(JSON.stringify(here)));

  /** A first id for a folder that has none: the keychain is asked first, so without one nothing is written. */
  async function create(): Promise<FolderResult<string>> {
    const reachable = await credentials.probe();
    if (!reachable.ok) return reachable;
    const id = randomUUID();
    const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
    try {
      await makeDirectoryDurable(dataDir);
      await writeFileAtomic(temporary, idFileContents(id));
      // A link, unlike a rename, never replaces: a process that made an id first keeps it.
      await link(temporary, path);
      await syncDirectory(dataDir);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') return notSaved(error);
      // Another process made the folder's id meanwhile: it is the folder's id.
      const theirs = await resolve();
      if (!theirs.ok) return theirs;
      return theirs.value === undefined ? notSaved(error) : ok(theirs.value);
    } finally {
      await rm(temporary, { force: true }).catch(() => undefined);
    }
    const here = await locate();
    if (!here.ok) return here;
    const claimed = await claim(id, here.value);
    return claimed.ok ? ok(id) : claimed;
  }

  /** A new id for a folder that found one it does not own, with its usable secrets copied to it. */
  async function takeNewId(previous: string, here: Location): Promise<FolderResult<string>> {
    const id = randomUUID();
    const claimed = await claim(id, here);
    if (!claimed.ok) return claimed;
    const carried = await options.carryOver(previous, id);
    let failure: FolderFailure | undefined = carried.ok ? undefined : carried.error;
    if (carried.ok) {
      try {
        await writeFileAtomic(path, idFileContents(id));
      } catch (error) {
        failure = notSaved(error).error;
      }
    }
    if (failure === undefined) return ok(id);
    // No secret is left under an id no folder has: the copies go, the folder keeps the old id.
    await options.forget(id);
    await credentials.deleteSecret(ownerAccount(id));
    return err(failure);
  }

  /** The id in the folder's file, once this folder owns it; undefined when the file holds none. */
  async function resolve(): Promise<FolderResult<string | undefined>> {
    const id = await readId();
    if (!id.ok || id.value === undefined) return id;
    const owner = await ownerOf(id.value);
    if (!owner.ok) return owner;
    const here = await locate();
    if (!here.ok) return here;
    if (owner.value !== undefined && !sameFolder(owner.value, here.value)) {
      return takeNewId(id.value, here.value);
    }
    // No owner yet (a new keychain, another computer), or this folder moved on its own disk.
    const stale = owner.value === undefined || !sameLocation(owner.value, here.value);
    if (stale) {
      const claimed = await claim(id.value, here.value);
      if (!claimed.ok) return claimed;
    }
    return id;
  }

  /**
   * One settling at a time; once this folder's id is known, it is the answer while the folder's
   * file still holds it. Another process that found the same copy at the same moment took an id
   * of its own and wrote it last: that id is the folder's, and this process files under it too
   * (a secret saved under the id it lost would be gone at the next start).
   */
  function settle<T extends string | undefined>(
    task: () => Promise<FolderResult<T>>,
  ): Promise<FolderResult<T>> {
    return serial(async () => {
      if (known !== undefined) {
        const onDisk = await readId();
        // A file that cannot be read just now does not change whose entries these are.
        if (!onDisk.ok || onDisk.value === known) return ok(known as T);
        known = undefined;
      }
      const settled = await task();
      if (settled.ok && settled.value !== undefined) known = settled.value;
      return settled;
    });
  }

  return {
    current: () => settle(resolve),
    owned: () =>
      settle(async (): Promise<FolderResult<string>> => {
        const existing = await resolve();
        if (!existing.ok) return existing;
        return existing.value === undefined ? create() : ok(existing.value);
      }),
  };
}
