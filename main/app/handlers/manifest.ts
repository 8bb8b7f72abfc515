import type { DeskHandlers } from '../../../shared/ipc/contract';
import { importManifest } from '../../engine/batch-preparation';
import { checkManifest, isManifestFileName, previewManifest } from '../../manifest/manifest';
import { DeskError } from '../desk-error';
import type { DeskContext } from '../desk-context';
import type { Translator } from '../../../shared/i18n/translator';

/** A manifest is a CSV export: any other file is refused before it is read, as an error of the dialog. */
function manifestPathOrThrow(path: string, t: Translator['t']): string {
  if (!isManifestFileName(path)) throw new DeskError('not_a_manifest', t('manifest.notAManifest'));
  return path;
}

/**
 * A manifest's two calls, each one name end to end: `manifest.preview` → previewManifest →
 * ManifestPreview, then `manifest.import` → importManifest → ManifestImport.
 */
export function manifestHandlers(
  ctx: DeskContext,
): Pick<DeskHandlers, 'manifest.preview' | 'manifest.import'> {
  return {
    'manifest.preview': async (path) => {
      const { t } = ctx.translator();
      return previewManifest(manifestPathOrThrow(path, t), t);
    },
    'manifest.import': async (batchId, path) => {
      ctx.outlineOrThrow(batchId);
      const { t } = ctx.translator();
      // Checked again in main: the file may have changed since its preview.
      const check = await checkManifest(manifestPathOrThrow(path, t), t);
      if (check.issues.length > 0)
        throw new DeskError('manifest_invalid', t('manifest.invalidImport', { count: check.problemCount }));
      return importManifest(ctx.store, ctx.blobs, batchId, check.documents, t);
    },
  };
}
