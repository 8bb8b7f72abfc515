import type { DeskHandlers } from '../../../shared/ipc/contract';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeskContext } from '../desk-context';

const PDF_EXTENSION = /\.pdf$/i;

export function dialogsHandlers(
  ctx: DeskContext,
): Pick<DeskHandlers, 'dialogs.pickPdfs' | 'dialogs.pickFolder' | 'dialogs.pickManifest'> {
  return {
    'dialogs.pickPdfs': () => ctx.deps.dialogs.pickPdfs(),
    'dialogs.pickFolder': async () => {
      const folder = await ctx.deps.dialogs.pickFolder();
      if (!folder) return [];
      const entries = await readdir(folder, { withFileTypes: true });
      return entries
        .filter((entry) => entry.isFile() && PDF_EXTENSION.test(entry.name))
        .map((entry) => join(folder, entry.name));
    },
    'dialogs.pickManifest': async () => (await ctx.deps.dialogs.pickManifest()) ?? null,
  };
}
