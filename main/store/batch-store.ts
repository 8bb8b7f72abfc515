import { randomUUID } from 'node:crypto';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BatchDefaults } from '../../shared/domain/batch';
import type { BatchEvent } from '../batch/batch-events';
import { applyBatchEvent, emptyBatch, type BatchState } from '../batch/batch-state';
import { JournalWriter, loadJournal, type JournalDamage } from './journal';

/** Journal entries after which a batch is folded into a fresh snapshot. */
const COMPACT_AFTER_ENTRIES = 2_000;

interface OpenBatch {
  state: BatchState;
  readonly writer: JournalWriter<BatchState, BatchEvent> | undefined;
  /** Records of one batch run one after another, so state, journal and snapshot always agree. */
  queue: Promise<unknown>;
}

/** A batch that could not be loaded, kept aside and reported: never silently dropped. */
export interface DamagedBatch {
  readonly batchId: string;
  readonly damage: JournalDamage;
}

export interface StoreLoadReport {
  readonly damaged: readonly DamagedBatch[];
  /** Half-written last lines left by a crash, set aside while loading. */
  readonly recovered: readonly (JournalDamage & { readonly batchId: string })[];
}

export type BatchListener = (state: BatchState, events: readonly BatchEvent[]) => void;

/**
 * Every batch of a data folder, each in its own journal folder. `record` makes events durable
 * (fsync) before it resolves and before listeners hear of them, so callers may act on them.
 */
export class BatchStore {
  readonly #root: string;
  readonly #batches = new Map<string, OpenBatch>();
  readonly #listeners = new Set<BatchListener>();
  #report: StoreLoadReport = { damaged: [], recovered: [] };

  readonly #readOnly: boolean;

  private constructor(dataDir: string, readOnly: boolean) {
    this.#root = join(dataDir, 'batches');
    this.#readOnly = readOnly;
  }

  /**
   * Opens the store of `dataDir`, loading every batch and reporting any damage found. A
   * read-only store (for `status` while another process sends) never writes or repairs a file.
   */
  static async open(dataDir: string, options: { readOnly?: boolean } = {}): Promise<BatchStore> {
    const store = new BatchStore(dataDir, options.readOnly === true);
    await store.#loadAll();
    return store;
  }

  async #loadAll(): Promise<void> {
    // A read-only store never creates anything: a folder that does not exist holds no batch.
    if (!this.#readOnly) await mkdir(this.#root, { recursive: true, mode: 0o700 });
    const damaged: DamagedBatch[] = [];
    const recovered: (JournalDamage & { batchId: string })[] = [];
    const entries = await readdir(this.#root, { withFileTypes: true }).catch(
      (error: NodeJS.ErrnoException) => {
        if (this.#readOnly && error.code === 'ENOENT') return [];
        throw error;
      },
    );
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const folder = join(this.#root, entry.name);
      const loaded = await loadJournal<BatchState, BatchEvent>(folder);
      if (!loaded.ok) {
        damaged.push({ batchId: entry.name, damage: loaded.damage });
        continue;
      }
      const { journal } = loaded;
      const state = journal.entries.reduce(
        applyBatchEvent,
        journal.snapshot?.state ?? emptyBatch(entry.name),
      );
      if (state.createdAt === '') continue; // A batch whose creation never became durable.
      recovered.push(...journal.recovered.map((damage) => ({ ...damage, batchId: entry.name })));
      const writer = this.#readOnly ? undefined : await JournalWriter.open(folder, journal);
      this.#batches.set(entry.name, { state, writer, queue: Promise.resolve() });
    }
    this.#report = { damaged, recovered };
  }

  /** What loading found: damaged batches (not loaded) and recovered torn writes. */
  get loadReport(): StoreLoadReport {
    return this.#report;
  }

  /** Every loaded batch, oldest first. */
  list(): BatchState[] {
    return [...this.#batches.values()]
      .map((batch) => batch.state)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  get(batchId: string): BatchState | undefined {
    return this.#batches.get(batchId)?.state;
  }

  /** Creates an empty batch durably. */
  async create(name: string, defaults: BatchDefaults, source?: string): Promise<BatchState> {
    if (this.#readOnly) throw new Error('the store is read-only');
    const batchId = randomUUID();
    const writer = await JournalWriter.open<BatchState, BatchEvent>(join(this.#root, batchId), undefined);
    this.#batches.set(batchId, { state: emptyBatch(batchId), writer, queue: Promise.resolve() });
    return this.record(batchId, [
      { type: 'batch_created', batchId, name, defaults, ...(source ? { source } : {}) },
    ]);
  }

  /** Stores events durably, applies them, tells listeners, and returns the new state. */
  record(batchId: string, events: readonly BatchEvent[]): Promise<BatchState> {
    const batch = this.#batches.get(batchId);
    const writer = batch?.writer;
    if (!batch || !writer) return Promise.reject(new Error(`batch ${batchId} is unknown or read-only`));
    const recorded = batch.queue.then(async () => {
      const entries = await writer.append(events);
      batch.state = entries.reduce(applyBatchEvent, batch.state);
      if (writer.entriesSinceSnapshot >= COMPACT_AFTER_ENTRIES) await writer.compact(batch.state);
      for (const listener of this.#listeners) listener(batch.state, events);
      return batch.state;
    });
    batch.queue = recorded.catch(() => undefined);
    return recorded;
  }

  /** Deletes a batch and its journal. PDF copies stay in the blob store (shared by content). */
  async delete(batchId: string): Promise<void> {
    const batch = this.#batches.get(batchId);
    if (!batch) return;
    this.#batches.delete(batchId);
    await batch.queue;
    await batch.writer?.destroy();
  }

  /** Calls `listener` after every recorded change; returns the unsubscribe function. */
  subscribe(listener: BatchListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Flushes and closes every journal. */
  async close(): Promise<void> {
    await Promise.all([...this.#batches.values()].map((batch) => batch.writer?.close()));
  }
}
