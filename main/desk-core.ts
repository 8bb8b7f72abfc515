import type { RetryPolicy } from './client/backoff';
import { ServiceClient } from './client/service-client';
import { silentLogger, type Logger } from './log';
import type { Secret } from './secret';
import { SendEngine } from './batch/send-engine';
import { BlobStore } from './store/blob-store';
import { BatchStore } from './store/batch-store';
import { lockDataDir } from './store/data-dir-lock';
import { StatusPoller } from './tracking/status-poller';

export interface Connection {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: Secret;
}

export interface DeskOptions {
  readonly dataDir: string;
  readonly connection: Connection;
  readonly concurrency?: number;
  readonly logger?: Logger;
  readonly retry?: Partial<RetryPolicy>;
  readonly engineWaitMs?: { readonly first: number; readonly longest: number };
  readonly readsPerMinute?: number;
}

/** The core of the app for one data folder and one connection: store, engine, poller. */
export interface Desk {
  readonly store: BatchStore;
  readonly blobs: BlobStore;
  readonly client: ServiceClient;
  readonly engine: SendEngine;
  readonly poller: StatusPoller;
  close(): Promise<void>;
}

export type DeskOpening =
  { readonly ok: true; readonly desk: Desk } | { readonly ok: false; readonly message: string };

/**
 * Opens a data folder for sending and tracking: takes its lock (one process at a time), loads
 * every batch, and wires the service client, send engine and status poller. Nothing is sent
 * until a caller asks.
 */
export async function openDesk(options: DeskOptions): Promise<DeskOpening> {
  const lock = await lockDataDir(options.dataDir);
  if (!lock.ok) {
    return {
      ok: false,
      message: `The data folder ${options.dataDir} is in use by another process (pid ${lock.holderPid}). Close it or wait for it to finish.`,
    };
  }
  const logger = options.logger ?? silentLogger;
  const store = await BatchStore.open(options.dataDir);
  const blobs = new BlobStore(options.dataDir);
  const client = new ServiceClient({
    baseUrl: options.connection.baseUrl,
    clientId: options.connection.clientId,
    clientSecret: options.connection.clientSecret,
    logger,
    ...(options.retry ? { retry: options.retry } : {}),
  });
  const engine = new SendEngine({
    store,
    blobs,
    client,
    logger,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.engineWaitMs ? { waitMs: options.engineWaitMs } : {}),
  });
  const poller = new StatusPoller({
    store,
    client,
    logger,
    ...(options.readsPerMinute ? { readsPerMinute: options.readsPerMinute } : {}),
  });
  const unsubscribe = store.subscribe(() => poller.notifyChanged());
  return {
    ok: true,
    desk: {
      store,
      blobs,
      client,
      engine,
      poller,
      async close() {
        unsubscribe();
        poller.stop();
        await store.close();
        await client.close();
        await lock.release();
      },
    },
  };
}
