import { resolve } from 'node:path';
import { connectionKey, sameConnection, type ConnectionAddress } from '../batch/batch-connection';
import type { BatchState } from '../batch/batch-state';
import { connect, openDataDir, type Connected, type Connection } from '../desk-core';
import { adoptOlderBatch, isOlderBatch } from '../batch/older-batch';
import { classOf, needsTracking } from '../batch/document-class';
import type { PollerEvent } from '../tracking/status-poller';
import type { CliArgs } from './cli-args';
import { chooseConnection, connectionForAddress, stderrLogger } from './cli-connection';
import { EXIT, type CliOutput } from './cli-output';

/** The open requests of `batches`. */
function openRequests(batches: readonly BatchState[]): number {
  return batches.reduce((sum, batch) => sum + batch.documents.filter(needsTracking).length, 0);
}

/** The connections the open requests were sent with, each with its batches. */
function connectionsOf(
  batches: readonly BatchState[],
): Map<string, { address: ConnectionAddress; batches: BatchState[] }> {
  const groups = new Map<string, { address: ConnectionAddress; batches: BatchState[] }>();
  for (const batch of batches) {
    if (!batch.connection || !batch.documents.some(needsTracking)) continue;
    const key = connectionKey(batch.connection);
    const group = groups.get(key) ?? { address: batch.connection, batches: [] };
    group.batches.push(batch);
    groups.set(key, group);
  }
  return groups;
}

/**
 * `watch`: tracks every open request until it is final, each batch at the service it was sent
 * to (never with another connection), then exits. Credentials per connection: the
 * environment's when its client id matches, else the saved profile for that address. Says
 * which batches it cannot track and why. `--base-url`/`--profile` add a connection for batches
 * not bound to any (sent by an older version).
 */
export async function watchCommand(args: CliArgs, out: CliOutput): Promise<number> {
  const dataDir = resolve(args.dataDir ?? '');
  const opened = await openDataDir(dataDir);
  if (!opened.ok) {
    out.error(opened.message);
    return EXIT.badInput;
  }
  const data = opened.value;
  const logger = stderrLogger();
  const sessions: Connected[] = [];
  try {
    let untracked = 0;
    /** One session per connection, so that each request has one reader (and one pace). */
    const sessionOf = (connection: Connection): Connected => {
      const open = sessions.find((session) => sameConnection(session.connection, connection));
      if (open) return open;
      const session = connect(data, connection, { logger });
      sessions.push(session);
      return session;
    };
    const older = data.store.list().filter((batch) => isOlderBatch(batch) && openRequests([batch]) > 0);
    if (older.length > 0) {
      // Sent by an earlier version, which did not record where: the user says where, and the
      // batch is bound there only if that service holds its requests.
      const connection =
        args.baseUrl || args.profile ? await chooseConnection(args, dataDir, args.baseUrl ?? '') : undefined;
      const where = connection === undefined || typeof connection === 'string' ? undefined : connection;
      for (const batch of older) {
        const adoption = where
          ? await adoptOlderBatch(data.store, batch, sessionOf(where).client)
          : {
              ok: false as const,
              reason:
                connection ??
                'give --base-url URL (or --profile NAME) to say where it was sent; it is bound there only if that service holds its requests.',
            };
        if (adoption.ok) {
          out.say(
            `${batch.name}, sent by an earlier version, is tracked at ${where?.baseUrl} from now on: its requests are there.`,
          );
        } else {
          untracked += openRequests([batch]);
          out.error(
            `Cannot track ${openRequests([batch])} open request(s) of ${batch.name}: ${adoption.reason}`,
          );
        }
      }
    }
    const groups = connectionsOf(data.store.list());
    if (groups.size === 0 && untracked === 0) {
      out.say('Nothing to watch: no request of this data folder is open (or none was sent yet).');
      return summarize(data.store.list(), untracked, out);
    }
    /** The batches each connection tracks, to say which cannot be tracked when it is refused. */
    const owned = new Map<Connected, BatchState[]>();
    const refused = new Set<Connected>();
    for (const { address, batches: own } of groups.values()) {
      const connection = await connectionForAddress(address, dataDir, args);
      if (typeof connection === 'string') {
        untracked += openRequests(own);
        out.event({
          type: 'untracked',
          baseUrl: address.baseUrl,
          clientId: address.clientId,
          reason: connection,
        });
        out.error(
          `Cannot track ${openRequests(own)} open request(s) of ${own.map((batch) => batch.name).join(', ')} at ${address.baseUrl}: ${connection}`,
        );
        continue;
      }
      const session = sessionOf(connection);
      owned.set(session, own);
    }
    const open = () => openRequests(data.store.list()) - untracked;
    out.say(
      `Watching ${open()} open request(s) at ${sessions.map((session) => session.connection.baseUrl).join(', ') || 'no service'}. It ends when every request is final; Ctrl+C stops.`,
    );
    await new Promise<void>((done) => {
      const finishIfDone = () => {
        if (open() <= 0) done();
      };
      for (const session of sessions) {
        session.poller.subscribe((event: PollerEvent) => {
          out.event(event);
          if (!out.json) sayEvent(out, event);
          if (event.type === 'poller-state' && event.state === 'refused' && !refused.has(session)) {
            // Its credentials are refused: its requests cannot be tracked by this run.
            refused.add(session);
            const own = (owned.get(session) ?? []).map((batch) => data.store.get(batch.id) ?? batch);
            untracked += openRequests(own);
            out.error(
              `Cannot track ${openRequests(own)} open request(s) at ${session.connection.baseUrl}: ${event.reason ?? 'the service refused the credentials.'}`,
            );
          }
          finishIfDone();
        });
      }
      process.once('SIGINT', () => done());
      for (const session of sessions) {
        session.poller.start();
        session.poller.refreshNow();
      }
      finishIfDone();
    });
    return summarize(data.store.list(), untracked, out);
  } finally {
    for (const session of sessions) await session.close();
    await data.close();
  }
}

/**
 * The last line: how many requests are still open, and how many their service no longer knows
 * (not final: "Check again" in the app). Exit 1 when some could not be tracked or are gone.
 */
function summarize(batches: readonly BatchState[], untracked: number, out: CliOutput): number {
  const remaining = openRequests(batches);
  const gone = batches.reduce(
    (sum, batch) => sum + batch.documents.filter((document) => classOf(document) === 'gone').length,
    0,
  );
  out.event({ type: 'summary', open: remaining, gone });
  if (!out.json) {
    const open = `${remaining} request(s) still open`;
    const final = remaining === 0 ? 'Every request is final.' : `${open}.`;
    out.say(
      gone === 0
        ? final
        : `${remaining === 0 ? 'Every other request is final' : open}; ${gone} request(s) are no longer known to their service: check them again in the app.`,
    );
  }
  return untracked > 0 || gone > 0 ? EXIT.someFailed : EXIT.ok;
}

function sayEvent(out: CliOutput, event: PollerEvent): void {
  if (event.type === 'completed') out.say(`  ✓ ${event.externalReference}: completed, evidence ready`);
  if (event.type === 'gone')
    out.say(`  ✗ ${event.externalReference}: its service says it no longer exists (check again in the app)`);
  if (event.type === 'status-changed' && !event.status.final) {
    const waiting = event.status.status === 'completed' ? ', evidence not ready yet' : '';
    out.say(`  · ${event.externalReference}: ${event.status.status}${waiting}`);
  }
  if (event.type === 'poller-state' && event.state === 'waiting') out.say(`  … ${event.reason}`);
}
