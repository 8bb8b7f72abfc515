import type { DeskHandlers } from '../../../shared/ipc/contract';
import { outlineOf } from '../../domain/batch-outline';
import { detailOf, summaryOf } from '../batch-views';
import type { DeskContext } from '../desk-context';

export function batchesHandlers(
  ctx: DeskContext,
): Pick<
  DeskHandlers,
  | 'batches.list'
  | 'batches.get'
  | 'batches.create'
  | 'batches.rename'
  | 'batches.setDefaults'
  | 'batches.delete'
> {
  return {
    // From the outlines: a batch at rest is not read to be listed.
    'batches.list': async () =>
      ctx.store
        .outlines()
        .map((batch) => summaryOf(batch, ctx.engineState(batch.id), ctx.sessions.problemOf(batch.id))),
    'batches.get': async (batchId) => {
      const batch = await ctx.openBatch(batchId);
      const heldBack = await ctx.heldBackOf(batch);
      // The batch as it is once the connection was looked up (it may have changed meanwhile).
      return detailOf(
        await ctx.openBatch(batchId),
        ctx.engineState(batchId),
        ctx.sessions.problemOf(batchId),
        ctx.translator().t,
        heldBack,
      );
    },
    'batches.create': async (name) => {
      const batch = await ctx.store.create(name, { defaultRecipients: [] });
      return summaryOf(outlineOf(batch), ctx.engineState(batch.id), ctx.sessions.problemOf(batch.id));
    },
    'batches.rename': async (batchId, name) => {
      ctx.outlineOrThrow(batchId);
      return summaryOf(
        outlineOf(await ctx.store.record(batchId, [{ type: 'batch_renamed', name }])),
        ctx.engineState(batchId),
      );
    },
    'batches.setDefaults': async (batchId, defaults) => {
      ctx.outlineOrThrow(batchId);
      return summaryOf(
        outlineOf(await ctx.store.record(batchId, [{ type: 'defaults_changed', defaults }])),
        ctx.engineState(batchId),
      );
    },
    'batches.delete': async (batchId) => {
      ctx.sessions.openFor(ctx.outlineOrThrow(batchId))?.engine.pause(batchId);
      await ctx.store.delete(batchId);
      ctx.engineStates.delete(batchId);
      ctx.deps.emit('batch.deleted', { batchId });
      return null;
    },
  };
}
