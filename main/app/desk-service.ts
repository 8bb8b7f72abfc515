import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeskHandlers, EventChannel, EventPayload } from '../../shared/ipc/contract';
import type { EngineStateView, ProfileView } from '../../shared/ipc/views';
import type { DocumentDraft } from '../../shared/domain/batch';
import { addPdfDocuments, syncManifest } from '../batch/batch-preparation';
import { isLocked } from '../batch/batch-state';
import { classOf } from '../batch/document-class';
import type { ResolutionRefusal } from '../batch/check-resolution';
import { checkManifestFile, formatIssue } from '../batch/manifest';
import type { SendEngineEvent } from '../batch/send-engine';
import type { Connected, Connection, ConnectionTuning, DataDir } from '../desk-core';
import { Secret } from '../secret';
import { silentLogger, type Logger } from '../log';
import { batchReportCsv } from '../report/report-csv';
import type { PollerEvent } from '../tracking/status-poller';
import { detailOf, summaryOf } from './batch-views';
import { ConnectionSessions } from './connection-sessions';
import { DeskError } from './desk-error';
import type {
  CeremonyOpener,
  DemoProvider,
  Dialogs,
  Notifier,
  ProfileRecord,
  ProfileRegistry,
} from './ports';

export const DEMO_PROFILE_NAME = 'Demo (built-in simulator)';

export interface DeskServiceDeps {
  readonly host: 'electron' | 'browser';
  readonly version: string;
  readonly dataDir: DataDir;
  readonly profiles: ProfileRegistry;
  readonly dialogs: Dialogs;
  readonly ceremonies: CeremonyOpener;
  readonly notifier: Notifier;
  readonly emit: <E extends EventChannel>(event: E, payload: EventPayload<E>) => void;
  readonly demo?: DemoProvider;
  readonly logger?: Logger;
  readonly tuning?: ConnectionTuning;
  /** Tests can test connections against a simulator faster. */
  readonly testConnection: (
    profile: ProfileRecord,
    connection: Awaited<ReturnType<ProfileRegistry['connectionFor']>>,
  ) => Promise<
    { ok: true; scopes: string[]; expiresInSeconds?: number } | { ok: false; code: string; message: string }
  >;
}

/** The desk service: the IPC handlers plus what the shell needs (tray counts, lifecycle). */
export interface DeskService {
  readonly handlers: DeskHandlers;
  /** Starts tracking and resumes any batch an earlier run left half sent. */
  start(): Promise<void>;
  /** Counts for the tray: sending, waiting for signatures, completed today. */
  trayCounts(): { sending: number; waiting: number; completedToday: number };
  trackingPaused(): boolean;
  setTrackingPaused(paused: boolean): void;
  close(): Promise<void>;
}

/** The error code the page gets for each way an answer to a check is refused. */
const RESOLUTION_REFUSAL_CODES: Readonly<Record<ResolutionRefusal, string>> = {
  refused: 'check_answer_refused',
  needs_confirmation: 'link_needs_confirmation',
  service_unreachable: 'service_unreachable',
};

const PDF_EXTENSION = /\.pdf$/i;
const MANIFEST_EXTENSION = /\.(csv|txt)$/i;

/** A manifest is a CSV export: any other file is refused before it is read (its lines would be quoted back). */
function manifestPathOrThrow(path: string): string {
  if (!MANIFEST_EXTENSION.test(path)) {
    throw new DeskError(
      'not_a_manifest',
      'A manifest is a CSV file (.csv, or .txt): choose the CSV exported from your spreadsheet.',
    );
  }
  return path;
}

/**
 * Implements every IPC channel over the core: batches and documents in the data folder,
 * profiles in settings and the keychain, sending and tracking with the active connection.
 * Main is the source of truth; every change is announced as an event for the renderer.
 */
