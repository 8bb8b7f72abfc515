import type { DeskHandlers } from '../../../shared/ipc/contract';
import type { DeskContext } from '../desk-context';

export function appHandlers(ctx: DeskContext): Pick<DeskHandlers, 'app.info'> {
  return {
    'app.info': async () => ({
      host: ctx.deps.host,
      version: ctx.deps.version,
      dataDir: ctx.deps.dataDir.path,
      trackingPaused: ctx.trackingPaused(),
      damagedBatches: ctx.store.loadReport.damaged.map(({ batchId, damage }) => ({
        batchId,
        problem: `${damage.problem} (${damage.file}${damage.line ? `, line ${damage.line}` : ''})`,
      })),
    }),
  };
}
