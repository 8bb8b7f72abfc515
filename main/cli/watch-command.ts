import { resolve } from 'node:path';
import { err } from '../../shared/base/result';
import { connectionKey, sameConnection, type ConnectionAddress } from '../domain/batch-connection';
import type { BatchState, DocumentState } from '../domain/batch-state';
import { stageOfStored } from '../../shared/service/status';
import type { Connection } from '../credentials/connection';
import { connect, openDataDir, type Connected } from '../app/desk-core';
import type { BatchStore } from '../store/batch-store';
import { adoptOlderBatch, isOlderBatch } from '../engine/older-batch';
import { classOf, needsTracking, stageOfDocument } from '../domain/document-class';
import type { PollerEvent } from '../tracking/status-poller';
import type { CliArgs } from './cli-args';
import { chooseConnection, connectionForAddress, stderrLogger, type CommandTuning } from './cli-connection';
import { countLabel, EXIT, plural, type CliOutput } from './cli-output';

/** The open requests of `batches`: read until final (in a status this app knows or not). */
function openRequests(batches: readonly BatchState[]): number {
  return batches.reduce((sum, batch) => sum + batch.documents.filter(needsTracking).length, 0);
}

/** "1 open request" / "3 open requests" of `batches`. */
function openRequestsLabel(batches: readonly BatchState[]): string {
  return countLabel(openRequests(batches), 'open request', 'open requests');
}

/**
 * How long a status this app does not know must have stood unchanged, by this run's latest read
 * of it, before `watch` stops waiting for it. The poller reads such a status at 15 min, 30 min
 * and 1 h after it first saw it (poll-schedule.ts): an hour means four reads found it unchanged,
 * the service is holding it (on hold, awaiting payment…), and a script waiting on `watch` is told
 * rather than kept waiting for days. The app (and a later `watch`) keeps reading it.
 */
export const UNKNOWN_STATUS_SETTLED_MS = 60 * 60_000;

/** What a test may change: the clock (a virtual one makes an hour of reads take milliseconds). */
export type WatchTuning = CommandTuning;

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
 * `watch`: tracks every open request, each batch at the service it was sent to (never with
 * another connection), until nothing can still progress: every request is completed, ended at
 * its service or gone, or stands in a status this app does not know, unchanged for an hour of
 * this run's reads. Then it says which requests it stopped on and why, and exits 0 only when
 * every request completed. Credentials per connection: the environment's when its client id
 * matches, else the saved profile for that address. Says which batches it cannot track and why.
 * `--base-url`/`--profile` add a connection for batches not bound to any (sent by an older version).
 */
