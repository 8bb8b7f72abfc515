import type { DeskHandlers } from '../../../shared/ipc/contract';
import { join } from 'node:path';
import { userFiles } from '../../batch/user-files';
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
      const names = await userFiles.list(folder);
      return {
        folder,
        paths: names.filter((name) => PDF_EXTENSION.test(name)).map((name) => join(folder, name)),
      };
    },
    'dialogs.pickManifest': async () => (await ctx.deps.dialogs.pickManifest()) ?? null,
  };
}
