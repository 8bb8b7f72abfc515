/**
 * The upload step of one document: its PDF crosses the line in one of the run's upload lanes,
 * its progress is told no further than the line could have carried it, and its answer (or its
 * giving up) teaches the line its pace. The step machine says what the answer means.
 */
import type { UploadAnswer } from '../domain/service-answers';
import { decideUpload } from '../domain/step-decisions';
import type { Answer, Decision, Step, StepContext } from '../domain/step-machine';
import type { DocumentState } from '../domain/batch-state';
import { lineMs } from '../client/upload-timing';
import { documentOf } from './batch-reads';
import type { UploadStage } from './send-events';
import { stepContextOf, type SendParts } from './send-options';
import type { SendRun } from './send-run';
import { stepCall } from './step-call';

/** An upload's progress is told to listeners each time it moved on by this many bytes. */
export const PROGRESS_STEP_BYTES = 256 * 1024;
/** How often an upload's progress is looked at again while its bytes cross the line (ms). */
const PACE_TICK_MS = 250;

/** Uploads `document`'s PDF and asks the step machine what the answer means. */
export async function uploadStep(
  run: SendRun,
  document: DocumentState,
  step: Extract<Step, { kind: 'upload' }>,
  context: StepContext,
  parts: SendParts,
): Promise<Decision> {
  const { client, blobs, store } = parts.options;
  const { clock, events } = parts;
  const { signal } = run.controller;
  const { draft } = document;
  const { line } = run;
  if (!(await blobs.has(draft.pdf.sha256))) {
    return decideUpload(document, step, localCopyMissing(), context);
  }
  const total = draft.pdf.sizeBytes;
  const progress = line.progress(total, clock.monotonic());
  let reported = -1;
  let stage: UploadStage = 'sending';
  let attemptsBegun = 0;
  /** Tells listeners how far the upload is: no further than the line could have carried it. */
  const report = (force = false) => {
    const shown = progress.shown(clock.monotonic());
    const now: UploadStage = progress.allHanded ? 'confirming' : stage;
    if (
      !force &&
      now === stage &&
      shown - reported < PROGRESS_STEP_BYTES &&
      !(shown === total && reported < total)
    )
      return;
    stage = now;
    reported = shown;
    events.item(run.batchId, draft.id, shown, total, stage);
  };
  // The pace moves a bar on while the connection, its buffers full, takes nothing more.
  const stopTicking = clock.every(PACE_TICK_MS, () => report(), true);
  /** Uploads on the line while this one was (sampled at its start and its end). */
  let sharing = 0;
  let answer: Answer<UploadAnswer>;
  try {
    answer = await stepCall(
      run,
      async (attempts, alive) => {
        sharing = line.lanes.busy;
        const result = await client.uploadDocument(
          {
            open: () => blobs.openRead(draft.pdf.sha256, total),
            sizeBytes: total,
            filename: draft.pdf.originalName,
          },
          {
            signal,
            ...attempts,
            lineBytesPerS: line.crossingBytesPerS(),
            slowestShareBytesPerS: line.slowestShareBytesPerS(),
            onProgress: (sent) => {
              const at = clock.monotonic();
              if (sent === 0) {
                // A new attempt: its bytes start again from the first, and a retry says so.
                attemptsBegun += 1;
                line.restart(progress, at);
                stage = attemptsBegun > 1 ? 'sending_again' : 'sending';
                return report(true);
              }
              progress.took(sent, at);
              // No answer is owed while the bytes handed may still be crossing the line.
              alive(lineMs(sent, line.crossingBytesPerS()));
              report();
            },
          },
        );
        // Counted while this upload still holds its lane: it shared the line too.
        sharing = (sharing + line.lanes.busy) / 2;
        return result;
      },
      line.lanes,
    );
  } finally {
    stopTicking();
  }
  if (answer.kind === 'applied') {
    line.answered(total, clock.monotonic() - progress.beganAt, sharing);
  } else if (answer.kind === 'failed' && answer.failure.code === 'timeout') {
    // Given up: the line may have got slower than measured; measure it again.
    line.gaveUp(total);
  }
  const decision = decideUpload(
    documentOf(store, run.batchId, draft.id) ?? document,
    step,
    answer,
    stepContextOf(parts, run.batchId),
  );
  // The key it makes claims its reference in this turn, until the record settles (DocumentSteps).
  run.claims.set(draft.id, parts.guard.claimKeys(run.batchId, decision.events));
  return decision;
}

function localCopyMissing(): Answer<never> {
  return {
    kind: 'failed',
    failure: {
      operation: 'uploadDocument',
      code: 'local_copy_missing',
      message: '',
      retryable: false,
      outcomeUnknown: false,
      attempts: 0,
    },
  };
}
