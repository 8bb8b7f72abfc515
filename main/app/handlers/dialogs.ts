import type { DeskHandlers } from '../../../shared/ipc/contract';
import { join } from 'node:path';
import { userFiles } from '../../files/user-files';
import type { DeskContext } from '../desk-context';

const PDF_EXTENSION = /\.pdf$/i;

export function dialogsHandlers(
  ctx: DeskContext,
): Pick<DeskHandlers, 'dialogs.pickPdfs' | 'dialogs.pickFolder' | 'dialogs.pickManifest'> {
  return {
    'dialogs.pickPdfs': () => ctx.deps.dialogs.pickPdfs(),
    'dialogs.pickFolder': async () => {
      const folder = await ctx.deps.dialogs.pickFolder();
      if (!folder) return null;
      // Every entry named .pdf, whatever its kind: adding them says why a link or a pipe is not taken.
      const entries = await userFiles.list(folder);
      const others = entries.filter((entry) => !PDF_EXTENSION.test(entry.name));
      // What is not taken is counted, so the person is told (a folder's subfolders are not searched).
      const subfolders = others.filter((entry) => entry.isDirectory()).length;
      return {
        folder,
        paths: entries
          .filter((entry) => PDF_EXTENSION.test(entry.name))
          .map((entry) => join(folder, entry.name)),
        skipped: { subfolders, otherFiles: others.length - subfolders },
      };
    },
    'dialogs.pickManifest': async () => (await ctx.deps.dialogs.pickManifest()) ?? null,
  };
}