export async function watchCommand(args: CliArgs, out: CliOutput, tuning: WatchTuning = {}): Promise<number> {
  const dataDir = resolve(args.dataDir ?? '');
  const opened = await openDataDir(dataDir, tuning);
  if (!opened.ok) {
    out.error(opened.error);
    return EXIT.badInput;
  }
  const data = opened.value;
  const logger = stderrLogger();
  const sessions: Connected[] = [];
  try {
    /** Batches this run cannot track (no connection, refused credentials): their requests never progress here. */
    const untracked = new Set<string>();
    /** One session per connection, so that each request has one reader (and one pace). */
    const sessionOf = (connection: Connection): Connected => {
      const open = sessions.find((session) => sameConnection(session.connection, connection));
      if (open) return open;
      const session = connect(data, connection, { logger, ...tuning });
      sessions.push(session);
      return session;
    };
    // Every batch with a request to track is in memory (a batch at rest has none).
    const older = data.store.loaded().filter((batch) => isOlderBatch(batch) && openRequests([batch]) > 0);
    if (older.length > 0) {
      // Sent by an earlier version, which did not record where: the user says where, and the
      // batch is bound there only if that service holds its requests.
      const chosen =
        args.baseUrl || args.profile ? await chooseConnection(args, dataDir, args.baseUrl ?? '') : undefined;
      const where = chosen?.ok ? chosen.value : undefined;
      for (const batch of older) {
        const adoption = where
          ? await adoptOlderBatch(data.store, batch, sessionOf(where).client, undefined, tuning.clock)
          : err({
              reason:
                chosen?.ok === false
                  ? chosen.error
                  : 'give --base-url URL (or --profile NAME) to say where it was sent; it is bound there only if that service holds its requests.',
            });
        if (adoption.ok) {
          out.say(
            `${batch.name}, sent by an earlier version, is tracked at ${where?.baseUrl} from now on: its requests are there.`,
          );
        } else {
          untracked.add(batch.id);
          out.error(`Cannot track ${openRequestsLabel([batch])} of ${batch.name}: ${adoption.error.reason}`);
        }
      }
    }
    const groups = connectionsOf(data.store.loaded());
    if (groups.size === 0 && untracked.size === 0) {
      out.say('Nothing to watch: no request of this data folder is open (or none was sent yet).');
      return await summarize(data.store, untracked, out);
    }
    /** The batches each connection tracks, to say which cannot be tracked when it is refused. */
    const owned = new Map<Connected, BatchState[]>();
    const refused = new Set<Connected>();
    for (const { address, batches: own } of groups.values()) {
      const connection = await connectionForAddress(address, dataDir, args);
      if (!connection.ok) {
        for (const batch of own) untracked.add(batch.id);
        out.event({
          type: 'untracked',
          baseUrl: address.baseUrl,
          clientId: address.clientId,
          reason: connection.error,
        });
        out.error(
          `Cannot track ${openRequestsLabel(own)} of ${own.map((batch) => batch.name).join(', ')} at ${address.baseUrl}: ${connection.error}`,
        );
        continue;
      }
      const session = sessionOf(connection.value);
      owned.set(session, own);
    }
    /** When this run last read each request, by `batchId/documentId` (the poller's clock). */
    const checkedAt = new Map<string, number>();
    const tracked = () => data.store.loaded().filter((batch) => !untracked.has(batch.id));
    out.say(
      `Watching ${openRequestsLabel(tracked())} at ${sessions.map((session) => session.connection.baseUrl).join(', ') || 'no service'}. It ends when every request is final or cannot progress now; Ctrl+C stops.`,
    );
    await new Promise<void>((done) => {
      const finishIfDone = () => {
        if (
          !tracked().some((batch) =>
            batch.documents.some((document) => mayProgress(batch, document, checkedAt)),
          )
        )
          done();
      };
      for (const session of sessions) {
        session.poller.subscribe((event: PollerEvent) => {
          out.event(event);
          if (!out.json) sayEvent(out, event);
          if (event.type === 'checked')
            checkedAt.set(`${event.batchId}/${event.documentId}`, Date.parse(event.at));
          if (event.type === 'poller-state' && event.state === 'refused' && !refused.has(session)) {
            // Its credentials are refused: its requests cannot be tracked by this run.
            refused.add(session);
            const own = (owned.get(session) ?? []).map((batch) => data.store.get(batch.id) ?? batch);
            for (const batch of own) untracked.add(batch.id);
            out.error(
              `Cannot track ${openRequestsLabel(own)} at ${session.connection.baseUrl}: ${event.reason ?? 'the service refused the credentials.'}`,
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
    return await summarize(data.store, untracked, out);
  } finally {
    for (const session of sessions) await session.close();
    await data.close();
  }
}

/**
 * True while `document`'s request may still move on in this run: it is tracked and its status
 * is one the app knows, or one it does not know that has not stood unchanged for
 * `UNKNOWN_STATUS_SETTLED_MS` by this run's latest read of it (the journal keeps when that
 * status was first read).
 */
function mayProgress(
  batch: BatchState,
  document: DocumentState,
  checkedAt: ReadonlyMap<string, number>,
): boolean {
  if (!needsTracking(document)) return false;
  if (stageOfDocument(document) !== 'unrecognized' || !document.tracking) return true;
  const lastRead = checkedAt.get(`${batch.id}/${document.draft.id}`);
  return (
    lastRead === undefined || lastRead - Date.parse(document.tracking.readAt) < UNKNOWN_STATUS_SETTLED_MS
  );
}

/** A request `watch` stopped on without its completion, and why, in one line. */
interface Stopped {
  readonly externalReference: string;
  readonly requestId: string | undefined;
  readonly reason: 'ended' | 'unknown_status' | 'gone';
  readonly status: string | undefined;
  readonly line: string;
}

function stoppedOf(document: DocumentState): Stopped | undefined {
  const reference = document.draft.externalReference;
  const status = document.tracking?.status;
  const about = { externalReference: reference, requestId: document.send.requestId, status };
  switch (classOf(document)) {
    case 'ended':
      return { ...about, reason: 'ended', line: `${reference}: ended at the service: ${status ?? ''}` };
    case 'unknown_status':
      return {
        ...about,
        reason: 'unknown_status',
        line: `${reference}: status '${status ?? ''}' not known to this app, unchanged since ${document.tracking?.readAt ?? '?'}; the app keeps checking it`,
      };
    case 'gone':
      return {
        ...about,
        reason: 'gone',
        line: `${reference}: its service says it no longer exists (check it again in the app)`,
      };
    default:
      return undefined;
  }
}

/**
 * The last lines: each request that did not complete (ended at its service, in a status this
 * app does not know, gone) and why, then how many are still open. Exit 0 only when every
 * request completed; 1 when some could not be tracked, did not complete, or are still open.
 */
async function summarize(store: BatchStore, untracked: ReadonlySet<string>, out: CliOutput): Promise<number> {
  const stopped: Stopped[] = [];
  // Open in a known status: only when the run was stopped, or its batch could not be tracked.
  let waiting = 0;
  // One batch after another, each read back only if it has such requests (a batch at rest may).
  for (const outline of store.outlines()) {
    const { ended, gone, unknown_status: unknownStatus, waiting: open } = outline.counts;
    if (ended + gone + unknownStatus + open === 0) continue;
    for (const document of (await store.open(outline.id))?.documents ?? []) {
      const entry = stoppedOf(document);
      if (entry) stopped.push(entry);
      if (classOf(document) === 'waiting') waiting += 1;
    }
  }
  const count = (reason: Stopped['reason']) => stopped.filter((entry) => entry.reason === reason).length;
  const [ended, unknownStatus, gone] = [count('ended'), count('unknown_status'), count('gone')];
  for (const { line: _line, ...entry } of stopped) out.event({ type: 'stopped', ...entry });
  out.event({ type: 'summary', open: waiting + unknownStatus, gone, ended, unknownStatus });
  if (!out.json) {
    if (stopped.length > 0) {
      out.say(`Stopped on ${countLabel(stopped.length, 'request', 'requests')} that did not complete:`);
      for (const entry of stopped) out.say(`  ${entry.line}`);
    }
    const open = waiting + unknownStatus;
    const openWords = `${countLabel(open, 'request', 'requests')} still open${unknownStatus > 0 ? ` (${unknownStatus} in a status this app does not know)` : ''}`;
    const endedWords = ended > 0 ? ` ${ended} ended at the service without completion.` : '';
    out.say(
      gone === 0
        ? `${open === 0 ? 'Every request is final.' : `${openWords}.`}${endedWords}`
        : `${open === 0 ? 'Every other request is final' : openWords}; ${countLabel(gone, 'request is', 'requests are')} no longer known to ${plural(gone, 'its', 'their')} service: check ${plural(gone, 'it', 'them')} again in the app.${endedWords}`,
    );
  }
  const complete = untracked.size === 0 && stopped.length === 0 && waiting === 0;
  return complete ? EXIT.ok : EXIT.someFailed;
}

function sayEvent(out: CliOutput, event: PollerEvent): void {
  if (event.type === 'completed') out.say(`  ✓ ${event.externalReference}: completed, evidence ready`);
  if (event.type === 'ended')
    out.say(`  ✗ ${event.externalReference}: ended at the service: ${event.status}`);
  if (event.type === 'gone')
    out.say(`  ✗ ${event.externalReference}: its service says it no longer exists (check again in the app)`);
  if (event.type === 'status-changed' && !event.status.final) {
    const stage = stageOfStored(event.status);
    const detail =
      stage === 'unrecognized'
        ? ' (a status this app does not know: checked less often)'
        : event.status.status === 'completed'
          ? ', evidence not ready yet'
          : '';
    out.say(`  · ${event.externalReference}: ${event.status.status}${detail}`);
  }
  if (event.type === 'poller-state' && event.state === 'waiting') out.say(`  … ${event.reason}`);
}
