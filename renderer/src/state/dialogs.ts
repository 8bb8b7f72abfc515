/**
 * The `dialogs.*` channels: main's pickers (the page never names a path itself), each followed by
 * what the person picked the file for — the PDFs are added, the manifest is previewed.
 */
import type { ManifestPreview } from '../../../shared/ipc/views';
import { desk, unwrap } from '../bridge';
import { attempt } from './call-failures';
import type { StoreKit } from './store-shape';
import { withFolderSkippedNotice } from './transitions';

export interface DialogsActions {
  /** "Add PDFs…": the PDFs picked are added to the batch (`documents.addPaths`). */
  pickPdfs(batchId: string): Promise<void>;
  /**
   * "Add folder…": the PDFs directly in the folder picked are added, each checked to stay inside
   * it; what the folder held besides is said once.
   */
  pickFolder(batchId: string): Promise<void>;
  /** "Import manifest…": the preview of the manifest picked (`manifest.preview`), undefined when none. */
  pickManifest(): Promise<ManifestPreview | undefined>;
}

export function dialogsActions(kit: StoreKit): DialogsActions {
  const { set, get } = kit;
  return {
    async pickPdfs(batchId) {
      const paths = await attempt(kit, () => unwrap(desk().dialogs.pickPdfs()));
      if (paths) await get().actions.documents.addPaths(batchId, paths);
    },
    async pickFolder(batchId) {
      const picked = await attempt(kit, () => unwrap(desk().dialogs.pickFolder()));
      if (!picked) return;
      // Said before the adding, so it is not pushed away by the adding's own notices.
      set((state) => withFolderSkippedNotice(state, picked.skipped));
      await get().actions.documents.addPaths(batchId, picked.paths, picked.folder);
    },
    async pickManifest() {
      const path = await attempt(kit, () => unwrap(desk().dialogs.pickManifest()));
      return path ? get().actions.manifest.preview(path) : undefined;
    },
  };
}
