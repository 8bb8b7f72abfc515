import { err, ok, type Result } from '../../shared/base/result';
import type { RetryPolicy } from '../client/backoff';
import { ServiceClient } from '../client/service-client';
import type { OperationName } from '../domain/service-failure';
import { silentLogger, type Logger } from '../base/log';
import type { Connection } from '../credentials/connection';
import { batchBelongsTo } from '../domain/batch-connection';
import { SendEngine } from '../engine/send-engine';
import { BlobStore } from '../store/blob-store';
import { BatchStore } from '../store/batch-store';
import { nodeFileSystem, type FileSystem } from '../store/file-system';
import { describeLockHolder, lockDataDir } from '../store/data-dir-lock';
import { loadServiceHolds, saveServiceHold } from '../store/service-holds';
import { StatusPoller } from '../tracking/status-poller';
import { systemClock, type Clock } from '../time/clock';
import { words } from '../base/words';

/** Tuning for tests and benchmarks; the defaults suit production. */
export interface ConnectionTuning {
  readonly concurrency?: number;
  readonly logger?: Logger;
  readonly retry?: Partial<RetryPolicy>;
  readonly engineWaitMs?: { readonly first: number; readonly longest: number };
  /** First wait before a fresh upload after the service said an upload was gone (default 2 s). */
  readonly reuploadBackoffMs?: number;
  /** The one clock of the client, engine and poller (default: the system's; tests pass a virtual one). */
  readonly clock?: Clock;
  readonly readsPerMinute?: number;
  /** How long a pause or a quit lets calls on their way finish (default DRAIN_MS). */
  readonly drainMs?: number;
  /** How long after a creation answered without an id its key is replayed (default 2 s). */
  readonly replayForIdMs?: number;
  /** How long the service has to answer a call, and an upload's bytes may stand still (ms; ServiceClientOptions). */
  readonly callTimeoutMs?: number;
  readonly uploadStallMs?: number;
  readonly uploadTakenAtOnceBytes?: number;
}

export interface DeskOptions extends ConnectionTuning, DataDirOptions {
  readonly dataDir: string;
  readonly connection: Connection;
}

/** A data folder opened by this process: its batches and its PDF copies. Works offline. */
export interface DataDir {
  readonly path: string;
  readonly store: BatchStore;
  readonly blobs: BlobStore;
  close(): Promise<void>;
}

/** What needs the service: the client, the send engine and the status poller of one connection. */
export interface Connected {
  readonly connection: Connection;
  readonly client: ServiceClient;
  readonly engine: SendEngine;
  readonly poller: StatusPoller;
  close(): Promise<void>;
}

/** The core of the app for one data folder and one connection: store, engine, poller. */
export interface Desk extends Omit<DataDir, 'close' | 'path'>, Omit<Connected, 'close' | 'connection'> {
  close(): Promise<void>;
}

/** What was opened, or why not, in words. */
export type Opening<T> = Result<T, string>;
export type DeskOpening = Opening<Desk>;

/** How a data folder is opened; the defaults suit production. */
export interface DataDirOptions {
  /**
   * The file system holding the folder: the real disk unless a test passes its power-cut
   * double. A double lives in this process's memory, where no other process can reach it and
   * no kernel lock can be taken, so the folder's lock is only taken on the real disk.
   */
  readonly fs?: FileSystem;
  /** The clock the journal stamps its entries with (tests pass their virtual one); this computer's by default. */
  readonly clock?: Clock;
}

/**
 * Opens a data folder: takes its lock (one process at a time) and loads every batch. Nothing
 * here touches the network, so batches can be prepared offline.
 */
export async function openDataDir(path: string, options: DataDirOptions = {}): Promise<Opening<DataDir>> {
  const fs = options.fs ?? nodeFileSystem;
  const lock = fs === nodeFileSystem ? await lockDataDir(path) : ok({ release: () => Promise.resolve() });
  if (!lock.ok) {
    // In the language of the call (the app's start), English on the command line.
    const t = words();
    return err(
      lock.error
        ? t('shell.dataDirInUseBy', { path, holder: describeLockHolder(lock.error, t) })
        : t('shell.dataDirInUse', { path }),
    );
  }
  const clock = options.clock;
  const store = await BatchStore.open(path, { fs, ...(clock ? { now: () => clock.now() } : {}) });
  const blobs = new BlobStore(path, { fs });
  await blobs.removeUnfinishedCopies();
  return ok({
    path,
    store,
    blobs,
    async close() {
      await store.close();
      await lock.value.release();
    },
  });
}

