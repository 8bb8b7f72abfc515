/**
 * What a send engine is given, the defaults it assumes, and what its parts share: the options,
 * and what the engine made of them (its logger, clock, contract guard and listeners). The step
 * machine's context for a batch is made here from them.
 */
import type { Clock } from '../time/clock';
import type { Logger } from '../base/log';
import type { StepContext } from '../domain/step-machine';
import type { BlobStore } from '../store/blob-store';
import type { BatchStore } from '../store/batch-store';
import type { ServiceClient } from '../client/service-client';
import { batchOf } from './batch-reads';
import type { ContractGuard } from './contract-guard';
import type { SendEvents } from './send-events';

export interface SendEngineOptions {
  readonly store: BatchStore;
  readonly blobs: BlobStore;
  readonly client: ServiceClient;
  /** Service calls in flight at once (default 4); up to twice as many documents are in progress. */
  readonly concurrency?: number;
  readonly logger?: Logger;
  /** The clock of every wait and every recorded time (default: the system's). */
  readonly clock?: Clock;
  readonly random?: () => number;
  /** How long the queue waits when the service is unreachable or busy: first and longest wait. */
  readonly waitMs?: { readonly first: number; readonly longest: number };
  /** An upload this close to its expiry is uploaded again rather than used (default 10 min). */
  readonly uploadExpiryMarginMs?: number;
  /** First wait before uploading again after the service said an upload was gone (default 2 s, doubling). */
  readonly reuploadBackoffMs?: number;
  /** How long after a creation answered without an id its key is replayed (default 2 s). */
  readonly replayForIdMs?: number;
  /** A call with no answer for this long (ms) makes the batch "slow to answer" (default SLOW_CALL_MS). */
  readonly slowAfterMs?: number;
  /**
   * How long the service is assumed to keep an Idempotency-Key (the connection's setting;
   * default DEFAULT_KEY_RETENTION_MS): within it, a new request after an attempt of unknown
   * outcome proves that attempt created nothing, and the user is not asked.
   */
  readonly keyRetentionMs?: number;
  /**
   * How long a pause or a quit lets calls already on their way finish before abandoning them
   * (default DRAIN_MS); no new call leaves meanwhile.
   */
  readonly drainMs?: number;
}

/** The key retention assumed when the connection does not state one: the shortest of the services the app is tested with. */
export const DEFAULT_KEY_RETENTION_MS = 3_600_000;
/** How long calls on their way may finish after a pause or a quit. */
export const DRAIN_MS = 10_000;

/** What the engine's parts share: its options, and what the engine made of them. */
export interface SendParts {
  readonly options: SendEngineOptions;
  readonly logger: Logger;
  readonly clock: Clock;
  /** What the data folder holds for each reference, for this engine's connection. */
  readonly guard: ContractGuard;
  readonly events: SendEvents;
}

/** The step machine's context for the batch, now. */
export function stepContextOf(parts: SendParts, batchId: string): StepContext {
  const { options, guard } = parts;
  const { defaults } = batchOf(options.store, batchId);
  return {
    now: parts.clock.now(),
    defaults,
    keyFor: (document) => guard.keyFor(document),
    holdersOf: (document) => guard.holdersOf(batchId, document),
    nextGeneration: (document) => guard.nextGeneration(batchId, document),
    keyRetentionMs: options.keyRetentionMs ?? DEFAULT_KEY_RETENTION_MS,
    uploadExpiryMarginMs: options.uploadExpiryMarginMs ?? 10 * 60_000,
    reuploadBackoffMs: options.reuploadBackoffMs ?? 2_000,
    ...(options.replayForIdMs === undefined ? {} : { replayForIdMs: options.replayForIdMs }),
  };
}
