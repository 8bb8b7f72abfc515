import { err, type Result } from '../../shared/base/result';
import type { ProfileView } from '../../shared/ipc/views';
import type { Connection } from '../credentials/connection';
import type { BatchState } from '../domain/batch-state';
import type { BatchOutline } from '../domain/batch-outline';
import { connectionKey, sameConnection, type ConnectionAddress } from '../domain/batch-connection';
import { connect, type Connected, type ConnectionTuning, type DataDir } from './desk-core';
import { silentLogger, type Logger } from '../base/log';
import { needsTracking } from '../domain/document-class';
import {
  adoptOlderBatch,
  holdsRequests,
  isOlderBatch,
  olderBatchReason,
  type AdoptionRefused,
  type OlderBatchRefusal,
} from '../engine/older-batch';
import { englishWords, type Translator } from '../../shared/i18n/translator';

import { DeskError } from './desk-error';
import { systemClock, type Cancel, type Clock } from '../time/clock';

/** How long a failure to ask a service about an older batch is kept before asking again. */
const NOT_HELD_RETRY_MS = 60_000;

export interface ConnectionSessionsDeps {
  readonly dataDir: DataDir;
  readonly tuning?: ConnectionTuning;
  readonly logger?: Logger;
  /** Every profile the user has now, saved or the demo (`hasSecret` false: its secret is missing from the keychain). */
  profiles(): Promise<readonly ProfileView[]>;
  /** The active connection's name: where new batches go. */
  activeName(): Promise<string | undefined>;
  /** A profile's connection, with its secret (from the keychain, or the demo's from memory); throws DeskError. */
  connectionOf(name: string): Promise<Connection>;
  /** Called when a batch's connection problem may have changed outside a caller's request. */
  announce?(batchId: string): void;
  /** Called once for every connection opened, to listen to its engine and poller. */
  onOpened(connected: Connected): void;
  /** The language the desk speaks now (default English): its refusals, and a batch's problem when it is read. */
  readonly words?: () => Translator['t'];
}

/** Words in the language they are read in: a batch's problem is worded anew when the language changes. */
type Worded = (t: Translator['t']) => string;

interface Session {
  readonly name: string;
  readonly connected: Connected;
}

/**
 * The open connections of the desk (README "Using the app", Connections): one client, engine and poller
 * per service and client id, each opened when a batch of it needs sending or tracking. The
 * active connection only says where new batches go; every batch is continued and tracked
 * with the connection it was first sent with, whatever is active, and never read with
 * another. A batch whose connection is gone (deleted, or its secret missing) says so.
 */
export class ConnectionSessions {
  readonly #deps: ConnectionSessionsDeps;
  readonly #logger: Logger;
  readonly #sessions = new Map<string, Session>();
  /** Opening connections, so that two callers share one. */
  readonly #opening = new Map<string, Promise<Session>>();
  /** Closing connections: one opens again only once its runs have ended (never two runs of a batch). */
  readonly #closing = new Map<string, Promise<void>>();
  /** Older batches a service said it does not hold, as `"<connection key> <batch id>"`: not asked again. */
  readonly #notHeld = new Map<string, { readonly refusal: OlderBatchRefusal; readonly until: number }>();
  /** The asks of older batches waiting for their minute: cancelled at close, so none outlives the desk. */
  readonly #retries = new Set<Cancel>();
  /** Adoptions of older batches, run one after another in the background. */
  #adopting: Promise<void> = Promise.resolve();
  /** Aborted when the sessions close: background adoptions stop asking. */
  readonly #stopAdopting = new AbortController();
  /** Why a batch's own connection cannot be used now, by batch id. */
  readonly #problems = new Map<string, Worded>();
  #trackingPaused = false;

