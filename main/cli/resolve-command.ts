/**
 * `resolve MANIFEST --reference REF (--link ID | --send-new)`: the command line's answer to a
 * document that needs the user's check, then the batch is sent on from there.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { EXIT, type CliOutput } from './cli-output';
import type { CliArgs } from './cli-args';
import { runBatch } from './batch-run';
import type { CommandTuning } from './cli-connection';
import { findResolveBatch } from './manifest-batch';
import { bindConnection, openManifestDesk } from './send-command';
import { checkService } from './service-check';

export async function resolveCommand(
  args: CliArgs,
  out: CliOutput,
  tuning: CommandTuning = {},
): Promise<number> {
  // Nothing to resolve in a folder that does not exist; never create one for it.
  const dataDir = resolve(args.dataDir ?? '');
  if (!existsSync(dataDir)) {
    out.error(`The data folder ${dataDir} does not exist. Check --data-dir: it is the one send used.`);
    return EXIT.badInput;
  }
  const opened = await openManifestDesk(args, out, tuning);
  if (typeof opened === 'number') return opened;
  const { desk, manifestPath, connection, hint } = opened;
  try {
    // The batch made from this manifest, or the one with this reference (the folder moved or was copied).
    const found = await findResolveBatch(desk.store, connection, manifestPath, args.reference ?? '');
    if ('problem' in found) {
      out.error(found.problem);
      return EXIT.badInput;
    }
    const { batch } = found;
    if (!(await bindConnection(desk, batch, connection, out, tuning.clock))) return EXIT.badInput;
    const document = batch.documents.find(
      (candidate) => candidate.draft.externalReference === args.reference,
    );
    if (!document) {
      out.error(`The batch has no document with the reference ${args.reference}.`);
      return EXIT.badInput;
    }
    if (!args.link && !args.confirm) {
      out.error(
        `Sending ${args.reference} as a new request leaves two requests at the service if the first one exists. Look for it first; if there is none, run the same command again with --confirm.`,
      );
      return EXIT.badInput;
    }
    const checked = await checkService(desk.client, hint, out);
    // The batch was sent there before: the service being away is no mistake of the command.
    if (!checked.ok) return checked.error === 'unreachable' ? EXIT.someFailed : EXIT.badInput;
    const outcome = args.link
      ? await desk.engine.linkRequest(batch.id, document.draft.id, args.link, { confirmed: args.confirm })
      : await desk.engine.sendAsNew(batch.id, document.draft.id);
    // The line says the refusal flat, as it always has: `ok`, then `refusal` and `message`.
    const said = outcome.ok ? { ok: true } : { ok: false, ...outcome.error };
    out.event({ type: 'resolved', externalReference: args.reference, ...said });
    if (!outcome.ok) {
      out.error(outcome.error.message);
      if (outcome.error.refusal === 'needs_confirmation')
        out.error('If you are sure, run the same command again with --confirm.');
      // The service being away is no mistake of the command: try again later.
      return outcome.error.refusal === 'service_unreachable' ? EXIT.someFailed : EXIT.badInput;
    }
    out.say(
      args.link
        ? `${args.reference} is linked to ${args.link}. Sending continues with its participants and preparation…`
        : `${args.reference} will be sent as a new request. Sending…`,
    );
    return await runBatch(desk, batch, out, hint, tuning.clock);
  } finally {
    await desk.close();
  }
}
