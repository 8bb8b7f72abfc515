/** `send MANIFEST`: checks, prepares and sends; the same command after a crash finishes the batch. */
import type { Clock } from '../time/clock';
import { realpath } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { BatchState } from '../domain/batch-state';
import { sameConnection } from '../domain/batch-connection';
import { adoptOlderBatch, holdsRequests } from '../engine/older-batch';
import { checkManifest, formatIssue, issueFacts } from '../manifest/manifest';
import type { Connection } from '../credentials/connection';
import { openDesk, type Desk } from '../app/desk-core';
import type { CliArgs } from './cli-args';
import { documentsLabel, optionArg, quoted, runBatch, type ResumeHint } from './batch-run';
import { chooseConnection, recordedAddressProblem, stderrLogger, type CommandTuning } from './cli-connection';
import { countLabel, EXIT, type CliOutput } from './cli-output';
import {
  batchLabel,
  findManifestBatch,
  manifestTarget,
  takeManifestIn,
  type HoldingBatch,
} from './manifest-batch';
import { checkService } from './service-check';
import { reportStoreDamage } from './store-report';

/** A desk opened for a manifest's batch: the manifest's real path, the connection and the hint for later commands. */
export interface ManifestDesk {
  readonly desk: Desk;
  readonly manifestPath: string;
  readonly connection: Connection;
  readonly hint: ResumeHint;
}

/**
 * Opens the data folder and connection named by the arguments for the manifest's batch, or
 * prints why not and returns the exit code. Refuses when a batch of the folder cannot be read
 * (it may be this manifest's: a new batch would send its documents twice).
 */
export async function openManifestDesk(
  args: CliArgs,
  out: CliOutput,
  tuning: CommandTuning = {},
): Promise<ManifestDesk | number> {
  const dataDir = resolve(args.dataDir ?? '');
  const chosen = await chooseConnection(args, dataDir, args.baseUrl ?? '');
  if (!chosen.ok) {
    out.error(chosen.error);
    return EXIT.badInput;
  }
  const connection = chosen.value;
  const manifestPath = await realpath(resolve(args.manifest ?? '')).catch(() => undefined);
  if (!manifestPath) {
    out.error(`The manifest ${args.manifest} does not exist.`);
    return EXIT.badInput;
  }
  const opening = await openDesk({
    dataDir,
    connection,
    logger: stderrLogger(),
    ...(args.concurrency ? { concurrency: args.concurrency } : {}),
    ...tuning,
  });
  if (!opening.ok) {
    out.error(opening.error);
    return EXIT.badInput;
  }
  const desk = opening.value;
  reportStoreDamage(desk.store, out);
  if (desk.store.loadReport.damaged.length > 0) {
    out.error(
      'Nothing was sent: a batch in this data folder cannot be read, and it may be this manifest’s. Restore it from a backup or move it out of the data folder, then run the same command again.',
    );
    out.event({ type: 'summary', sent: false, damagedBatches: desk.store.loadReport.damaged.length });
    await desk.close();
    return EXIT.badInput;
  }
  const connectionOption = args.profile
    ? optionArg('--profile', args.profile)
    : optionArg('--base-url', connection.baseUrl);
  const hint: ResumeHint = {
    manifestPath,
    dataDir,
    connectionOption,
    baseUrl: connection.baseUrl,
    ...(args.profile ? { profile: args.profile } : {}),
  };
  return { desk, manifestPath, connection, hint };
}

/**
 * Binds the batch to the connection on its first send; refuses another connection afterwards,
 * so no document goes to two services. Returns false (after printing why) when it refused.
 */
export async function bindConnection(
  desk: Desk,
  batch: BatchState,
  connection: Connection,
  out: CliOutput,
  clock?: Clock,
): Promise<boolean> {
  if (holdsRequests(batch)) {
    // Sent by an earlier version, which did not record where: bound here only if its requests are here.
    const adoption = await adoptOlderBatch(desk.store, batch, desk.client, undefined, clock);
    if (!adoption.ok) out.error(adoption.error.reason);
    return adoption.ok;
  }
  const bound = await desk.store.bindConnection(batch.id, connection);
  // Checked before comparing: `http://user:password@host` compares equal to `http://host`.
  const refused = recordedAddressProblem(bound);
  if (refused) {
    out.error(`Nothing was sent for ${batch.name}: ${refused}`);
    return false;
  }
  if (sameConnection(bound, connection)) return true;
  out.error(
    `This batch was sent to ${bound.baseUrl} as ${bound.clientId}. Resume it with the same --base-url and client id, so no document goes to two services.`,
  );
  return false;
}

