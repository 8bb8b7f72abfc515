import type { DeskHandlers } from '../../../shared/ipc/contract';
import { syncManifest } from '../../engine/batch-preparation';
import { checkManifestFile, formatIssue, isManifestFileName } from '../../manifest/manifest';
import { DeskError } from '../desk-error';
import type { DeskContext } from '../desk-context';
import type { Translator } from '../../../shared/i18n/translator';

/** Documents a manifest's preview shows; the others are counted. */
export const PREVIEW_DOCUMENTS = 200;

/** A manifest is a CSV export: any other file is refused before it is read, as an error of the dialog. */
function manifestPathOrThrow(path: string, t: Translator['t']): string {
  if (!isManifestFileName(path)) throw new DeskError('not_a_manifest', t('manifest.notAManifest'));
  return path;
}

export function manifestHandlers(
  ctx: DeskContext,
): Pick<DeskHandlers, 'manifest.preview' | 'manifest.import'> {
  return {
    'manifest.preview': async (path) => {
      const { t } = ctx.translator();
      const check = await checkManifestFile(manifestPathOrThrow(path, t), t);
      return {
        path,
        // The first documents only: a page of 10,000 rows would freeze the window, and the
        // import reads the file again in main anyway.
        documentCount: check.documents.length,
        recipientCount: check.documents.reduce((sum, document) => sum + document.recipients.length, 0),
        documents: check.documents.slice(0, PREVIEW_DOCUMENTS).map((document) => ({
          externalReference: document.externalReference,
          documentColumn: document.documentColumn,
          storedFilename: document.storedFilename,
          recipients: document.recipients,
          rows: [...document.rows],
        })),
        issues: check.issues.map((issue) => ({
          row: issue.row,
          ...(issue.column ? { column: issue.column } : {}),
          message: issue.message,
          text: formatIssue(issue, t),
        })),
        problemCount: check.problemCount,
      };
    },
    'manifest.import': async (batchId, path) => {
      ctx.batchOrThrow(batchId);
      const { t } = ctx.translator();
      const check = await checkManifestFile(manifestPathOrThrow(path, t), t);
      if (check.issues.length > 0)
        throw new DeskError('manifest_invalid', t('manifest.invalidImport', { count: check.problemCount }));
      const sync = await syncManifest(ctx.store, ctx.blobs, batchId, check.documents);
      return { ...sync, lockedChanges: [...sync.lockedChanges], rejected: [...sync.rejected] };
    },
  };
}
