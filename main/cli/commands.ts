import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { BatchState, DocumentState } from '../batch/batch-state';
import { phaseOf } from '../batch/batch-state';
import { syncManifest } from '../batch/batch-preparation';
import { checkManifestFile, formatIssue } from '../batch/manifest';
import type { SendEngineEvent } from '../batch/send-engine';
import { createKeytarCredentialStore } from '../credentials/credential-store';
import { createProfileStore } from '../credentials/profile-store';
import { openDesk, type Connection, type Desk } from '../desk-core';
import { createJsonLogger, type Logger } from '../log';
import { Secret } from '../secret';
import { BatchStore } from '../store/batch-store';
import { needsTracking, type PollerEvent } from '../tracking/status-poller';
import type { CliArgs } from './cli-args';
import { EXIT, type CliOutput } from './cli-output';

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

function connectionFromEnvironment(baseUrl: string): Connection | string {
  const clientId = process.env.SIGNING_CLIENT_ID?.trim();
  const clientSecret = process.env.SIGNING_CLIENT_SECRET;
  if (!clientId || !clientSecret) {
    return 'Set SIGNING_CLIENT_ID and SIGNING_CLIENT_SECRET in the environment (the secret is never accepted on the command line).';
  }
  return { baseUrl: baseUrl.replace(/\/+$/, ''), clientId, clientSecret: new Secret(clientSecret) };
}

/** A saved profile of the data folder, with its secret from the OS keychain. */
async function connectionFromProfile(name: string, dataDir: string): Promise<Connection | string> {
  const profiles = createProfileStore({ dataDir, credentials: createKeytarCredentialStore() });
  const connection = await profiles.connectionFor(name);
  return connection.ok ? connection.value : connection.message;
}

/** `--profile NAME` (settings in the data folder, secret in the keychain), else the environment. */
async function chooseConnection(
  args: CliArgs,
  dataDir: string,
  baseUrl: string,
): Promise<Connection | string> {
  if (!args.profile) return connectionFromEnvironment(baseUrl);
  if (args.baseUrl) return 'Use either --profile or --base-url, not both: the profile names its base URL.';
  return connectionFromProfile(args.profile, dataDir);
}

function stderrLogger(): Logger {
  // Warnings for people who debug; secrets cannot reach it (they are `Secret` values).
  return process.env.DESK_LOG === 'json'
    ? createJsonLogger((line) => process.stderr.write(line))
    : { log() {} };
}

function describeEngineEvent(event: SendEngineEvent): string | undefined {
  switch (event.type) {
    case 'item-progress':
      return event.phase === 'prepared' ? `  ✓ ${event.externalReference}: prepared` : undefined;
    case 'item-failed':
      return `  ✗ ${event.externalReference}: ${event.error.message}`;
    case 'engine-state':
      return event.state === 'waiting' ? `  … ${event.reason ?? 'waiting for the service'}` : undefined;
    case 'batch-progress':
      return undefined;
  }
}

async function findOrCreateBatch(desk: Desk, manifestPath: string): Promise<BatchState> {
  const existing = desk.store.list().find((batch) => batch.source === manifestPath);
  return existing ?? desk.store.create(basename(manifestPath), { defaultRecipients: [] }, manifestPath);
}

