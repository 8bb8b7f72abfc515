import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BatchState, DocumentState } from '../domain/batch-state';
import { phaseOf } from '../domain/batch-state';
import { classOf, hasPreparedRequest, stageOfDocument } from '../domain/document-class';
import { isFinalStage } from '../../shared/service/status';
import type { CheckReason } from '../../shared/domain/batch';
import type { DocumentClass } from '../../shared/domain/document-class';
import { checkExplanation } from '../domain/send-messages';
import { checkManifest, formatIssue, issueFacts } from '../manifest/manifest';
import { BatchStore } from '../store/batch-store';
import type { CliArgs } from './cli-args';
import { countLabel, EXIT, plural, type CliOutput } from './cli-output';
import { reportStoreDamage } from './store-report';

/** `validate MANIFEST`: offline checks only; every problem listed at once. */
export async function validateCommand(args: CliArgs, out: CliOutput): Promise<number> {
  const check = await checkManifest(resolve(args.manifest ?? ''));
  for (const issue of check.issues) {
    out.event({ type: 'issue', ...issueFacts(issue) });
    if (!out.json) out.error(formatIssue(issue));
  }
  const valid = check.issues.length === 0;
  const recipients = check.documents.reduce((sum, document) => sum + document.recipients.length, 0);
  out.event({
    type: 'summary',
    valid,
    documents: check.documents.length,
    recipients,
    issues: check.problemCount,
  });
  if (!out.json) {
    out.say(
      valid
        ? `Valid: ${countLabel(check.documents.length, 'document', 'documents')}, ${countLabel(recipients, 'recipient', 'recipients')}. Nothing was sent.`
        : `Invalid: ${countLabel(check.problemCount, 'problem', 'problems')}. Fix ${plural(check.problemCount, 'it', 'them')} and run validate again; nothing was sent.`,
    );
  }
  return valid ? EXIT.ok : EXIT.badInput;
}

function documentRow(batch: BatchState, document: DocumentState) {
  return {
    batch: batch.name,
    batchId: batch.id,
    documentId: document.draft.id,
    externalReference: document.draft.externalReference,
    filename: document.draft.pdf.storedFilename,
    phase: phaseOf(document),
    class: classOf(document),
    requestId: document.send.requestId,
    status: document.gone
      ? 'gone'
      : (document.tracking?.status ?? (hasPreparedRequest(document) ? 'prepared' : undefined)),
    evidenceReady: document.tracking?.evidenceReady ?? false,
    preparedAt: document.tracking?.preparedAt,
    openedAt: document.tracking?.openedAt,
    finalizedAt: document.tracking?.finalizedAt,
    // By today's rule, also for a status stored by an earlier version (an ended one was not final then).
    final: isFinalStage(stageOfDocument(document) ?? 'open'),
    error: document.send.error?.message,
    ...(document.send.check
      ? {
          check: {
            reason: document.send.check.reason,
            firstAttemptAt: document.send.check.firstAttemptAt,
            newRequestId: document.send.check.newRequestId,
            explanation: checkExplanation(document),
          },
        }
      : {}),
  };
}

/**
 * A document's state on its `status` line: its class, with the service's own status word
 * wherever the service said one (a request that ended, or whose status the app does not know,
 * is named by the service's word).
 */
function stateWords(documentClass: DocumentClass, status: string | undefined, phase: string): string {
  switch (documentClass) {
    case 'completed':
      return 'completed, evidence ready';
    case 'ended':
      return `ended at the service: ${status ?? 'final'}`;
    case 'unknown_status':
      return `status '${status ?? ''}' not known to this app; still checked, less often`;
    case 'waiting':
      return status === 'completed' ? 'completed, evidence not ready yet' : (status ?? 'prepared');
    case 'not_sent':
      return 'not sent';
    case 'sending':
      // On its way: the step it is at, for whoever resumes it.
      return `sending (${phase})`;
    default:
      return status ?? phase;
  }
}

