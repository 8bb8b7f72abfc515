import type { DeskHandlers } from '../../../shared/ipc/contract';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { USER_FILE_DEADLINE_MS, userFiles } from '../../batch/user-files';
import type { DeskContext } from '../desk-context';

const PDF_EXTENSION = /\.pdf$/i;

/**
 * The names in `folder` that are folders themselves, so the person hears what a folder's pick
 * left out ("1 subfolder"). Only counted, never read; a listing that fails or does not answer in
 * time counts every entry as a file (the names were listed, with the thread budget, just before).
 */
async function subfolderNames(folder: string): Promise<ReadonlySet<string>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer')), USER_FILE_DEADLINE_MS);
  });
  try {
    const entries = await Promise.race([readdir(folder, { withFileTypes: true }), late]);
    return new Set(entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name));
  } catch {
    return new Set();
  } finally {
    clearTimeout(timer);
  }
}

export function dialogsHandlers(
  ctx: DeskContext,
): Pick<DeskHandlers, 'dialogs.pickPdfs' | 'dialogs.pickFolder' | 'dialogs.pickManifest'> {
  return {
    'dialogs.pickPdfs': () => ctx.deps.dialogs.pickPdfs(),
    'dialogs.pickFolder': async () => {
      const folder = await ctx.deps.dialogs.pickFolder();
      if (!folder) return null;
      // Every entry named .pdf, whatever its kind: adding them says why a link or a pipe is not taken.
      const names = await userFiles.list(folder);
      const others = names.filter((name) => !PDF_EXTENSION.test(name));
      // What is not taken is counted, so the person is told (a folder's subfolders are not searched).
      const folders = others.length === 0 ? new Set<string>() : await subfolderNames(folder);
      const subfolders = others.filter((name) => folders.has(name)).length;
      return {
        folder,
        paths: names.filter((name) => PDF_EXTENSION.test(name)).map((name) => join(folder, name)),
        skipped: { subfolders, otherFiles: others.length - subfolders },
      };
    },
    'dialogs.pickManifest': async () => (await ctx.deps.dialogs.pickManifest()) ?? null,
  };
}