/** `send MANIFEST`: checks, prepares and sends; the same command after a crash finishes the batch. */
export async function sendCommand(args: CliArgs, out: CliOutput): Promise<number> {
  const connection = await chooseConnection(args, resolve(args.dataDir ?? ''), args.baseUrl ?? '');
  if (typeof connection === 'string') {
    out.error(connection);
    return EXIT.badInput;
  }
  const manifestPath = await realpath(resolve(args.manifest ?? '')).catch(() => undefined);
  if (!manifestPath) {
    out.error(`The manifest ${args.manifest} does not exist.`);
    return EXIT.badInput;
  }
  const check = await checkManifestFile(manifestPath);
  if (check.issues.length > 0) {
    for (const issue of check.issues) {
      out.event({ type: 'issue', ...issue });
      if (!out.json) out.error(formatIssue(issue));
    }
    if (!out.json) out.error(`Nothing was sent: the manifest has ${check.issues.length} problem(s).`);
    out.event({ type: 'summary', sent: false, issues: check.issues.length });
    return EXIT.badInput;
  }

  const opening = await openDesk({
    dataDir: resolve(args.dataDir ?? ''),
    connection,
    logger: stderrLogger(),
    ...(args.concurrency ? { concurrency: args.concurrency } : {}),
  });
  if (!opening.ok) {
    out.error(opening.message);
    return EXIT.badInput;
  }
  const { desk } = opening;
  try {
    reportStoreDamage(desk.store, out);
    if (desk.store.loadReport.damaged.length > 0) {
      // The unreadable batch may be this manifest's: a new batch would send its documents twice.
      out.error(
        'Nothing was sent: a batch in this data folder cannot be read, and it may be this manifest’s. Restore it from a backup or move it out of the data folder, then run the same command again.',
      );
      out.event({ type: 'summary', sent: false, damagedBatches: desk.store.loadReport.damaged.length });
      return EXIT.badInput;
    }
    const batch = await findOrCreateBatch(desk, manifestPath);
    if (
      batch.connection &&
      (batch.connection.baseUrl !== connection.baseUrl || batch.connection.clientId !== connection.clientId)
    ) {
      out.error(
        `This batch was sent to ${batch.connection.baseUrl} as ${batch.connection.clientId}. Resume it with the same --base-url and client id, so no document goes to two services.`,
      );
      return EXIT.badInput;
    }
    if (!batch.connection) {
      await desk.store.record(batch.id, [
        { type: 'connection_bound', baseUrl: connection.baseUrl, clientId: connection.clientId },
      ]);
    }
    const sync = await syncManifest(desk.store, desk.blobs, batch.id, check.documents);
    for (const rejected of sync.rejected) out.error(`${rejected.path}: ${rejected.message}`);
    if (sync.rejected.length > 0) return EXIT.badInput;
    for (const reference of sync.lockedChanges) {
      out.say(`Note: ${reference} was already sent; its changed rows in the manifest are not applied.`);
    }
    const failedBefore = desk.store.get(batch.id)?.documents.filter((document) => document.send.error) ?? [];
    for (const document of failedBefore) await desk.engine.retry(batch.id, document.draft.id);

    out.say(
      `Sending ${check.documents.length} documents of ${basename(manifestPath)} to ${connection.baseUrl}…`,
    );
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
    const failed = final?.documents.filter((document) => phaseOf(document) === 'failed') ?? [];
    out.event({
      type: 'summary',
      batchId: batch.id,
      state: summary.state,
      prepared: summary.prepared,
      failed: failed.length,
      total: final?.documents.length ?? 0,
      reason: summary.reason,
    });
    if (!out.json) {
      out.say(
        `${summary.prepared} of ${final?.documents.length ?? 0} documents prepared, ${failed.length} failed.`,
      );
      for (const document of failed)
        out.say(`  ✗ ${document.draft.externalReference}: ${document.send.error?.message}`);
      if (summary.state === 'paused') out.say('Paused. Run the same command again to finish the batch.');
      if (summary.state === 'stopped') out.error(summary.reason ?? 'Sending stopped.');
    }
    if (summary.state === 'stopped') return EXIT.badInput;
    return summary.state === 'finished' && failed.length === 0 ? EXIT.ok : EXIT.someFailed;
  } finally {
    await desk.close();
  }
}

function reportStoreDamage(store: BatchStore, out: CliOutput): void {
  for (const damaged of store.loadReport.damaged) {
    out.error(
      `Batch ${damaged.batchId} cannot be read (${damaged.damage.problem}, ${damaged.damage.file}${damaged.damage.line ? ` line ${damaged.damage.line}` : ''}). It is left untouched; report this to support.`,
    );
  }
  for (const recovered of store.loadReport.recovered) {
    out.say(
      `Note: batch ${recovered.batchId} had ${recovered.problem}; it was set aside. Nothing acknowledged was lost.`,
    );
  }
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
      const state = row.final ? 'completed, evidence ready' : (row.status ?? row.phase);
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
    gone: rows.filter((row) => row.status === 'gone').length,
  };
  out.event(summary);
  if (!out.json)
    out.say(
      `${summary.documents} documents: ${summary.prepared} prepared, ${summary.completed} completed, ${summary.failed} failed, ${summary.gone} gone.`,
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