/** Says which batches already hold this manifest's contracts, and the two ways on. */
function heldElsewhere(holders: readonly HoldingBatch[], hint: ResumeHint, out: CliOutput): void {
  out.error(
    'Nothing was sent: this data folder already sent contracts of this manifest from another batch, so they are not sent again.',
  );
  for (const { batch, references, sameContracts } of holders) {
    // Where it was last sent from: a moved batch, or one continued from a copy, follows that path.
    const where = batch.source ? `sent from ${batch.source}` : 'made in the app';
    const what =
      sameContracts === references.length
        ? 'the same contracts'
        : `${sameContracts} the same contract${sameContracts === 1 ? '' : 's'}, the others another PDF under the same reference`;
    out.error(`  ${references.join(', ')}: in the batch "${batch.name}", ${where} (${what}).`);
    out.event({
      type: 'held-elsewhere',
      batchId: batch.id,
      batchName: batch.name,
      source: batch.source,
      references,
      sameContracts,
    });
  }
  const base = `npm run cli -- send ${quoted(hint.manifestPath)} ${hint.connectionOption} --data-dir ${quoted(hint.dataDir)}`;
  if (holders.length === 1) out.error(`To continue that batch from this manifest: ${base} --continue-batch`);
  out.error(`To send them anew on purpose (a second request each): ${base} --send-new --confirm`);
  out.event({ type: 'summary', sent: false, heldElsewhere: holders.length });
}

export async function sendCommand(
  args: CliArgs,
  out: CliOutput,
  tuning: CommandTuning = {},
): Promise<number> {
  const opened = await openManifestDesk(args, out, tuning);
  if (typeof opened === 'number') return opened;
  const { desk, manifestPath, connection, hint } = opened;
  try {
    const check = await checkManifest(manifestPath);
    if (check.issues.length > 0) {
      for (const issue of check.issues) {
        out.event({ type: 'issue', ...issueFacts(issue) });
        if (!out.json) out.error(formatIssue(issue));
      }
      if (!out.json)
        out.error(
          `Nothing was sent: the manifest has ${countLabel(check.problemCount, 'problem', 'problems')}.`,
        );
      out.event({ type: 'summary', sent: false, issues: check.problemCount });
      return EXIT.badInput;
    }
    const found = await findManifestBatch(desk.store, connection, manifestPath, check.documents);
    const target = manifestTarget(found, {
      continueBatch: args.continueBatch,
      sendNew: args.sendNew,
    });
    if (target.kind === 'held') {
      heldElsewhere(target.holders, hint, out);
      return EXIT.badInput;
    }
    if (target.kind === 'several') {
      out.error(
        `--continue-batch needs one batch, and this manifest's contracts are in ${target.holders.length}: ${target.holders.map(({ batch }) => batchLabel(batch)).join(', ')}. Continue each from the manifest it was sent from.`,
      );
      return EXIT.badInput;
    }
    // A batch bound elsewhere is refused before anything, not even a token request, goes out.
    if (
      target.kind === 'continue' &&
      !(await bindConnection(desk, target.batch, connection, out, tuning.clock))
    )
      return EXIT.badInput;
    // Before a batch is written or anything sent: is the service there, does it take the credentials?
    if (!(await checkService(desk.client, hint, out)).ok) return EXIT.badInput;
    if (target.kind === 'continue' && target.from !== manifestPath && target.batch.source !== manifestPath)
      out.say(
        target.moved
          ? `This manifest's batch was sent from ${target.from}, which is no longer there: it continues from here.`
          : `Continuing the batch "${target.batch.name}" (sent from ${target.from ?? 'the app'}) from this manifest.`,
      );
    const { batch, imported } = await takeManifestIn(desk, target, connection, manifestPath, check.documents);
    for (const rejected of imported.rejected) out.error(`${rejected.path}: ${rejected.message}`);
    if (imported.rejected.length > 0) return EXIT.badInput;
    for (const reference of imported.lockedChanges) {
      out.say(`Note: ${reference} was already sent; its changed rows in the manifest are not applied.`);
    }
    const failedBefore =
      (await desk.store.open(batch.id))?.documents.filter((document) => document.send.error) ?? [];
    for (const document of failedBefore) await desk.engine.retry(batch.id, document.draft.id);
    out.say(
      `Sending ${documentsLabel(check.documents.length)} of ${basename(manifestPath)} to ${connection.baseUrl}…`,
    );
    return await runBatch(desk, batch, out, hint, tuning.clock);
  } finally {
    await desk.close();
  }
}
