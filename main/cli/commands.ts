import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BatchState, DocumentState } from '../batch/batch-state';
import { phaseOf } from '../batch/batch-state';
import { checkExplanation } from '../batch/send-messages';
import { checkManifestFile, formatIssue } from '../batch/manifest';
import { openDesk } from '../desk-core';
import { BatchStore } from '../store/batch-store';
import { needsTracking, type PollerEvent } from '../tracking/status-poller';
import type { CliArgs } from './cli-args';
import { chooseConnection, stderrLogger } from './cli-connection';
import { EXIT, type CliOutput } from './cli-output';
import { reportStoreDamage } from './store-report';

/** `validate MANIFEST`: offline checks only; every problem listed at once. */
export async function validateCommand(args: CliArgs, out: CliOutput): Promise<number> {
  const check = await checkManifestFile(resolve(args.manifest ?? ''));
  for (const issue of check.issues) {
    out.event({ type: 'issue', ...issue });
    if (!out.json) out.error(formatIssue(issue));
  }
  const valid = check.issues.length === 0;
  const recipients = check.documents.reduce((sum, document) => sum + document.recipients.length, 0);
  out.event({
    type: 'summary',
    valid,
    documents: check.documents.length,
    recipients,
    issues: check.issues.length,
  });
  if (!out.json) {
    out.say(
      valid
        ? `Valid: ${check.documents.length} documents, ${recipients} recipients. Nothing was sent.`
        : `Invalid: ${check.issues.length} problem(s). Fix them and run validate again; nothing was sent.`,
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
    requestId: document.send.requestId,
    status: document.gone
      ? 'gone'
      : (document.tracking?.status ?? (document.send.prepared ? 'prepared' : undefined)),
    evidenceReady: document.tracking?.evidenceReady ?? false,
    preparedAt: document.tracking?.preparedAt,
    openedAt: document.tracking?.openedAt,
    finalizedAt: document.tracking?.finalizedAt,
    final: document.tracking?.final ?? false,
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

/** `status`: what the data folder knows, without touching the network or writing anything. */
export async function statusCommand(args: CliArgs, out: CliOutput): Promise<number> {
  const dataDir = resolve(args.dataDir ?? '');
  if (!existsSync(dataDir)) {
    out.error(`The data folder ${dataDir} does not exist. Check --data-dir.`);
    out.event({ type: 'summary', documents: 0 });
    return EXIT.badInput;
  }
  const store = await BatchStore.open(dataDir, { readOnly: true });
  reportStoreDamage(store, out);
  const rows = store
    .list()
    .flatMap((batch) => batch.documents.map((document) => documentRow(batch, document)));
  for (const row of rows) {
    out.event({ type: 'document', ...row });
    if (!out.json) {
      const state = row.final
        ? 'completed, evidence ready'
        : row.check
          ? `needs your check — ${row.check.explanation} Answer with: npm run cli -- resolve MANIFEST --data-dir … --reference ${row.externalReference} --link REQUEST_ID (or --send-new --confirm)`
          : (row.status ?? row.phase);
      out.say(
        `${row.batch}  ${row.externalReference.padEnd(20)} ${state}${row.error ? ` — ${row.error}` : ''}`,
      );
    }
  }
  const summary = {
    type: 'summary',
    documents: rows.length,
    prepared: rows.filter((row) => row.phase === 'prepared').length,
    completed: rows.filter((row) => row.final).length,
    failed: rows.filter((row) => row.phase === 'failed').length,
    needsCheck: rows.filter((row) => row.phase === 'needs_check').length,
    gone: rows.filter((row) => row.status === 'gone').length,
  };
  out.event(summary);
  if (!out.json)
    out.say(
      `${summary.documents} documents: ${summary.prepared} prepared, ${summary.completed} completed, ${summary.failed} failed, ${summary.needsCheck > 0 ? `${summary.needsCheck} need your check, ` : ''}${summary.gone} gone.`,
    );
  await store.close();
  return EXIT.ok;
}

/** `watch`: tracks every open request until it is final (or gone), then exits. */
export async function watchCommand(args: CliArgs, out: CliOutput): Promise<number> {
  const dataDir = resolve(args.dataDir ?? '');
  const peek = await BatchStore.open(dataDir, { readOnly: true });
  const bound = peek.list().find((batch) => batch.connection)?.connection;
  await peek.close();
  const baseUrl = args.baseUrl ?? bound?.baseUrl;
  if (!baseUrl && !args.profile) {
    out.error('Nothing to watch: no batch in this data folder has been sent yet.');
    return EXIT.badInput;
  }
  const connection = await chooseConnection(args, dataDir, baseUrl ?? '');
  if (typeof connection === 'string') {
    out.error(connection);
    return EXIT.badInput;
  }
  const opening = await openDesk({ dataDir, connection, logger: stderrLogger() });
  if (!opening.ok) {
    out.error(opening.message);
    return EXIT.badInput;
  }
  const { desk } = opening;
  const open = () => desk.store.list().flatMap((batch) => batch.documents.filter(needsTracking));
  try {
    out.say(`Watching ${open().length} open request(s) at ${connection.baseUrl}. Ctrl+C stops.`);
    await new Promise<void>((done) => {
      const finishIfDone = () => {
        if (open().length === 0) done();
      };
      desk.poller.subscribe((event: PollerEvent) => {
        out.event(event);
        if (!out.json) {
          if (event.type === 'completed')
            out.say(`  ✓ ${event.externalReference}: completed, evidence ready`);
          if (event.type === 'gone')
            out.say(`  ✗ ${event.externalReference}: no longer exists at the service`);
          if (event.type === 'status-changed' && !event.status.final) {
            const waiting = event.status.status === 'completed' ? ', evidence not ready yet' : '';
            out.say(`  · ${event.externalReference}: ${event.status.status}${waiting}`);
          }
          if (event.type === 'poller-state' && event.state === 'waiting') out.say(`  … ${event.reason}`);
        }
        finishIfDone();
      });
      process.once('SIGINT', () => done());
      desk.poller.start();
      desk.poller.refreshNow();
      finishIfDone();
    });
    const remaining = open().length;
    out.event({ type: 'summary', open: remaining });
    if (!out.json)
      out.say(remaining === 0 ? 'Every request is final.' : `${remaining} request(s) still open.`);
    return EXIT.ok;
  } finally {
    await desk.close();
  }
}
