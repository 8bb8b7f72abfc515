import type { DeskHandlers } from '../../../shared/ipc/contract';
import { writeFile } from 'node:fs/promises';
import { batchReportCsv } from '../../report/report-csv';
import { DeskError } from '../desk-error';
import type { DeskContext } from '../desk-context';

export function reportHandlers(ctx: DeskContext): Pick<DeskHandlers, 'report.csv' | 'report.export'> {
  return {
    'report.csv': async (batchId) => batchReportCsv(await ctx.openBatch(batchId), ctx.translator()),
    'report.export': async (batchId) => {
      const batch = await ctx.openBatch(batchId);
      const path = await ctx.deps.dialogs.pickReportPath(`${batch.name}.csv`);
      if (!path) return null;
      await writeFile(path, batchReportCsv(batch, ctx.translator()), { encoding: 'utf8', mode: 0o600 }).catch(
        (error: unknown) => {
          throw new DeskError(
            'report_not_saved',
            ctx.translator().t('errors.reportNotSaved', {
              path,
              code: (error as NodeJS.ErrnoException).code ?? 'error',
            }),
          );
        },
      );
      return path;
    },
  };
}
