/**
 * `resolve MANIFEST --reference REF (--link ID | --send-new)`: the command line's answer to a
 * document that needs the user's check, then the batch is sent on from there.
 */
import { EXIT, type CliOutput } from './cli-output';
import type { CliArgs } from './cli-args';
import { runBatch } from './batch-run';
import { bindConnection, openManifestDesk } from './send-command';

export async function resolveCommand(args: CliArgs, out: CliOutput): Promise<number> {
  const opened = await openManifestDesk(args, out);
  if (typeof opened === 'number') return opened;
  const { desk, manifestPath, connection, hint } = opened;
  try {
    const batch = desk.store.list().find((candidate) => candidate.source === manifestPath);
    if (!batch) {
      out.error(`No batch of this data folder was made from ${manifestPath}: send it first.`);
      return EXIT.badInput;
    }
    if (!(await bindConnection(desk, batch, connection, out))) return EXIT.badInput;
    const document = batch.documents.find(
      (candidate) => candidate.draft.externalReference === args.reference,
    );
    if (!document) {
      out.error(`The batch has no document with the reference ${args.reference}.`);
      return EXIT.badInput;
    }
    const outcome = args.link
      ? await desk.engine.linkRequest(batch.id, document.draft.id, args.link)
      : await desk.engine.sendAsNew(batch.id, document.draft.id);
    out.event({ type: 'resolved', externalReference: args.reference, ...outcome });
    if (!outcome.ok) {
      out.error(outcome.message);
      return EXIT.badInput;
    }
    out.say(
      args.link
        ? `${args.reference} is linked to ${args.link}. Sending continues with its participants and preparation…`
        : `${args.reference} will be sent as a new request. Sending…`,
    );
    return await runBatch(desk, batch, out, hint);
  } finally {
    await desk.close();
  }
}