  get #clock(): Clock {
    return this.#deps.tuning?.clock ?? systemClock;
  }

  constructor(deps: ConnectionSessionsDeps) {
    this.#deps = deps;
    this.#logger = deps.logger ?? silentLogger;
  }

  /** The desk's language now. */
  #t(): Translator['t'] {
    return this.#deps.words?.() ?? englishWords();
  }

  /** Every open connection. */
  all(): Connected[] {
    return [...this.#sessions.values()].map((session) => session.connected);
  }

  /** The open connection of `batch`, if any: the one it is bound to. */
  openFor(batch: Pick<BatchState, 'connection'>): Connected | undefined {
    if (!batch.connection) return undefined;
    return this.#sessions.get(connectionKey(batch.connection))?.connected;
  }

  /** Why `batchId`'s own connection cannot be used (in the desk's language now), or undefined. */
  problemOf(batchId: string): string | undefined {
    return this.#problems.get(batchId)?.(this.#t());
  }

  /** The active connection, opened on first use. */
  async active(): Promise<Connected> {
    const name = await this.#deps.activeName();
    if (!name) throw new DeskError('no_connection', this.#t()('connections.noActive'));
    const known = (await this.#deps.profiles()).find((candidate) => candidate.name === name);
    if (!known) throw new DeskError('profile_not_found', this.#t()('errors.profileNotFound', { name }));
    return (await this.#open(known)).connected;
  }

  /**
   * The connection `batch` is sent and tracked with: the one it is bound to, whatever is active.
   * A batch not bound yet takes the active one (the caller binds it), except a batch an earlier
   * version sent: it is bound first, only where its requests are (`#adoptOlder`), or refused. Throws a DeskError that
   * says which connection is missing when the bound one is no longer known or has no secret.
   */
  async forBatch(batch: BatchState | BatchOutline, retried = false): Promise<Connected> {
    if (!batch.connection) {
      // A batch never bound is never at rest: it is in memory.
      const state = 'documents' in batch ? batch : this.#deps.dataDir.store.get(batch.id);
      // An earlier version's batch with requests somewhere: only the service that holds them.
      if (state && holdsRequests(state)) return this.forBatch(await this.#adoptOlder(state), retried);
      return this.active();
    }
    const bound = batch.connection;
    // Two profiles may name the same service and client: the one with a secret serves.
    const matches = (await this.#deps.profiles()).filter((candidate) => sameConnection(candidate, bound));
    const known = matches.find((candidate) => candidate.hasSecret) ?? matches[0];
    if (!known) {
      const problem: Worded = (t) =>
        t('connections.batchConnectionGone', { baseUrl: bound.baseUrl, clientId: bound.clientId });
      this.#problems.set(batch.id, problem);
      throw new DeskError('connection_missing', problem(this.#t()));
    }
    try {
      const session = await this.#open(known);
      this.#problems.delete(batch.id);
      return session.connected;
    } catch (error) {
      // Its profile was edited while it opened: decide again with the connections as they are now.
      if (error instanceof DeskError && error.code === 'connection_changed' && !retried)
        return this.forBatch(batch, true);
      // The reason stays in the words it was given in (the keychain's, the settings file's).
      if (error instanceof DeskError)
        this.#problems.set(batch.id, (t) =>
          t('connections.batchConnectionUnusable', { name: known.name, reason: error.message }),
        );
      throw error;
    }
  }

  /**
   * Opens the connection of every batch that has requests still to track (each with its own
   * poller, budget and pacing), so that every request is tracked whatever connection is
   * active. A batch whose connection cannot be opened keeps its problem; the others go on.
   */
  async trackEverything(batches: readonly BatchState[]): Promise<void> {
    this.#problems.clear();
    for (const listed of batches) {
      if (isOlderBatch(listed)) {
        this.#adoptLater(listed);
        continue;
      }
      if (!listed.documents.some(needsTracking)) continue;
      try {
        await this.forBatch(listed);
      } catch (error) {
        this.#logger.log('warn', 'tracking.connection_missing', {
          batchId: listed.id,
          reason: error instanceof DeskError ? error.code : 'unknown',
        });
      }
    }
  }

  /**
   * A batch an earlier version sent before batches were bound to their connection: that version
   * sent with the connection then active, which is not recorded. It is bound to the active
   * connection only when that service holds one of its requests (`adoptOlderBatch`), and is
   * tracked only there from then on; otherwise it waits, and says why.
   */
  /**
   * Adopts an older batch in the background, one batch after another: proving reads may be slow,
   * and no handler (a profile saved, a connection made active) waits for them. The batch is
   * announced when it is bound or says why not.
   */
  #adoptLater(batch: BatchState): void {
    const adopt = async () => {
      if (this.#stopAdopting.signal.aborted) return;
      const current = this.#deps.dataDir.store.get(batch.id);
      if (!current || !isOlderBatch(current)) return;
      try {
        await this.forBatch(await this.#adoptOlder(current));
      } catch (error) {
        this.#logger.log('warn', 'tracking.older_batch_waits', {
          batchId: batch.id,
          reason: error instanceof DeskError ? error.code : 'unknown',
        });
      }
      this.#deps.announce?.(batch.id);
    };
    // One failed adoption (or announcement) never stops the ones after it.
    this.#adopting = this.#adopting.then(adopt).catch(() => undefined);
  }

  /** Older batches still being adopted in the background (tests and shutdown wait for them). */
  adopting(): Promise<void> {
    return this.#adopting;
  }

  async #adoptOlder(batch: BatchState): Promise<BatchState> {
    let active: Connected;
    try {
      active = await this.active();
    } catch (error) {
      this.#problems.set(batch.id, (t) =>
        error instanceof DeskError
          ? t('connections.olderBatchNoActiveBecause', { reason: error.message })
          : t('connections.olderBatchNoActive'),
      );
      throw error;
    }
    const asked = `${connectionKey(active.connection)} ${batch.id}`;
    const remembered = this.#notHeld.get(asked);
    const fresh = remembered && remembered.until > this.#clock.now() ? remembered : undefined;
    const adoption: Result<void, Pick<AdoptionRefused, 'refusal' | 'answered'>> = fresh
      ? err({ refusal: fresh.refusal })
      : await adoptOlderBatch(
          this.#deps.dataDir.store,
          batch,
          active.client,
          this.#stopAdopting.signal,
          this.#clock,
        );
    if (!adoption.ok) {
      if (!fresh) {
        // The service's own "not mine" holds for this run; a failure to ask holds for a
        // minute, and the service is asked again once it is over.
        const answered = adoption.error.answered === true;
        this.#notHeld.set(asked, {
          refusal: adoption.error.refusal,
          until: answered ? Infinity : this.#clock.now() + NOT_HELD_RETRY_MS,
        });
        if (!answered) {
          const cancel = this.#clock.timer(
            NOT_HELD_RETRY_MS,
            () => {
              this.#retries.delete(cancel);
              this.#adoptLater(batch);
            },
            true,
          );
          this.#retries.add(cancel);
        }
      }
      const { refusal } = adoption.error;
      this.#problems.set(batch.id, (t) => olderBatchReason(refusal, t));
      throw new DeskError('connection_unknown', olderBatchReason(refusal, this.#t()));
    }
    this.#logger.log('info', 'tracking.older_batch_bound', { batchId: batch.id });
    return this.#deps.dataDir.store.get(batch.id) ?? batch;
  }

  /**
   * Closes the connections opened under `name`, or to `address` (a profile's address or secret
   * changed, or it was deleted). Returns the batches that were sending on them: closing pauses
   * them, and the caller resumes them with their connection as it is now.
   */
  async forget(name: string, address?: ConnectionAddress): Promise<string[]> {
    // A connection still opening is closed too, once opened (it may hold the old secret).
    await Promise.allSettled([...this.#opening.values()]);
    const interrupted: string[] = [];
    for (const [key, session] of this.#sessions) {
      const byName = session.name.toLowerCase() === name.toLowerCase();
      if (!byName && !(address && connectionKey(address) === key)) continue;
      this.#sessions.delete(key);
      for (const batch of this.#deps.dataDir.store.outlines())
        if (session.connected.engine.isRunning(batch.id)) interrupted.push(batch.id);
      const closing = session.connected.close().finally(() => this.#closing.delete(key));
      this.#closing.set(key, closing);
      await closing;
    }
    return interrupted;
  }

  setTrackingPaused(paused: boolean): void {
    this.#trackingPaused = paused;
    for (const { connected } of this.#sessions.values()) {
      if (paused) connected.poller.stop();
      else connected.poller.start();
    }
  }

  async close(): Promise<void> {
    for (const cancel of this.#retries) cancel();
    this.#retries.clear();
    this.#stopAdopting.abort();
    await this.#adopting;
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((session) => session.connected.close()));
  }

  #open(known: ProfileView): Promise<Session> {
    const key = connectionKey(known);
    const open = this.#sessions.get(key);
    if (open) return Promise.resolve(open);
    let opening = this.#opening.get(key);
    if (!opening) {
      opening = (async () => {
        await this.#closing.get(key);
        const connection = await this.#deps.connectionOf(known.name);
        // The profile may have moved while its secret was read (a keychain prompt): a session is
        // only ever opened for the address and client it is filed under.
        if (connectionKey(connection) !== key)
          throw new DeskError(
            'connection_changed',
            this.#t()('connections.changedWhileOpening', { name: known.name }),
          );
        const connected = connect(this.#deps.dataDir, connection, {
          logger: this.#logger,
          ...this.#deps.tuning,
        });
        const session = { name: known.name, connected };
        this.#sessions.set(key, session);
        this.#deps.onOpened(connected);
        if (!this.#trackingPaused) connected.poller.start();
        return session;
      })().finally(() => this.#opening.delete(key));
      this.#opening.set(key, opening);
    }
    return opening;
  }
}
