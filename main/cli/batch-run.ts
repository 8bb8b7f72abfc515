/**
 * Runs the send engine over one batch for the command line (`send` and `resolve`): prints
 * progress, the summary, every document that failed or needs the user's check with what to
 * do, and returns the exit code.
 */
import { basename } from 'node:path';
import { phaseOf, type BatchState, type DocumentState } from '../domain/batch-state';
import { checkExplanation } from '../domain/send-messages';
import type { SendEngineEvent } from '../engine/send-events';
import type { Desk } from '../app/desk-core';
import { systemClock, type Clock } from '../time/clock';
import { countLabel, EXIT, plural, type CliOutput } from './cli-output';
import { credentialsRejectedLine, outageLine, outageOverLine, type ConnectionSource } from './service-check';

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
    case 'trying-again':
      return undefined;
    case 'draining':
      return `  … stopping: ${event.calls === 1 ? 'the call already sent is' : `${event.calls} calls already sent are`} given a moment to be answered (Ctrl+C again stops at once)`;
  }
}

/**
 * The least time between two lines of one outage: the engine tries the service again every
 * few seconds, and a line each time buries everything else.
 */
export const OUTAGE_LINE_INTERVAL_MS = 30_000;

/**
 * The engine's events in words, an outage said when it starts, at most every
 * `OUTAGE_LINE_INTERVAL_MS` while it lasts, and when it ends; any other wait said once until the
 * engine runs again.
 */
export function engineNarrator(
  baseUrl: string,
  clock: Pick<Clock, 'monotonic'> = systemClock,
): (event: SendEngineEvent) => string | undefined {
  let outageSaidAt: number | undefined;
  /** The reason said for the wait under way: every document that meets it reports it again. */
  let waitSaid: string | undefined;
  /** The service answers already said that many documents meet (one refused token request). */
  const answersSaid = new Set<number>();
  return (event) => {
    if (event.type === 'engine-state' && event.state === 'waiting' && !event.unreachable) {
      const answerId = event.cause?.answerId;
      if (event.reason === waitSaid || (answerId !== undefined && answersSaid.has(answerId)))
        return undefined;
      waitSaid = event.reason;
      if (answerId !== undefined) answersSaid.add(answerId);
    }
    if (event.type === 'engine-state' && event.state !== 'waiting') waitSaid = undefined;
    if (event.type === 'engine-state' && event.state === 'waiting' && event.unreachable) {
      const now = clock.monotonic();
      if (outageSaidAt !== undefined && now - outageSaidAt < OUTAGE_LINE_INTERVAL_MS) return undefined;
      outageSaidAt = now;
      return `  … ${outageLine(baseUrl)}`;
    }
    if (event.type === 'engine-state' && event.state === 'running' && outageSaidAt !== undefined) {
      outageSaidAt = undefined;
      return `  … ${outageOverLine(baseUrl)}`;
    }
    return describeEngineEvent(event);
  };
}

/** The connection options to repeat in a suggested command, and where the connection comes from. */
export interface ResumeHint extends ConnectionSource {
  readonly manifestPath: string;
  readonly dataDir: string;
  /** `--base-url URL` or `--profile NAME`. */
  readonly connectionOption: string;
}

/** "1 document" / "3 documents". */
export function documentsLabel(count: number): string {
  return countLabel(count, 'document', 'documents');
}

/** The commands that answer a document's check, ready to paste, for its reason. */
function resolveCommands(document: DocumentState, hint: ResumeHint): string[] {
  const base = `npm run cli -- resolve ${quoted(hint.manifestPath)} ${hint.connectionOption} --data-dir ${quoted(hint.dataDir)} ${optionArg('--reference', document.draft.externalReference)}`;
  const check = document.send.check;
  if (check?.reason === 'held_elsewhere')
    return [
      `carry on with the batch "${check.holder?.batchName ?? ''}", which holds it; or, on purpose,`,
      `send this one too:            ${base} --send-new --confirm   (a second request for ${document.draft.externalReference})`,
    ];
  if (check?.reason === 'held_at_service')
    return [
      check.newRequestId
        ? `follow the service's request: ${base} ${optionArg('--link', check.newRequestId)}`
        : `link the request you found:   ${base} --link REQUEST_ID`,
      `or send it anew on purpose:   ${base} --send-new --confirm   (a second request)`,
    ];
  const lines = [`link the request you found:   ${base} --link REQUEST_ID`];
  if (check?.reason === 'key_refused')
    lines.push(
      `or, if there is none, send it: ${base} --send-new --confirm   (a second request if one exists)`,
    );
  if (check?.reason === 'new_request_after_unknown' && check.newRequestId)
    lines.push(`or keep the one just created: ${base} ${optionArg('--link', check.newRequestId)}`);
  return lines;
}

/**
 * `--name value`, ready to paste: the value quoted for a POSIX shell, and joined by `=` when it
 * starts with a dash (`--reference=-7`), which the option parser would otherwise take for an option.
 */
export function optionArg(name: string, value: string): string {
  return value.startsWith('-') ? `${name}=${quoted(value)}` : `${name} ${quoted(value)}`;
}

/** Quotes `text` for a POSIX shell when it needs it. */
export function quoted(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Sends the batch until it is finished, paused (Ctrl+C) or stopped; prints and returns the exit code. */
export async function runBatch(
  desk: Desk,
  batch: BatchState,
  out: CliOutput,
  hint: ResumeHint,
  clock: Clock = systemClock,
): Promise<number> {
  const narrate = engineNarrator(hint.baseUrl, clock);
  let stopCode: string | undefined;
  const unsubscribe = desk.engine.subscribe((event) => {
    out.event(event);
    if (event.type === 'engine-state' && event.state === 'stopped') stopCode = event.cause?.code;
    const text = narrate(event);
    if (text && !out.json) out.say(text);
  });
  const interrupt = () => desk.engine.pause(batch.id);
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const summary = await desk.engine.send(batch.id);
  unsubscribe();
  process.off('SIGINT', interrupt);
  process.off('SIGTERM', interrupt);

  const final = await desk.store.open(batch.id);
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
    const checks =
      needsCheck.length > 0
        ? `, ${needsCheck.length} ${plural(needsCheck.length, 'needs', 'need')} your check`
        : '';
    out.say(
      `${summary.prepared} of ${documentsLabel(documents.length)} prepared, ${failed.length} failed${checks}.`,
    );
    for (const document of failed)
      out.say(`  ✗ ${document.draft.externalReference}: ${document.send.error?.message}`);
    for (const document of needsCheck) {
      out.say(`  ? ${document.draft.externalReference}: ${checkExplanation(document)}`);
      for (const line of resolveCommands(document, hint)) out.say(`      ${line}`);
    }
    if (summary.state === 'paused')
      out.say(`Paused. Run the same command again to finish ${basename(hint.manifestPath)}.`);
    if (summary.state === 'stopped')
      out.error(
        // The app's words point to its "Test connection"; here, what to check on the command line.
        stopCode === 'credentials_rejected'
          ? credentialsRejectedLine(hint, false)
          : (summary.reason ?? 'Sending stopped.'),
      );
  }
  if (summary.state === 'stopped') return EXIT.badInput;
  return summary.state === 'finished' && failed.length === 0 && needsCheck.length === 0
    ? EXIT.ok
    : EXIT.someFailed;
}
