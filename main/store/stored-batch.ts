/**
 * One batch as the store holds it: in memory, or at rest as what is kept of it
 * (main/domain/batch-rest.ts), and the rule that puts batches at rest out of memory.
 */
import type { BatchEvent } from '../domain/batch-events';
import type { BatchState } from '../domain/batch-state';
import { outlineOf, type BatchOutline } from '../domain/batch-outline';
import { restingOf, type RestingBatch } from '../domain/batch-rest';
import { contractDigestOf, type ContractDigest } from '../domain/contract-digest';
import type { DeletedContract } from './deleted-contracts';
import type { JournalWriter } from './journal';

/**
 * A batch of the store: in memory (`state`), or at rest out of memory (`resting`), exactly one
 * of the two. A read-only store keeps every batch in memory.
 */
export interface StoredBatch {
  state: BatchState | undefined;
  resting: RestingBatch | undefined;
  readonly writer: JournalWriter<BatchState, BatchEvent> | undefined;
  /** Records of one batch are applied one after another, in the order they were appended. */
  queue: Promise<unknown>;
  /** Work queued on it and not settled yet: a batch never goes to rest under it. */
  pending: number;
  /** Callers that need it in memory for a while (a send run; a record waiting for it to be read). */
  retained: number;
  /** Its last use, counted in uses of the store (0: never used since the store opened). */
  used: number;
  /**
   * Whether its state was finished (main/domain/batch-rest.ts) when last looked at: after
   * loading, and after records that may change it. A finished batch's journal is folded.
   */
  finished: boolean;
  /** Its reading back from disk, shared by every caller that opens it meanwhile. */
  opening: Promise<BatchState> | undefined;
  /** Its folder holds a rest file that describes it as it is (rest-file.ts). */
  restFile: boolean;
  /**
   * The sequence number of the last journal entry its state reflects. An entry may be stored
   * (fsynced, the writer's `lastSeq`) before it is applied in the batch's turn: a snapshot only
   * ever covers entries applied, so that no acknowledged entry is folded away unapplied.
   */
  applied: number;
}

/** A batch of the store, unused yet, in memory (`state`) or at rest (`resting`). */
export function storedBatch(
  held: { readonly state: BatchState; readonly resting?: undefined } | { readonly resting: RestingBatch },
  writer: StoredBatch['writer'],
  finished: boolean,
): StoredBatch {
  return {
    state: 'state' in held ? held.state : undefined,
    resting: held.resting,
    writer,
    queue: Promise.resolve(),
    pending: 0,
    retained: 0,
    used: 0,
    finished,
    opening: undefined,
    restFile: false,
    // Opened just now: its writer continues after what was loaded, which its state reflects.
    applied: writer?.lastSeq ?? 0,
  };
}

function restingOrThrow(batch: StoredBatch): RestingBatch {
  if (!batch.resting) throw new Error('a stored batch is neither in memory nor at rest');
  return batch.resting;
}

export function outlineOfStored(batch: StoredBatch): BatchOutline {
  return batch.state ? outlineOf(batch.state) : restingOrThrow(batch).outline;
}

/** Every document's contract digest, from the documents in memory or from what is kept at rest. */
export function contractsOfStored(batch: StoredBatch): readonly ContractDigest[] {
  return batch.state ? batch.state.documents.map(contractDigestOf) : restingOrThrow(batch).contracts;
}

export function contractOfStored(batch: StoredBatch, documentId: string): ContractDigest | undefined {
  if (batch.state) {
    const document = batch.state.documents.find((candidate) => candidate.draft.id === documentId);
    return document && contractDigestOf(document);
  }
  return restingOrThrow(batch).contracts.find((contract) => contract.documentId === documentId);
}

/** The contracts of a batch being deleted that its service holds, or may hold, a request for. */
export function contractsToRemember(
  batchId: string,
  batch: StoredBatch,
): Omit<DeletedContract, 'deletedAt'>[] {
  const outline = outlineOfStored(batch);
  return contractsOfStored(batch)
    .filter((contract) => contract.mayHold)
    .map((contract) => ({
      batchId,
      batchName: outline.name,
      connection: outline.connection,
      documentId: contract.documentId,
      reference: contract.reference,
      sha256: contract.sha256,
      fileName: contract.fileName,
      requestId: contract.requestId ?? contract.newRequestId,
    }));
}

/**
 * Puts out of memory the batches at rest (finished and bound: main/domain/batch-rest.ts) that are folded (their snapshot says all of them),
 * idle and not retained, except the `kept` used most recently; a batch never used since the
 * store opened is not kept.
 */
export function putToRest(batches: Iterable<StoredBatch>, kept: number): void {
  const idle = [...batches].filter(
    (batch) =>
      batch.state !== undefined &&
      batch.finished &&
      batch.state.connection !== undefined &&
      batch.pending === 0 &&
      batch.retained === 0 &&
      batch.writer?.entriesSinceSnapshot === 0,
  );
  idle.sort((a, b) => b.used - a.used);
  idle.forEach((batch, index) => {
    if (!batch.state || (batch.used > 0 && index < kept)) return;
    batch.resting = restingOf(batch.state);
    batch.state = undefined;
  });
}
