import { open } from 'node:fs/promises';
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
 * Writes the marker once, when the folder has none; an existing file (the person's own, or one
 * planted as a link) is left as it is: O_EXCL never follows or replaces what is there.
 */
export async function markDataFolder(dataDir: string): Promise<void> {
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