export function createDeskService(deps: DeskServiceDeps): DeskService {
  const { store, blobs } = deps.dataDir;
  const logger = deps.logger ?? silentLogger;
  const engineStates = new Map<string, EngineStateView>();
  let trackingPaused = false;
  // The demo is a local simulator started for this run, with public demo credentials: it lives
  // in memory only (never in profiles.json or the keychain), so it works without a keychain.
  let demoActive = false;
  let demo:
    { readonly baseUrl: string; readonly clientId: string; readonly clientSecret: string } | undefined;
  const unsubscribers: (() => void)[] = [];

  const engineState = (batchId: string): EngineStateView => engineStates.get(batchId) ?? { state: 'idle' };
  const batchOrThrow = (batchId: string) => {
    const batch = store.get(batchId);
    if (!batch) throw new DeskError('batch_not_found', 'This batch no longer exists.');
    return batch;
  };
  const announce = (batchId: string) => {
    const batch = store.get(batchId);
    if (batch)
      deps.emit('batch.changed', {
        batch: summaryOf(batch, engineState(batchId), sessions.problemOf(batchId)),
      });
  };

  unsubscribers.push(store.subscribe((batch) => announce(batch.id)));

  /** The saved profiles; while the demo runs, a keychain problem must not hide it. */
  async function storedProfiles(): Promise<ProfileRecord[]> {
    try {
      return await deps.profiles.list();
    } catch (error) {
      if (demo) return [];
      throw error;
    }
  }

  async function activeName(): Promise<string | undefined> {
    if (demoActive) return DEMO_PROFILE_NAME;
    return deps.profiles.activeName();
  }

  async function profileViews(): Promise<ProfileView[]> {
    const active = await activeName();
    const views: ProfileView[] = (await storedProfiles()).map((profile) => ({
      ...profile,
      active: profile.name === active,
      demo: false,
    }));
    if (demo) {
      views.push({
        name: DEMO_PROFILE_NAME,
        baseUrl: demo.baseUrl,
        clientId: demo.clientId,
        hasSecret: true,
        active: demoActive,
        demo: true,
      });
    }
    return views;
  }

  /** A profile's connection: the demo's from memory, any other's from the keychain. */
  async function connectionOf(name: string): Promise<Connection> {
    if (name === DEMO_PROFILE_NAME && demo) {
      return { baseUrl: demo.baseUrl, clientId: demo.clientId, clientSecret: new Secret(demo.clientSecret) };
    }
    return deps.profiles.connectionFor(name);
  }

  async function announceProfiles(): Promise<void> {
    deps.emit('profiles.changed', { profiles: await profileViews() });
  }

  function onEngineEvent(event: SendEngineEvent): void {
    switch (event.type) {
      case 'item-progress':
        deps.emit('send.progress', {
          batchId: event.batchId,
          documentId: event.documentId,
          phase: event.phase,
          ...(event.sentBytes === undefined
            ? {}
            : { sentBytes: event.sentBytes, totalBytes: event.totalBytes }),
        });
        return;
      case 'engine-state':
        engineStates.set(event.batchId, {
          state: event.state,
          ...(event.reason ? { reason: event.reason } : {}),
          ...(event.resumesAt ? { resumesAt: event.resumesAt } : {}),
        });
        deps.emit('send.state', { batchId: event.batchId, engine: engineState(event.batchId) });
        announce(event.batchId);
        return;
      default:
        return;
    }
  }

  function onPollerEvent(event: PollerEvent): void {
    if (event.type === 'status-changed') {
      deps.emit('tracking.status', {
        batchId: event.batchId,
        documentId: event.documentId,
        status: event.status,
      });
    } else if (event.type === 'completed') {
      deps.emit('tracking.completed', event);
      deps.notifier.notify(
        'Contract fully signed',
        `${event.externalReference} is completed and its evidence is ready.`,
      );
    }
  }

  const sessions = new ConnectionSessions({
    dataDir: deps.dataDir,
    logger,
    ...(deps.tuning ? { tuning: deps.tuning } : {}),
    known: async () =>
      (await profileViews()).map(({ name, baseUrl, clientId, hasSecret }) => ({
        name,
        baseUrl,
        clientId,
        hasSecret,
      })),
    activeName,
    connectionOf,
    onOpened(connected) {
      connected.engine.subscribe(onEngineEvent);
      connected.poller.subscribe(onPollerEvent);
    },
  });

  /**
   * The connection a batch is sent and tracked with: the one it was first sent with, whatever
   * connection is active, so nothing goes to two services. A batch not sent yet takes the
   * active one, and is bound to it only by what sends (`bind`): looking never binds.
   */
  async function connectionForBatch(batchId: string, { bind = false } = {}): Promise<Connected> {
    const batch = batchOrThrow(batchId);
    let current: Connected;
    try {
      current = await sessions.forBatch(batch);
    } finally {
      announce(batchId); // its connection problem, found or cleared
    }
    if (!batch.connection && bind) {
      await store.record(batchId, [
        {
          type: 'connection_bound',
          baseUrl: current.connection.baseUrl,
          clientId: current.connection.clientId,
        },
      ]);
    }
    return current;
  }

  /**
   * After a connection changed (saved, deleted, the demo restarted): every batch is tracked
   * again with its own connection as it is now, what was sending on a closed one resumes, and
   * every batch shows its connection problem, if any.
   */
  async function connectionsChanged(interrupted: readonly string[]): Promise<void> {
    await sessions.trackEverything(store.list());
    for (const batchId of interrupted) {
      const batch = store.get(batchId);
      const current = batch ? await sessions.forBatch(batch).catch(() => undefined) : undefined;
      if (current) runSend(batchId, current);
    }
    for (const batch of store.list()) announce(batch.id);
  }

  function runSend(batchId: string, current: Connected): void {
    void current.engine.send(batchId).catch((error: unknown) => {
      logger.log('error', 'send.crashed', {
        batchId,
        error: error instanceof Error ? error.message : String(error),
      });
      engineStates.set(batchId, {
        state: 'stopped',
        reason: 'Sending stopped unexpectedly. Nothing was lost; try again.',
      });
      announce(batchId);
    });
  }

  function editableDocument(batchId: string, documentId: string) {
    const document = batchOrThrow(batchId).documents.find((candidate) => candidate.draft.id === documentId);
    if (!document) throw new DeskError('document_not_found', 'This document is no longer in the batch.');
    if (isLocked(document)) {
      throw new DeskError('document_locked', 'This document was already sent; it can no longer be changed.');
    }
    return document;
  }

  const handlers: DeskHandlers = {
    'app.info': async () => ({
      host: deps.host,
      version: deps.version,
      dataDir: deps.dataDir.path,
      trackingPaused,
      damagedBatches: store.loadReport.damaged.map(({ batchId, damage }) => ({
        batchId,
        problem: `${damage.problem} (${damage.file}${damage.line ? `, line ${damage.line}` : ''})`,
      })),
    }),

    'profiles.list': profileViews,
    'profiles.save': async (input) => {
      if (input.name.toLowerCase() === DEMO_PROFILE_NAME.toLowerCase()) {
        throw new DeskError(
          'reserved_name',
          'This name belongs to the demo connection; choose another name.',
        );
      }
      const saved = await deps.profiles.save(input);
      // Its address, client id or secret may have changed: its connections open afresh.
      const interrupted = await sessions.forget(saved.name, saved);
      if (!(await activeName())) await deps.profiles.setActive(saved.name);
      await connectionsChanged(interrupted);
      await announceProfiles();
      return (await profileViews()).find((profile) => profile.name === saved.name) as ProfileView;
    },
    'profiles.delete': async (name) => {
      const interrupted = await sessions.forget(name);
      if (name === DEMO_PROFILE_NAME && demo) {
        demo = undefined;
        demoActive = false;
      } else {
        await deps.profiles.delete(name);
      }
      await connectionsChanged(interrupted);
      await announceProfiles();
      return null;
    },
    'profiles.activate': async (name) => {
      if (name === DEMO_PROFILE_NAME && demo) {
        demoActive = true;
      } else {
        await deps.profiles.setActive(name);
        demoActive = false;
      }
      await announceProfiles();
      return (await profileViews()).find((profile) => profile.name === name) as ProfileView;
    },
    'profiles.test': async (name) => {
      const profile = (await profileViews()).find((candidate) => candidate.name === name);
      if (!profile) throw new DeskError('profile_not_found', `There is no connection named "${name}".`);
      return deps.testConnection(profile, await connectionOf(name));
    },
    'profiles.useDemo': async () => {
      if (!deps.demo) {
        throw new DeskError(
          'demo_unavailable',
          'The built-in simulator is only available when the app runs from its source folder.',
        );
      }
      demo = await deps.demo.start();
      demoActive = true;
      // The demo simulator may have moved (a new run): its connection opens afresh.
      await connectionsChanged(await sessions.forget(DEMO_PROFILE_NAME));
      await announceProfiles();
      return (await profileViews()).find((profile) => profile.name === DEMO_PROFILE_NAME) as ProfileView;
    },

    'batches.list': async () =>
      store.list().map((batch) => summaryOf(batch, engineState(batch.id), sessions.problemOf(batch.id))),
    'batches.get': async (batchId) =>
      detailOf(batchOrThrow(batchId), engineState(batchId), sessions.problemOf(batchId)),
    'batches.create': async (name) => {
      const batch = await store.create(name, { defaultRecipients: [] });
      return summaryOf(batch, engineState(batch.id), sessions.problemOf(batch.id));
    },
    'batches.rename': async (batchId, name) => {
      batchOrThrow(batchId);
      return summaryOf(await store.record(batchId, [{ type: 'batch_renamed', name }]), engineState(batchId));
    },
    'batches.setDefaults': async (batchId, defaults) => {
      batchOrThrow(batchId);
      return summaryOf(
        await store.record(batchId, [{ type: 'defaults_changed', defaults }]),
        engineState(batchId),
      );
    },
    'batches.delete': async (batchId) => {
      sessions.openFor(batchOrThrow(batchId))?.engine.pause(batchId);
      await store.delete(batchId);
      engineStates.delete(batchId);
      deps.emit('batch.deleted', { batchId });
      return null;
    },

    'dialogs.pickPdfs': () => deps.dialogs.pickPdfs(),
    'dialogs.pickFolder': async () => {
      const folder = await deps.dialogs.pickFolder();
      if (!folder) return [];
      const entries = await readdir(folder, { withFileTypes: true });
      return entries
        .filter((entry) => entry.isFile() && PDF_EXTENSION.test(entry.name))
        .map((entry) => join(folder, entry.name));
    },
    'dialogs.pickManifest': async () => (await deps.dialogs.pickManifest()) ?? null,

    'documents.addPaths': async (batchId, paths) => {
      batchOrThrow(batchId);
      const { added, rejected } = await addPdfDocuments(store, blobs, batchId, paths);
      return { added: added.length, rejected: [...rejected] };
    },
    'documents.update': async (batchId, documentId, edit) => {
      const document = editableDocument(batchId, documentId);
      const draft: DocumentDraft = {
        ...document.draft,
        ...edit,
        options: edit.options ?? document.draft.options,
      };
      const batch = await store.record(batchId, [{ type: 'document_edited', document: draft }]);
      return detailOf(batch, engineState(batchId), sessions.problemOf(batchId));
    },
    'documents.remove': async (batchId, documentId) => {
      editableDocument(batchId, documentId);
      const batch = await store.record(batchId, [{ type: 'document_removed', documentId }]);
      return detailOf(batch, engineState(batchId), sessions.problemOf(batchId));
    },

    'manifest.preview': async (path) => {
      const check = await checkManifestFile(manifestPathOrThrow(path));
      return {
        path,
        documents: check.documents.map((document) => ({
          externalReference: document.externalReference,
          documentColumn: document.documentColumn,
          storedFilename: document.storedFilename,
          recipients: document.recipients,
          rows: [...document.rows],
        })),
        issues: check.issues.map((issue) => ({
          row: issue.row,
          ...(issue.column ? { column: issue.column } : {}),
          message: issue.message,
          text: formatIssue(issue),
        })),
      };
    },
    'manifest.import': async (batchId, path) => {
      batchOrThrow(batchId);
      const check = await checkManifestFile(manifestPathOrThrow(path));
      if (check.issues.length > 0) {
        throw new DeskError(
          'manifest_invalid',
          `The manifest has ${check.issues.length} problem(s); nothing was imported. Fix them and import again.`,
        );
      }
      const sync = await syncManifest(store, blobs, batchId, check.documents);
      return { ...sync, lockedChanges: [...sync.lockedChanges], rejected: [...sync.rejected] };
    },

    'sending.start': async (batchId) => {
      const current = await connectionForBatch(batchId, { bind: true });
      runSend(batchId, current);
      return engineState(batchId);
    },
    'sending.pause': async (batchId) => {
      sessions.openFor(batchOrThrow(batchId))?.engine.pause(batchId);
      return engineState(batchId);
    },
    'sending.retry': async (batchId, documentId) => {
      const current = await connectionForBatch(batchId, { bind: true });
      await current.engine.retry(batchId, documentId);
      if (!current.engine.isRunning(batchId)) runSend(batchId, current);
      return engineState(batchId);
    },

    'sending.linkRequest': async (batchId, documentId, requestId, options) => {
      const current = await connectionForBatch(batchId, { bind: true });
      const linked = await current.engine.linkRequest(batchId, documentId, requestId, options);
      if (!linked.ok) throw new DeskError(RESOLUTION_REFUSAL_CODES[linked.refusal], linked.message);
      if (!current.engine.isRunning(batchId)) runSend(batchId, current);
      return engineState(batchId);
    },
    'sending.sendAsNew': async (batchId, documentId) => {
      const current = await connectionForBatch(batchId, { bind: true });
      const resolved = await current.engine.sendAsNew(batchId, documentId);
      if (!resolved.ok) throw new DeskError(RESOLUTION_REFUSAL_CODES[resolved.refusal], resolved.message);
      if (!current.engine.isRunning(batchId)) runSend(batchId, current);
      return engineState(batchId);
    },

    'ceremony.open': async (batchId, documentId) => {
      const current = await connectionForBatch(batchId);
      const document = batchOrThrow(batchId).documents.find((candidate) => candidate.draft.id === documentId);
      const requestId = document?.send.requestId;
      if (!document || !requestId || !document.send.prepared) {
        throw new DeskError('not_prepared', 'This document has not been prepared yet: send it first.');
      }
      const key = `${batchId}/${documentId}`;
      // Already open: bring it forward rather than create a second session.
      if (deps.ceremonies.focus?.(key)) return { alreadyOpen: true as const };
      const session = await current.client.createWidgetSession(requestId);
      if (!session.ok) throw new DeskError(session.error.code, session.error.message);
      // Read quickly while someone waits (undone below if the window cannot open).
      current.poller.watch(batchId, documentId);
      try {
        await deps.ceremonies.open({
          key,
          title: `Signing ceremony — ${document.draft.externalReference}`,
          session: session.value,
          renew: () => current.client.createWidgetSession(requestId),
          onClosed: () => {
            current.poller.unwatch(batchId, documentId);
            deps.emit('ceremony.closed', { batchId, documentId });
          },
        });
      } catch (error) {
        current.poller.unwatch(batchId, documentId, 0);
        throw error;
      }
      return { alreadyOpen: false as const, expiresInSeconds: session.value.expiresInSeconds };
    },

    'tracking.refreshNow': async (batchId) => {
      // Every batch at its own service: a batch's connection, or every open one.
      if (batchId) (await connectionForBatch(batchId)).poller.refreshNow(batchId);
      else for (const connected of sessions.all()) connected.poller.refreshNow();
      return null;
    },
    'tracking.checkAgain': async (batchId, documentId) => {
      const current = await connectionForBatch(batchId);
      const outcome = await current.poller.checkAgain(batchId, documentId);
      if (!outcome.found) throw new DeskError('still_gone', outcome.message);
      return null;
    },
    'tracking.setPaused': async (paused) => {
      service.setTrackingPaused(paused);
      return null;
    },

    'report.csv': async (batchId) => batchReportCsv(batchOrThrow(batchId)),
    'report.export': async (batchId) => {
      const batch = batchOrThrow(batchId);
      const path = await deps.dialogs.pickReportPath(`${batch.name}.csv`);
      if (!path) return null;
      await writeFile(path, batchReportCsv(batch), { encoding: 'utf8', mode: 0o600 }).catch(
        (error: unknown) => {
          throw new DeskError(
            'report_not_saved',
            `The report could not be saved at ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}). Choose another folder.`,
          );
        },
      );
      return path;
    },
  };

  const service: DeskService = {
    handlers,
    async start() {
      // Track every request at its own service, whatever connection is active.
      await sessions.trackEverything(store.list());
      if (await activeName().catch(() => undefined)) {
        // Batches sent before connections were bound are tracked by the active connection.
        await sessions.active().catch((error: unknown) => {
          logger.log('warn', 'start.no_connection', {
            reason: error instanceof DeskError ? error.code : 'unknown',
          });
        });
      }
      // Finish what an earlier run left half sent, each batch with its own connection.
      for (const batch of store.list()) {
        const unfinished = batch.documents.some((document) => classOf(document) === 'sending');
        if (!unfinished || !batch.connection) continue;
        const current = await sessions.forBatch(batch).catch(() => undefined);
        if (current) runSend(batch.id, current);
      }
      for (const batch of store.list()) if (sessions.problemOf(batch.id)) announce(batch.id);
    },
    trayCounts() {
      const today = new Date().toDateString();
      // "Today" is the user's local day, not UTC's.
      const isToday = (iso: string | undefined) =>
        iso !== undefined && new Date(iso).toDateString() === today;
      let sending = 0;
      let waiting = 0;
      let completedToday = 0;
      for (const batch of store.list()) {
        for (const document of batch.documents) {
          const group = classOf(document);
          if (group === 'completed' && isToday(document.tracking?.finalizedAt)) completedToday += 1;
          else if (group === 'waiting') waiting += 1;
          else if (group === 'sending') sending += 1;
        }
      }
      return { sending, waiting, completedToday };
    },
    trackingPaused: () => trackingPaused,
    setTrackingPaused(paused) {
      trackingPaused = paused;
      sessions.setTrackingPaused(paused);
      deps.emit('tracking.paused', { paused });
    },
    async close() {
      for (const unsubscribe of unsubscribers) unsubscribe();
      await sessions.close();
    },
  };
  return service;
}
