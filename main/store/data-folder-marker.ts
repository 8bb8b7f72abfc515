import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errorCode } from './file-system';

/**
 * What the data folder says about itself to version control: everything in it is private state
 * (journals, copies of contracts, settings), never source. A data folder created inside a
 * project checkout (`--data-dir ./my-data` next to the code) is then left out of `git status`,
 * of commits, and of the repository's format check, which lists its files through git.
 */
const MARKER_NAME = '.gitignore';
const MARKER_TEXT = '# Signing Batch Desk data folder: private state, never committed.\n*\n';

/**
 * The names the app keeps at the top of a data folder (the lock, the batches and their copies,
 * settings, connections, the demo service's state), with the temporary files of an atomic
 * write. A folder holding anything else is someone's own folder named as the data folder
 * (`--data-dir .`): it is never marked, or its owner's new files would vanish from git.
 */
const OWN_NAMES = new Set([
  MARKER_NAME,
  'lock',
  'lock-owner.json',
  'batches',
  'blobs',
  'deleted-contracts',
  'demo-service',
  'service-holds.json',
  'settings.json',
  'profiles.json',
  'keychain-id.json',
]);
const ATOMIC_WRITE_LEFTOVER = /\.\d+\.\d+\.tmp$/;

function isOwnName(name: string): boolean {
  return OWN_NAMES.has(name) || ATOMIC_WRITE_LEFTOVER.test(name);
}

/**
 * Writes the marker once, into a folder the app has just created or one that holds only the
 * app's own files (an earlier version's data folder); an existing file (the person's own, or one
 * planted as a link) is left as it is: O_EXCL never follows or replaces what is there.
 */
export async function markDataFolder(dataDir: string, options: { readonly created: boolean }): Promise<void> {
  if (!options.created && !(await readdir(dataDir)).every(isOwnName)) return;
  try {
    const handle = await open(join(dataDir, MARKER_NAME), 'wx', 0o600);
    try {
      await handle.writeFile(MARKER_TEXT);
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
  }
}