/** The `resolve` answers a check's reason allows, as `status` suggests them. */
function answersFor(reason: CheckReason): string {
  switch (reason) {
    case 'held_elsewhere':
      return '--send-new --confirm (only to send it anew on purpose; otherwise carry on with the batch that holds it)';
    case 'new_request_after_unknown':
    case 'created_without_id':
      return '--link REQUEST_ID';
    case 'key_refused':
    case 'held_at_service':
      return '--link REQUEST_ID (or --send-new --confirm)';
  }
}

/** `status`: what the data folder knows, without touching the network or writing anything. */
export async function statusCommand(args: CliArgs, out: CliOutput): Promise<number> {
  const dataDir = resolve(args.dataDir ?? '');
  if (!existsSync(dataDir)) {
    out.error(`The data folder ${dataDir} does not exist. Check --data-dir.`);
    out.event({ type: 'summary', documents: 0 });
    return EXIT.badInput;
  }
  // Batch by batch, one in memory at a time (a year of batches is 50,000 documents): each
  // batch's lines are made as it is read, counted, and printed oldest batch first.
  const counts = new Map<DocumentClass, number>();
  let documents = 0;
  const printed: { createdAt: string; lines: string; events: Record<string, unknown>[] }[] = [];
  const loadReport = await BatchStore.readEach(dataDir, (batch) => {
    const lines: string[] = [];
    const events: Record<string, unknown>[] = [];
    for (const document of batch.documents) {
      const row = documentRow(batch, document);
      documents += 1;
      counts.set(row.class, (counts.get(row.class) ?? 0) + 1);
      if (out.json) {
        events.push({ type: 'document', ...row });
        continue;
      }
      const state = row.check
        ? `needs your check — ${row.check.explanation} Answer with: npm run cli -- resolve MANIFEST --data-dir … --reference ${row.externalReference} ${answersFor(row.check.reason)}`
        : stateWords(row.class, row.status, row.phase);
      lines.push(
        `${row.batch}  ${row.externalReference.padEnd(20)} ${state}${row.error ? ` — ${row.error}` : ''}`,
      );
    }
    printed.push({ createdAt: batch.createdAt, lines: lines.join('\n'), events });
  });
  reportStoreDamage({ loadReport }, out);
  for (const batch of printed.sort((a, b) => a.createdAt.localeCompare(b.createdAt))) {
    for (const event of batch.events) out.event(event);
    // Each batch's lines leave in one write, not one each.
    if (batch.lines !== '') out.say(batch.lines);
  }
  // The one classification of core (main/domain/document-class.ts), as the app shows it.
  const inClass = (...classes: DocumentClass[]) =>
    classes.reduce((sum, documentClass) => sum + (counts.get(documentClass) ?? 0), 0);
  const summary = {
    type: 'summary',
    documents,
    prepared: inClass('waiting', 'unknown_status', 'completed', 'ended'),
    waiting: inClass('waiting'),
    completed: inClass('completed'),
    ended: inClass('ended'),
    unknownStatus: inClass('unknown_status'),
    failed: inClass('failed'),
    needsCheck: inClass('needs_check'),
    gone: inClass('gone'),
    sending: inClass('sending'),
    notSent: inClass('not_sent'),
  };
  out.event(summary);
  if (!out.json) {
    // Every document in one group of the line: the groups that may be empty are said when not.
    const parts = [
      ...(summary.notSent > 0 ? [`${summary.notSent} not sent`] : []),
      ...(summary.sending > 0 ? [`${summary.sending} sending`] : []),
      `${summary.prepared} prepared`,
      `${summary.completed} completed`,
      ...(summary.ended > 0 ? [`${summary.ended} ended at the service`] : []),
      ...(summary.unknownStatus > 0 ? [`${summary.unknownStatus} in a status not recognized`] : []),
      `${summary.failed} failed`,
      ...(summary.needsCheck > 0
        ? [`${summary.needsCheck} ${plural(summary.needsCheck, 'needs', 'need')} your check`]
        : []),
      `${summary.gone} gone`,
    ];
    out.say(`${countLabel(summary.documents, 'document', 'documents')}: ${parts.join(', ')}.`);
  }
  return EXIT.ok;
}
