/** The `manifest.*` channels: a manifest's preview (nothing changes), and its import into a batch. */
import type { ChannelResult } from '../../../shared/ipc/contract';
import type { ManifestPreview } from '../../../shared/ipc/views';
import { desk, unwrap } from '../bridge';
import { attempt, failedWith, failureText } from './call-failures';
import type { StoreKit } from './store-shape';
import { withNotAddedNotice, withNotice } from './transitions';

/**
 * What came of an import: done, or not, with the manifest's preview read anew when main refused it
 * for problems in the file (it changed since its preview), for the panel to show them.
 */
export type ManifestImportAnswer =
  { readonly imported: true } | { readonly imported: false; readonly preview: ManifestPreview | undefined };

/** The code main gives an import it refused for problems in the manifest. */
const MANIFEST_INVALID = 'manifest_invalid';

export interface ManifestActions {
  /** The manifest's documents and problems, as main reads it now; undefined when it could not (a notice says why). */
  preview(path: string): Promise<ManifestPreview | undefined>;
  import(batchId: string, path: string): Promise<ManifestImportAnswer>;
}

export function manifestActions(kit: StoreKit): ManifestActions {
  const { set, get, t } = kit;
  return {
    preview: (path) => attempt(kit, () => unwrap(desk().manifest.preview(path))),
    async import(batchId, path) {
      let result: ChannelResult<'manifest.import'>;
      try {
        result = await unwrap(desk().manifest.import(batchId, path));
      } catch (error) {
        set((state) => withNotice(state, 'error', failureText(error, state.translator)));
        // The file changed since its preview and main found problems in it: the panel shows them
        // now, not the old preview with its Import button.
        const invalid = failedWith(error, MANIFEST_INVALID);
        return { imported: false, preview: invalid ? await get().actions.manifest.preview(path) : undefined };
      }
      set((state) =>
        withNotice(
          state,
          'success',
          t('manifest.imported', {
            added: result.added,
            updated: result.updated,
            unchanged: result.unchanged,
          }),
        ),
      );
      set((state) => withNotAddedNotice(state, result.rejected));
      for (const reference of result.lockedChanges) {
        // Not applied: the person should know, and it stays until dismissed.
        set((state) => withNotice(state, 'warning', t('manifest.lockedChange', { reference })));
      }
      await get().actions.batches.get(batchId);
      return { imported: true };
    },
  };
}
