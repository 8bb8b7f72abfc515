import type { DeskHandlers, EventChannel, EventPayload } from '../../shared/ipc/contract';
import type { ConnectionTest, EngineStateView } from '../../shared/ipc/views';
import { resolveLanguage } from '../../shared/i18n/languages';
import { createTranslator, type Translator } from '../../shared/i18n/translator';
import { ContractRegistry } from '../engine/contract-registry';
import { classOf } from '../domain/document-class';
import { trayCountsOf, type TrayCounts } from './tray-counts';
import { sameConnection } from '../domain/batch-connection';
import type { ConnectionTuning, DataDir } from './desk-core';
import { silentLogger, type Logger } from '../base/log';
import { summaryOf } from './batch-views';
import { ConnectionSessions } from './connection-sessions';
import type { DeskContext } from './desk-context';
import { DeskError } from './desk-error';
import { SettingsFile } from './desk-settings';
import { appHandlers } from './handlers/app';
import { batchesHandlers } from './handlers/batches';
import { ceremonyHandlers } from './handlers/ceremony';
import { dialogsHandlers } from './handlers/dialogs';
import { documentsContentHandlers } from './handlers/documents-content';
import { documentsHandlers } from './handlers/documents';
import { manifestHandlers } from './handlers/manifest';
import { profilesHandlers } from './handlers/profiles';
import { reportHandlers } from './handlers/report';
import { sendingReviewHandlers } from './handlers/sending-review';
import { sendingHandlers } from './handlers/sending';
import { trackingHandlers } from './handlers/tracking';
import { ipcEvents } from './ipc-events';
import { DeskProfiles } from './desk-profiles';
import type { ProfileRecord } from '../credentials/profile-store';
import type { CeremonyOpener, DemoProvider, Dialogs, Notifier, ProfileRegistry } from './ports';
import { speakingCall, speakingLive } from '../base/words';
import { systemClock } from '../time/clock';

export { DEMO_PROFILE_NAME } from './desk-profiles';

export interface DeskServiceDeps {
  readonly host: 'electron' | 'browser';
  readonly version: string;
  readonly dataDir: DataDir;
  readonly profiles: ProfileRegistry;
  readonly dialogs: Dialogs;
  readonly ceremony: CeremonyOpener;
  readonly notifier: Notifier;
  readonly emit: <E extends EventChannel>(event: E, payload: EventPayload<E>) => void;
  readonly demo?: DemoProvider;
  readonly logger?: Logger;
  readonly tuning?: ConnectionTuning;
  /** The OS's preferred locales, most preferred first (the language a person gets with the "system" setting). */
  readonly systemLocales?: () => readonly string[];
  /** Tests can test connections against a simulator faster. */
  readonly testConnection: (
    profile: ProfileRecord,
    connection: Awaited<ReturnType<ProfileRegistry['connectionFor']>>,
  ) => Promise<ConnectionTest>;
}

/** The desk service: the IPC handlers plus what the shell needs (tray counts, lifecycle). */
export interface DeskService {
  readonly handlers: DeskHandlers;
  /** Starts tracking and resumes any batch an earlier run left half sent. */
  start(): Promise<void>;
  /** Counts for the tray: sending, waiting for signatures, completed today. */
  trayCounts(): TrayCounts;
  trackingPaused(): boolean;
  setTrackingPaused(paused: boolean): void;
  /** The language the desk speaks now (its setting, or the OS's), for words made outside a call: the tray's. */
  translator(): Translator;
  close(): Promise<void>;
}

/**
 * The desk service: every IPC channel over the core, one handler module per capability
 * (`main/app/handlers/`), joined here by the IPC contract's type. Batches and documents live in
 * the data folder, profiles in settings and the keychain (`DeskProfiles`), open
 * connections with their engines and pollers in `ConnectionSessions`; `ipc-events.ts` turns
 * what they report into events for the page. Main is the source of truth.
 */
/**
 * Every handler runs speaking the person's language (main/base/words.ts): a message made anywhere
 * inside the call (a check deep in the engine, a host's dialog) is in it, and its answer in one
 * language. What the call starts and leaves running (a retry in a minute, a connection's poller, an
 * engine's run) speaks the desk's language as it is when each message is made: a language the
 * person chose later, never the one they left.
 */
