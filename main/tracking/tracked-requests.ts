import type { TrackedStatus } from '../../shared/domain/batch';
import type { BatchState, DocumentState } from '../domain/batch-state';
import { needsTracking } from '../domain/document-class';
import type { BatchStore } from '../store/batch-store';

/** One request the poller reads. */
export interface Tracked {
  /** `batchId/documentId`: the key of its schedule. */
  readonly key: string;
  readonly batchId: string;
  readonly documentId: string;
  readonly requestId: string;
  readonly externalReference: string;
  readonly since: number;
  readonly last: TrackedStatus | undefined;
}

/**
 * When a tracked request was prepared, for its age: when the app prepared it, or linked it as
 * prepared, else the service's own time, else the document's last change.
 */
function preparedSince(document: DocumentState): number {
  const { send, tracking } = document;
  for (const at of [send.prepared?.at, send.linkedPreparedAt, tracking?.preparedAt, document.updatedAt]) {
    const time = at === undefined ? Number.NaN : Date.parse(at);
    if (Number.isFinite(time)) return time;
  }
  return 0;
}

/** The request of one document that the poller reads, or undefined when it reads none. */
function trackedOf(batchId: string, document: DocumentState): Tracked | undefined {
  // needsTracking implies a request id; it is checked again only to narrow the type.
  if (!needsTracking(document) || !document.send.requestId) return undefined;
  return {
    key: `${batchId}/${document.draft.id}`,
    batchId,
    documentId: document.draft.id,
    requestId: document.send.requestId,
    externalReference: document.draft.externalReference,
    since: preparedSince(document),
    last: document.tracking,
  };
}

/**
 * The requests the poller reads, taken from the store: every prepared request that is not final,
 * in the batches the poller tracks. A batch at rest (main/domain/batch-rest.ts) has none, and
 * the store keeps it out of memory; every other batch is in memory, so this index holds the
 * tracked requests of the whole data folder.
 */
export class TrackedRequests {
  readonly #store: BatchStore;
  readonly #tracks: ((batch: BatchState) => boolean) | undefined;
  readonly #taken: (tracked: Tracked) => void;
  /** The state of each batch the tracked requests were last taken from, and their keys. */
  readonly #byBatch = new Map<string, { state: BatchState; readonly keys: Set<string> }>();
  /** Every tracked request by its key. */
  readonly #byKey = new Map<string, Tracked>();

  /** `taken` hears each request taken (again) from a batch that changed, to schedule it. */
  constructor(
    store: BatchStore,
    tracks: ((batch: BatchState) => boolean) | undefined,
    taken: (tracked: Tracked) => void,
  ) {
    this.#store = store;
    this.#tracks = tracks;
    this.#taken = taken;
  }

  get(key: string): Tracked | undefined {
    return this.#byKey.get(key);
  }

  has(key: string): boolean {
    return this.#byKey.has(key);
  }

  values(): IterableIterator<Tracked> {
    return this.#byKey.values();
  }

  /**
   * Brings the tracked requests up to date with the store. States are immutable: only batches
   * whose state changed are looked at again, and in them only the documents that changed (a
   * status read changes one document of a batch of 1,000).
   */
  refresh(): void {
    const tracks = this.#tracks;
    // The batches in memory: every one with a request to track is (a batch at rest has none).
    const batches = this.#store.loaded();
    let present = 0;
    for (const batch of batches) {
      if (tracks && !tracks(batch)) continue;
      present += 1;
      let cached = this.#byBatch.get(batch.id);
      if (cached?.state === batch) continue;
      const previous = cached?.state.documents;
      // Only the same documents at the same places may be compared one by one: a draft removed
      // and another added keeps the length but shifts the others (an attack found a waiting
      // request dropped that way, never read again).
      const sameShape =
        previous?.length === batch.documents.length &&
        batch.documents.every((document, index) => previous[index]?.draft.id === document.draft.id);
      if (!cached || !sameShape) {
        for (const key of cached?.keys ?? []) this.#byKey.delete(key);
        cached = { state: batch, keys: new Set() };
        this.#byBatch.set(batch.id, cached);
      }
      cached.state = batch;
      batch.documents.forEach((document, index) => {
        const before = sameShape ? previous?.[index] : undefined;
        if (document === before) return;
        const tracked = trackedOf(batch.id, document);
        if (!tracked) {
          this.#untrack(cached, `${batch.id}/${document.draft.id}`);
          return;
        }
        cached.keys.add(tracked.key);
        this.#byKey.set(tracked.key, tracked);
        this.#taken(tracked);
      });
    }
    if (this.#byBatch.size > present) {
      const kept = new Set(batches.filter((batch) => !tracks || tracks(batch)).map((batch) => batch.id));
      for (const [batchId, cached] of this.#byBatch) {
        if (kept.has(batchId)) continue;
        for (const key of cached.keys) this.#byKey.delete(key);
        this.#byBatch.delete(batchId);
      }
    }
  }

  #untrack(cached: { readonly keys: Set<string> }, key: string): void {
    cached.keys.delete(key);
    this.#byKey.delete(key);
  }
}
