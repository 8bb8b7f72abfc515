/**
 * Runs the send engine over one batch for the command line (`send` and `resolve`): prints
 * progress, the summary, every document that failed or needs the user's check with what to
 * do, and returns the exit code.
 */
import { basename } from 'node:path';
import { phaseOf, type BatchState } from '../batch/batch-state';
import { checkExplanation } from '../batch/check-resolution';
import type { SendEngineEvent } from '../batch/send-engine';
import type { Desk } from '../desk-core';
import { EXIT, type CliOutput } from './cli-output';

function describeEngineEvent(event: SendEngineEvent): string | undefined {
  switch (event.type) {
    case 'item-progress':
      return event.phase === 'prepared' ? `  ✓ ${event.externalReference}: prepared` : undefined;
    case 'item-failed':
      return `  ✗ ${event.externalReference}: ${event.error.message}`;
    case 'item-needs-check':
      return `  ? ${event.externalReference}: needs your check (see below)`;
    case 'engine-state':
      return event.state === 'waiting' ? `  … ${event.reason ?? 'waiting for the service'}` : undefined;
    case 'batch-progress':
      return undefined;
  }
}

/** The connection options to repeat in a suggested command. */
export interface ResumeHint {
  readonly manifestPath: string;
  readonly dataDir: string;
  /** `--base-url URL` or `--profile NAME`. */
  readonly connectionOption: string;
}

function quoted(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Sends the batch until it is finished, paused (Ctrl+C) or stopped; prints and returns the exit code. */
export async function runBatch(
  desk: Desk,
  batch: BatchState,
  out: CliOutput,
  hint: ResumeHint,
): Promise<number> {
  const unsubscribe = desk.engine.subscribe((event) => {
    out.event(event);
    const text = describeEngineEvent(event);
    if (text && !out.json) out.say(text);
  });
  const interrupt = () => desk.engine.pause(batch.id);
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const summary = await desk.engine.send(batch.id);
  unsubscribe();
  process.off('SIGINT', interrupt);
  process.off('SIGTERM', interrupt);

  const final = desk.store.get(batch.id);
  const documents = final?.documents ?? [];
  const failed = documents.filter((document) => phaseOf(document) === 'failed');
  const needsCheck = documents.filter((document) => phaseOf(document) === 'needs_check');
  for (const document of needsCheck) {
    out.event({
      type: 'needs-check',
      batchId: batch.id,
      documentId: document.draft.id,
      externalReference: document.draft.externalReference,
      reason: document.send.check?.reason,
      firstAttemptAt: document.send.check?.firstAttemptAt,
      newRequestId: document.send.check?.newRequestId,
      explanation: checkExplanation(document),
    });
  }
  out.event({
    type: 'summary',
    batchId: batch.id,
    state: summary.state,
    prepared: summary.prepared,
    failed: failed.length,
    needsCheck: needsCheck.length,
    total: documents.length,
    reason: summary.reason,
  });
  if (!out.json) {
    out.say(
      `${summary.prepared} of ${documents.length} documents prepared, ${failed.length} failed${needsCheck.length > 0 ? `, ${needsCheck.length} need your check` : ''}.`,
    );
    for (const document of failed)
      out.say(`  ✗ ${document.draft.externalReference}: ${document.send.error?.message}`);
    const common = `${quoted(hint.manifestPath)} ${hint.connectionOption} --data-dir ${quoted(hint.dataDir)}`;
    for (const document of needsCheck) {
      const reference = quoted(document.draft.externalReference);
      out.say(`  ? ${document.draft.externalReference}: ${checkExplanation(document)}`);
      out.say(
        `      link it:      npm run cli -- resolve ${common} --reference ${reference} --link <request id>`,
      );
      out.say(`      or send anew: npm run cli -- resolve ${common} --reference ${reference} --send-new`);
    }
    if (summary.state === 'paused')
      out.say(`Paused. Run the same command again to finish ${basename(hint.manifestPath)}.`);
    if (summary.state === 'stopped') out.error(summary.reason ?? 'Sending stopped.');
  }
  if (summary.state === 'stopped') return EXIT.badInput;
  return summary.state === 'finished' && failed.length === 0 && needsCheck.length === 0
    ? EXIT.ok
    : EXIT.someFailed;
}
