import type { DeskHandlers } from '../../../shared/ipc/contract';
import type { ResolutionRefusal } from '../../batch/check-resolution';
import { DeskError } from '../desk-error';
import type { DeskContext } from '../desk-context';

/** The error code the page gets for each way an answer to a check is refused. */
const RESOLUTION_REFUSAL_CODES: Readonly<Record<ResolutionRefusal, string>> = {
  refused: 'check_answer_refused',
  needs_confirmation: 'link_needs_confirmation',
  service_unreachable: 'service_unreachable',
};

export function sendingHandlers(
  ctx: DeskContext,
): Pick<
  DeskHandlers,
  | 'sending.start'
  | 'sending.pause'
  | 'sending.retry'
  | 'sending.tryNow'
  | 'sending.linkRequest'
  | 'sending.sendAsNew'
> {
  return {
    'sending.start': async (batchId) => {
      const current = await ctx.connectionForBatch(batchId, { bind: true });
      ctx.runSend(batchId, current);
      return ctx.engineState(batchId);
    },
    'sending.pause': async (batchId) => {
      ctx.sessions.openFor(ctx.batchOrThrow(batchId))?.engine.pause(batchId);
      return ctx.engineState(batchId);
    },
    'sending.tryNow': async (batchId) => {
      ctx.sessions.openFor(ctx.batchOrThrow(batchId))?.engine.tryNow(batchId);
      return ctx.engineState(batchId);
    },
    'sending.retry': async (batchId, documentId) => {
      const current = await ctx.connectionForBatch(batchId, { bind: true });
      await current.engine.retry(batchId, documentId);
      if (!current.engine.isRunning(batchId)) ctx.runSend(batchId, current);
      return ctx.engineState(batchId);
    },
    'sending.linkRequest': async (batchId, documentId, requestId, options) => {
      const current = await ctx.connectionForBatch(batchId, { bind: true });
      const linked = await current.engine.linkRequest(batchId, documentId, requestId, options);
      if (!linked.ok) throw new DeskError(RESOLUTION_REFUSAL_CODES[linked.refusal], linked.message);
      if (!current.engine.isRunning(batchId)) ctx.runSend(batchId, current);
      return ctx.engineState(batchId);
    },
    'sending.sendAsNew': async (batchId, documentId) => {
      const current = await ctx.connectionForBatch(batchId, { bind: true });
      const resolved = await current.engine.sendAsNew(batchId, documentId);
      if (!resolved.ok) throw new DeskError(RESOLUTION_REFUSAL_CODES[resolved.refusal], resolved.message);
      if (!current.engine.isRunning(batchId)) ctx.runSend(batchId, current);
      return ctx.engineState(batchId);
    },
  };
}