/** Wires the service client, send engine and status poller of `connection` to an open data folder. */
export function connect(dataDir: DataDir, connection: Connection, tuning: ConnectionTuning = {}): Connected {
  const logger = tuning.logger ?? silentLogger;
  const { store, blobs } = dataDir;
  // Retry-After holds outlive this process in the data folder, when it is on this computer's
  // disk: openDesk passes a test's in-memory double (`fs`) along, and no next process reads that.
  const holdsOnDisk = ((tuning as DataDirOptions).fs ?? nodeFileSystem) === nodeFileSystem;
  const clock = tuning.clock ?? systemClock;
  const holdsOptions = { now: () => clock.now(), logger };
  let holdsSaved: Promise<void> = Promise.resolve();
  const client = new ServiceClient({
    baseUrl: connection.baseUrl,
    clientId: connection.clientId,
    clientSecret: connection.clientSecret,
    logger,
    ...(tuning.retry ? { retry: tuning.retry } : {}),
    clock,
    ...(tuning.callTimeoutMs === undefined ? {} : { callTimeoutMs: tuning.callTimeoutMs }),
    ...(tuning.uploadStallMs === undefined ? {} : { uploadStallMs: tuning.uploadStallMs }),
    ...(tuning.uploadTakenAtOnceBytes === undefined
      ? {}
      : { uploadTakenAtOnceBytes: tuning.uploadTakenAtOnceBytes }),
    ...(holdsOnDisk
      ? {
          initialHolds: loadServiceHolds(dataDir.path, connection, holdsOptions),
          onHold: (operation: OperationName, untilEpochMs: number) => {
            // Saves of one file run in order, so the last one settles after every earlier one.
            holdsSaved = saveServiceHold(dataDir.path, connection, operation, untilEpochMs, holdsOptions);
          },
        }
      : {}),
  });
  const engine = new SendEngine({
    store,
    blobs,
    client,
    logger,
    ...(tuning.concurrency ? { concurrency: tuning.concurrency } : {}),
    ...(tuning.engineWaitMs ? { waitMs: tuning.engineWaitMs } : {}),
    ...(tuning.reuploadBackoffMs === undefined ? {} : { reuploadBackoffMs: tuning.reuploadBackoffMs }),
    clock,
    ...(connection.keyRetentionHours === undefined
      ? {}
      : { keyRetentionMs: connection.keyRetentionHours * 3_600_000 }),
    ...(tuning.drainMs === undefined ? {} : { drainMs: tuning.drainMs }),
    ...(tuning.replayForIdMs === undefined ? {} : { replayForIdMs: tuning.replayForIdMs }),
  });
  const poller = new StatusPoller({
    store,
    client,
    logger,
    // Each batch is read only at the service it was sent to.
    tracks: (batch) => batchBelongsTo(batch, connection),
    ...(tuning.readsPerMinute ? { readsPerMinute: tuning.readsPerMinute } : {}),
    clock,
  });
  const unsubscribe = store.subscribe(() => poller.notifyChanged());
  return {
    connection,
    client,
    engine,
    poller,
    async close() {
      unsubscribe();
      poller.stop();
      // Every run ends (its facts stored) before the client goes: another connection may resume.
      await engine.close();
      await client.close();
      await holdsSaved;
    },
  };
}

/**
 * Opens a data folder for sending and tracking with one connection (the command line's
 * shape): the data folder, then the client, engine and poller. Nothing is sent until asked.
 */
export async function openDesk(options: DeskOptions): Promise<DeskOpening> {
  const opened = await openDataDir(options.dataDir, options);
  if (!opened.ok) return opened;
  const dataDir = opened.value;
  const connected = connect(dataDir, options.connection, options);
  return ok({
    store: dataDir.store,
    blobs: dataDir.blobs,
    client: connected.client,
    engine: connected.engine,
    poller: connected.poller,
    async close() {
      await connected.close();
      await dataDir.close();
    },
  });
}
