/**
 * What a batch is without its documents: its name, dates, connection, how many documents are in
 * each group, and when its finished requests finished. The batch list, its rows' counts and the
 * tray read outlines only, so a batch at rest (main/domain/batch-rest.ts) answers them without
 * being read from its journal.
 */
import { countByClass } from '../../shared/domain/document-counts';
import type { Counts } from '../../shared/ipc/views';
import type { BatchState } from './batch-state';
import { classOf } from './document-class';

export interface BatchOutline {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly source: string | undefined;
  readonly connection: BatchState['connection'];
  readonly documentCount: number;
  readonly counts: Counts;
  /**
   * When each completed request finished (its `finalizedAt`), and when the app first read that
   * each ended one had ended (its `readAt`), in epoch ms (NaN when unknown): the tray counts
   * those of today.
   */
  readonly completedAt: Float64Array;
  readonly endedAt: Float64Array;
}

/** How many documents of a batch are in each group: the one count (shared/domain/document-counts.ts) of main's classification. */
export function countsOf(batch: BatchState): Counts {
  return countByClass(batch.documents, classOf);
}

/** Epoch ms of an ISO 8601 time, NaN when absent or unreadable (never "today"). */
function timeOf(iso: string | undefined): number {
  return iso === undefined ? Number.NaN : Date.parse(iso);
}

/** Outlines of states already outlined: states never change in place, so one outline serves each. */
const outlines = new WeakMap<BatchState, BatchOutline>();

/** The outline of `batch`. */
export function outlineOf(batch: BatchState): BatchOutline {
  const known = outlines.get(batch);
  if (known) return known;
  const completedAt: number[] = [];
  const endedAt: number[] = [];
  for (const document of batch.documents) {
    const documentClass = classOf(document);
    if (documentClass === 'completed') completedAt.push(timeOf(document.tracking?.finalizedAt));
    // When the app first read that it ended: a service need not say when it ended.
    else if (documentClass === 'ended') endedAt.push(timeOf(document.tracking?.readAt));
  }
  const outline: BatchOutline = {
    id: batch.id,
    name: batch.name,
    createdAt: batch.createdAt,
    updatedAt: batch.updatedAt,
    source: batch.source,
    connection: batch.connection,
    documentCount: batch.documents.length,
    counts: countsOf(batch),
    completedAt: Float64Array.from(completedAt),
    endedAt: Float64Array.from(endedAt),
  };
  outlines.set(batch, outline);
  return outline;
}
