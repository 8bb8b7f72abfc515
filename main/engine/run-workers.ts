/**
 * A run's workers: each takes a document with a step to take now and takes its steps
 * (document-steps.ts), then the next; while the service is waited for, or no document can go
 * now, it naps (run-schedule.ts). A worker ends when no document has a step left and no other
 * worker is busy (one of them may fail and be retried, or a retry may arrive).
 */
import { nextStep, NO_RUN_FACTS } from '../domain/step-machine';
import { batchOf } from './batch-reads';
import type { DocumentSteps } from './document-steps';
import { stepContextOf, type SendParts } from './send-options';
import { storageFailure, type SendRun } from './send-run';

/** Runs `count` workers on the run's documents; resolves when every one has ended. */
export async function runWorkers(
  run: SendRun,
  count: number,
  steps: DocumentSteps,
  parts: SendParts,
): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => worker(run, steps, parts)));
}

async function worker(run: SendRun, steps: DocumentSteps, parts: SendParts): Promise<void> {
  const { schedule } = run;
  const signal = run.stopping;
  while (!signal.aborted && !run.fatal) {
    const waitFor = schedule.untilResume();
    if (waitFor > 0) {
      // A nap, not a sleep: "Try now" ends the wait.
      await schedule.nap(waitFor);
      continue;
    }
    if (schedule.waitOver()) parts.events.emit({ type: 'trying-again', batchId: run.batchId });
    const pick = nextRunnable(run, parts);
    if (pick.kind === 'none') {
      if (run.inFlight.size === 0) return;
      // Others are still working; one of them may fail and be retried, or a retry may arrive.
      await schedule.nap(1_000);
      continue;
    }
    if (pick.kind === 'later') {
      await schedule.nap(Math.max(1, Math.min(1_000, pick.at - parts.clock.now())));
      continue;
    }
    run.inFlight.add(pick.documentId);
    try {
      await steps.process(run, pick.documentId);
    } catch (error) {
      if (!signal.aborted) {
        // A failed write (disk full, folder gone): stop every worker cleanly; a new send can resume.
        parts.logger.log('error', 'send.storage_failed', { code: (error as NodeJS.ErrnoException).code });
        run.fatal ??= storageFailure(error);
        run.controller.abort(new Error('stopped'));
      }
    } finally {
      run.inFlight.delete(pick.documentId);
      schedule.wake();
    }
  }
}

/** The next document with a step to take now, or when the earliest one can go. */
function nextRunnable(
  run: SendRun,
  parts: SendParts,
): { kind: 'now'; documentId: string } | { kind: 'later'; at: number } | { kind: 'none' } {
  const context = stepContextOf(parts, run.batchId);
  let earliest = Number.POSITIVE_INFINITY;
  for (const document of batchOf(parts.options.store, run.batchId).documents) {
    const documentId = document.draft.id;
    if (run.inFlight.has(documentId)) continue;
    const step = nextStep(document, run.facts.get(documentId) ?? NO_RUN_FACTS, context);
    if (step.kind === 'finished') continue;
    if (step.kind === 'wait') {
      earliest = Math.min(earliest, step.until);
      continue;
    }
    return { kind: 'now', documentId };
  }
  return Number.isFinite(earliest) ? { kind: 'later', at: earliest } : { kind: 'none' };
}
