/**
 * A batch at rest: nothing will write to it unless the person acts. Every document is signed,
 * ended at its service, gone or failed, so nothing is left to send or to track, and the batch
 * is bound to its connection. The data folder keeps such a batch as its outline and its
 * documents' contract digests (`RestingBatch`) once its journal is folded, and reads it back
 * from its snapshot when someone opens it: a year of finished batches costs the memory of their
 * outlines, not of their documents.
 */
import type { BatchEvent } from './batch-events';
import type { BatchState } from './batch-state';
import { outlineOf, type BatchOutline } from './batch-outline';
import { contractDigestOf, type ContractDigest } from './contract-digest';
import { classOf } from './document-class';

/** What is kept of a batch at rest while it is not in memory. */
export interface RestingBatch {
  readonly outline: BatchOutline;
  /** One per document, in the batch's order. */
  readonly contracts: readonly ContractDigest[];
}

/**
 * True when every document of `state` is signed, ended at its service, gone or failed: nothing
 * will write to it unless the person acts, and its journal is folded into its snapshot.
 */
export function isFinished(state: BatchState): boolean {
  return (
    state.documents.length > 0 &&
    state.documents.every((document) => {
      const documentClass = classOf(document);
      return (
        documentClass === 'completed' ||
        documentClass === 'ended' ||
        documentClass === 'gone' ||
        documentClass === 'failed'
      );
    })
  );
}

/**
 * True when `state` is at rest (see above): finished, and bound to its connection. A batch never
 * bound stays in memory: an earlier version's batch is adopted by its connection from its
 * documents (main/engine/older-batch.ts), and one never sent has drafts.
 */
export function isAtRest(state: BatchState): boolean {
  return state.connection !== undefined && isFinished(state);
}

/**
 * Events after which a batch that was not finished may be (its last document signed, ended, gone
 * or failed, or the last one still to send removed). Others cannot finish a batch: a batch is
 * checked again only after these, so a status read costs no pass over its documents.
 */
export function mayBringToRest(events: readonly BatchEvent[]): boolean {
  return events.some(
    (event) =>
      (event.type === 'status_read' && event.status.final) ||
      event.type === 'request_gone' ||
      event.type === 'item_failed' ||
      event.type === 'document_removed',
  );
}

/** What is kept of `state` at rest. */
export function restingOf(state: BatchState): RestingBatch {
  return { outline: outlineOf(state), contracts: state.documents.map(contractDigestOf) };
}
