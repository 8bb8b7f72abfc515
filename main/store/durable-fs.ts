import { dirname, join, relative, sep } from 'node:path';
import { nodeFileSystem, type FileSystem } from './file-system';

/** Flushes a directory entry so a rename or a new file inside it survives power loss. */
export async function syncDirectory(path: string, fs: FileSystem = nodeFileSystem): Promise<void> {
  await fs.syncDirectory(path);
}

/**
 * The folders to sync so that `path` survives a power cut: its parent and, when `firstCreated`
 * says mkdir created levels, the parent of each of them (a new folder is an entry of its parent,
 * lost at a power cut until it is synced).
 */
function levelsToSync(path: string, firstCreated: string | undefined): Set<string> {
  const parents = new Set<string>([dirname(path)]);
  if (firstCreated !== undefined) {
    parents.add(dirname(firstCreated));
    const below = relative(firstCreated, path);
    let level = firstCreated;
    for (const name of below === '' ? [] : below.split(sep)) {
      parents.add(level);
      level = join(level, name);
    }
  }
  return parents;
}

async function syncNewLevels(path: string, firstCreated: string | undefined, fs: FileSystem): Promise<void> {
  for (const parent of levelsToSync(path, firstCreated)) await fs.syncDirectory(parent);
}

/**
 * Creates `path` and any missing parent so that they survive power loss. The parent of `path`
 * is synced even when nothing was created here, since a process that died before syncing it
 * may have left the folder in the page cache only. With `wholePath`, every folder from the
 * root down is synced, for the same reason one level up: for a store's top folder, once.
 */
export async function makeDirectoryDurable(
  path: string,
  fs: FileSystem = nodeFileSystem,
  options: { readonly mode?: number; readonly wholePath?: boolean } = {},
): Promise<void> {
  const firstCreated = await fs.mkdir(path, options.mode === undefined ? {} : { mode: options.mode });
  if (!options.wholePath) {
    await syncNewLevels(path, firstCreated, fs);
    return;
  }
  const ancestors: string[] = [];
  for (let level = dirname(path); ; level = dirname(level)) {
    ancestors.unshift(level);
    if (dirname(level) === level) break;
  }
  for (const ancestor of ancestors) await fs.syncDirectory(ancestor);
}

/**
 * `makeDirectoryDurable` for several folders at once: every folder is created, then each parent
 * to sync is synced once, however many of the folders it holds.
 */
export async function makeDirectoriesDurable(
  paths: Iterable<string>,
  fs: FileSystem = nodeFileSystem,
): Promise<void> {
  const parents = new Set<string>();
  for (const path of paths) {
    for (const parent of levelsToSync(path, await fs.mkdir(path))) parents.add(parent);
  }
  for (const parent of parents) await fs.syncDirectory(parent);
}

/**
 * Replaces `path` with `contents` atomically and durably: write a temporary file, fsync it,
 * rename it over the target, fsync the folder. A crash leaves either the old or the new file.
 */
export async function writeFileAtomic(
  path: string,
  contents: string | Uint8Array,
  fs: FileSystem = nodeFileSystem,
): Promise<void> {
  const folder = dirname(path);
  const firstCreated = await fs.mkdir(folder);
  // A folder made here must outlive a power cut with the file; an existing one costs nothing.
  if (firstCreated !== undefined) await syncNewLevels(folder, firstCreated, fs);
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  const handle = await fs.open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(contents);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
  await handle.close();
  await fs.rename(temporary, path);
  await fs.syncDirectory(folder);
}