function speakingEach(language: () => Translator['t'], handlers: DeskHandlers): DeskHandlers {
  const wrapped: Record<string, unknown> = {};
  for (const [channel, handler] of Object.entries(handlers) as [string, (...args: unknown[]) => unknown][])
    wrapped[channel] = (...args: unknown[]) =>
      speakingCall(language, async () => (await handler(...args)) as unknown);
  return wrapped as DeskHandlers;
}

export function createDeskService(deps: DeskServiceDeps): DeskService {
  const { store, blobs } = deps.dataDir;
  const logger = deps.logger ?? silentLogger;
  const profiles = new DeskProfiles(deps.profiles);
  const engineStates = new Map<string, EngineStateView>();
  const settings = new SettingsFile(deps.dataDir.path);
  let trackingPaused = settings.get().trackingPaused;
  const unsubscribers: (() => void)[] = [];

  const engineState = (batchId: string): EngineStateView => engineStates.get(batchId) ?? { state: 'idle' };

  const sessions: ConnectionSessions = new ConnectionSessions({
    dataDir: deps.dataDir,
    logger,
    ...(deps.tuning ? { tuning: deps.tuning } : {}),
    profiles: () => profiles.list(),
    activeName: () => profiles.activeName(),
    connectionOf: (name) => profiles.connectionOf(name),
    announce: (batchId) => ctx.announce(batchId),
    onOpened(connected) {
      connected.engine.subscribe(events.onEngineEvent);
      connected.poller.subscribe(events.onPollerEvent);
    },
    words: () => ctx.translator().t,
  });

  const ctx: DeskContext = {
    deps,
    store,
    blobs,
    logger,
    profiles,
    sessions,
    engineStates,
    engineState,
    async openBatch(batchId) {
      const batch = await store.open(batchId);
      if (!batch) throw new DeskError('batch_not_found', ctx.translator().t('errors.batchNotFound'));
      return batch;
    },
    outlineOrThrow(batchId) {
      const outline = store.outline(batchId);
      if (!outline) throw new DeskError('batch_not_found', ctx.translator().t('errors.batchNotFound'));
      return outline;
    },
    announce(batchId) {
      const outline = store.outline(batchId);
      if (outline)
        deps.emit('batch.changed', {
          batch: summaryOf(outline, engineState(batchId), sessions.problemOf(batchId)),
        });
    },
    async announceProfiles() {
      deps.emit('profiles.changed', { profiles: await profiles.list() });
    },
    async connectionForBatch(batchId, { bind = false } = {}) {
      // The batch's own connection, whatever is active; a batch not sent yet takes the active
      // one and is bound to it only by what sends: looking never binds.
      const ownConnection = async () => {
        try {
          return await sessions.forBatch(ctx.outlineOrThrow(batchId));
        } finally {
          ctx.announce(batchId); // its connection problem, found or cleared
        }
      };
      const current = await ownConnection();
      if (!bind) return current;
      // Another call may have bound it meanwhile (a second click while the keychain answered,
      // the active connection switched in between): the first binding stands, and is used.
      const bound = await store.bindConnection(batchId, current.connection);
      return sameConnection(bound, current.connection) ? current : ownConnection();
    },
    async connectionsChanged(interrupted) {
      // The batches in memory: every one with a request to track is (a batch at rest has none).
      await sessions.trackEverything(store.loaded());
      // The batches closing a connection paused, and any whose connection could not be used
      // until now (its secret entered again, the connection added back).
      await ctx.resumeUnfinished(interrupted);
      for (const batch of store.outlines()) ctx.announce(batch.id);
    },
    async resumeUnfinished(interrupted = []) {
      // What was left half sent goes on, each batch with its own connection (never another).
      // Every batch with a document on its way is in memory (a batch at rest has nothing to send).
      for (const batch of store.loaded()) {
        // A batch the user paused stays paused; one a closing connection paused goes on.
        const unfinished =
          interrupted.includes(batch.id) ||
          (engineState(batch.id).state !== 'paused' &&
            batch.documents.some((document) => classOf(document) === 'sending'));
        if (!unfinished || !batch.connection) continue;
        const current = await sessions.forBatch(batch).catch(() => undefined);
        if (current && !current.engine.isRunning(batch.id)) ctx.runSend(batch.id, current);
      }
    },
    runSend(batchId, current, reviewed = []) {
      void current.engine.send(batchId, reviewed).catch((error: unknown) => {
        logger.log('error', 'send.crashed', {
          batchId,
          error: error instanceof Error ? error.message : String(error),
        });
        engineStates.set(batchId, {
          state: 'stopped',
          reason: ctx.translator().t('errors.sendingStopped'),
        });
        ctx.announce(batchId);
      });
    },
    trackingPaused: () => trackingPaused,
    setTrackingPaused: (paused) => service.setTrackingPaused(paused),
    async heldBackOf(batch) {
      const active = batch.connection ? undefined : (await profiles.list()).find((profile) => profile.active);
      const service = batch.connection ?? (active && { baseUrl: active.baseUrl, clientId: active.clientId });
      if (!service) return () => undefined;
      const registry = ContractRegistry.of(store);
      return (document) =>
        // Sent anew on purpose: the person chose, after the warning.
        document.send.reuseAccepted
          ? undefined
          : registry.holdersOf(service, document.draft.externalReference, {
              batchId: batch.id,
              documentId: document.draft.id,
            })[0];
    },
    settings,
    translator() {
      const { language, locale } = resolveLanguage(settings.get().language, deps.systemLocales?.() ?? []);
      if (translator?.locale !== locale || translator.language !== language)
        translator = createTranslator(language, locale);
      return translator;
    },
  };
  let translator: Translator | undefined;
  /** The desk's language now: its setting, or the OS's. */
  const deskLanguage = () => ctx.translator().t;
  const events = ipcEvents(ctx);
  unsubscribers.push(store.subscribe((batch) => ctx.announce(batch.id)));
  // A keychain prompt keeps saves, tests and sends waiting: the page says so within a second.
  const keychainWaits = deps.profiles.keychainWaits;
  if (keychainWaits)
    unsubscribers.push(keychainWaits.subscribe((waiting) => deps.emit('keychain.waiting', { waiting })));

  const handlers: DeskHandlers = speakingEach(deskLanguage, {
    ...appHandlers(ctx),
    ...profilesHandlers(ctx),
    ...batchesHandlers(ctx),
    ...dialogsHandlers(ctx),
    ...documentsHandlers(ctx),
    ...documentsContentHandlers(ctx),
    ...manifestHandlers(ctx),
    ...sendingHandlers(ctx),
    ...sendingReviewHandlers(ctx),
    ...ceremonyHandlers(ctx),
    ...trackingHandlers(ctx),
    ...reportHandlers(ctx),
  });

  const service: DeskService = {
    handlers,
    start() {
      // Speaking the person's language, as a handler does: what the start finds wrong (a secret
      // missing from the keychain) is worded in it, as it is when found.
      return speakingLive(deskLanguage, async () => {
        // The demo, used before in this data folder, comes back (its batches go on); it is the
        // active connection only when no saved one is.
        const demo = await deps.demo?.resume?.().catch(() => undefined);
        if (demo)
          profiles.useDemo(demo, { active: !(await deps.profiles.activeName().catch(() => undefined)) });
        // Track every request at its own service, whatever connection is active (unless the
        // person paused tracking, which outlives a restart).
        sessions.setTrackingPaused(trackingPaused);
        await sessions.trackEverything(store.loaded());
        if (await profiles.activeName().catch(() => undefined)) {
          // The active connection opens at once, so that a problem with it shows at start.
          await sessions.active().catch((error: unknown) => {
            logger.log('warn', 'start.no_connection', {
              reason: error instanceof DeskError ? error.code : 'unknown',
            });
          });
        }
        await ctx.resumeUnfinished();
        for (const batch of store.outlines()) if (sessions.problemOf(batch.id)) ctx.announce(batch.id);
      });
    },
    trayCounts() {
      const today = new Date((deps.tuning?.clock ?? systemClock).now()).toDateString();
      return trayCountsOf(store.outlines(), today);
    },
    trackingPaused: () => trackingPaused,
    translator: () => ctx.translator(),
    setTrackingPaused(paused) {
      // From the tray too, outside any call: the pollers it restarts speak the desk's language.
      speakingLive(deskLanguage, () => {
        trackingPaused = paused;
        void settings.update({ trackingPaused: paused });
        sessions.setTrackingPaused(paused);
        deps.emit('tracking.paused', { paused });
      });
    },
    async close() {
      for (const unsubscribe of unsubscribers) unsubscribe();
      await sessions.close();
    },
  };
  return service;
}
