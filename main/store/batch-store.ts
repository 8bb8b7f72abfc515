import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { BatchDefaults } from '../../shared/domain/batch';
import type { BatchEvent } from '../domain/batch-events';
import type { ConnectionAddress } from '../domain/batch-connection';
import { applyBatchEvent, emptyBatch } from '../domain/apply-batch-event';
import type { BatchState } from '../domain/batch-state';
import type { BatchOutline } from '../domain/batch-outline';
import { isAtRest, isFinished, mayBringToRest, restingOf } from '../domain/batch-rest';
import type { ContractDigest } from '../domain/contract-digest';
import { writeRestFile } from './rest-file';
import {
  DELETED_SUFFIX,
  loadBatchFolder,
  readBatch,
  type DamagedBatch,
  type LoadedBatch,
  type StoreLoadReport,
} from './batch-reading';

export type { DamagedBatch, StoreLoadReport } from './batch-reading';
import { DeletedContracts, type DeletedContract } from './deleted-contracts';
import { makeDirectoryDurable } from './durable-fs';
import { errorCode, nodeFileSystem, type FileSystem } from './file-system';
import { shareRepeatedParts } from './shared-parts';
import { JournalWriter, type JournalDamage } from './journal';
import {
  contractOfStored,
  contractsOfStored,
  contractsToRemember,
  outlineOfStored,
  putToRest,
  storedBatch,
  type StoredBatch,
} from './stored-batch';

/** Journal entries after which a batch is folded into a fresh snapshot (by default). */
const COMPACT_AFTER_ENTRIES = 2_000;
/**
 * A journal at least this long when loaded is folded into a snapshot right after the store opened,
 * so the next start reads one snapshot instead of replaying it again (a batch still being tracked
 * collects status reads for weeks without ever reaching `COMPACT_AFTER_ENTRIES`).
 */
const FOLD_ON_LOAD_ENTRIES = 200;
/**
 * Batches read at once while opening: one's reads and fsyncs overlap with the parsing of the
 * other. More only holds more files' text at once (a year of batches: +50 MiB at 8, no faster).
 */
const LOAD_CONCURRENCY = 2;
/**
 * Batches at rest kept in memory after they were used (opened, changed): going back to the batch
 * just looked at reads nothing. The others rest as their outlines (main/domain/batch-rest.ts).
 */
const KEPT_AT_REST = 3;

export interface BatchStoreOptions {
  /** A read-only store (for `status` while another process sends) never writes or repairs a file. */
  readonly readOnly?: boolean;
  /** Journal entries after which a batch is folded into a fresh snapshot (default 2,000). */
  readonly compactAfterEntries?: number;
  /** Where the data folder lives: the real disk unless a test says otherwise. */
  readonly fs?: FileSystem;
  /** The clock entries are stamped with: this computer's, unless a test moves time. */
  readonly now?: () => number;
  /** Batches at rest kept in memory after their last use (default 3); the others are read again when opened. */
  readonly keptAtRest?: number;
}

export type BatchListener = (state: BatchState, events: readonly BatchEvent[]) => void;

/**
 * Batches in the order they were created; two created in the same millisecond by their id, so
 * every open of a folder lists them alike (not in the order the disk happens to give them).
 */
function byCreation(a: { createdAt: string; id: string }, b: { createdAt: string; id: string }): number {
  return a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
}

/**
 * Every batch of a data folder, each in its own journal folder. `record` makes events durable
 * (fsync) before it resolves and before listeners hear of them, so callers may act on them.
 *
 * A batch at rest (main/domain/batch-rest.ts: nothing to send or track) whose journal is folded
 * is not kept in memory: the store keeps its outline (for the batch list and the tray) and its
 * documents' contract digests (for the questions that keep a contract from being sent twice),
 * and reads it back from its snapshot when it is opened (`open`) or changed (`record`). The last
 * few used stay in memory. `get` and `loaded` answer only what is in memory: every batch that is
 * not at rest always is, so sending and tracking never wait for a read. A start takes a batch at
 * rest from its rest file (rest-file.ts): damage to its snapshot shows when it is opened, while
 * what it holds at its service stays known from the file.
 */
export class BatchStore {
  readonly #root: string;
  readonly #batches = new Map<string, StoredBatch>();
  /** Each batch's binding being decided, so that two are decided one after the other. */
  readonly #binding = new Map<string, Promise<ConnectionAddress>>();
  readonly #listeners = new Set<BatchListener>();
  #report: StoreLoadReport = { damaged: [], recovered: [] };
  /** The contracts of deleted batches the service holds or may hold requests for. */
  #deleted: DeletedContracts | undefined;
  /** Uses of batches so far: each use is numbered, the least recently used rests first. */
  #uses = 0;

  readonly #readOnly: boolean;
  readonly #compactAfterEntries: number;
  readonly #keptAtRest: number;
  readonly #fs: FileSystem;
  readonly #now: () => number;

  private constructor(dataDir: string, options: BatchStoreOptions) {
    this.#root = join(dataDir, 'batches');
    this.#fs = options.fs ?? nodeFileSystem;
    this.#readOnly = options.readOnly === true;
    this.#compactAfterEntries = options.compactAfterEntries ?? COMPACT_AFTER_ENTRIES;
    this.#keptAtRest = options.keptAtRest ?? KEPT_AT_REST;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Opens the store of `dataDir`, loading every batch and reporting any damage found. A
   * read-only store (for `status` while another process sends) never writes or repairs a file.
   */
  static async open(dataDir: string, options: BatchStoreOptions = {}): Promise<BatchStore> {
    const store = new BatchStore(dataDir, options);
    await store.#loadAll();
    await store.#openDeleted();
    return store;
  }

  /** Opens the record of deleted contracts; one that cannot be read is reported as damage (nothing is sent then). */
  async #openDeleted(): Promise<void> {
    const opened = await DeletedContracts.open(this.#root, this.#fs, {
      readOnly: this.#readOnly,
      now: this.#now,
    });
    if (opened.ok) this.#deleted = opened.value;
    else
      this.#report = {
        ...this.#report,
        damaged: [...this.#report.damaged, { batchId: 'deleted-contracts', damage: opened.error }],
      };
  }

  /**
   * The contracts of batches deleted from this data folder that their service holds, or may
   * hold, a request for: deleting a batch stops tracking it, it does not unsend it.
   */
  deletedContracts(): readonly DeletedContract[] {
    return this.#deleted?.list() ?? [];
  }

  /**
   * Reads every batch of `dataDir` one after another, read-only, handing each to `visit` and
   * keeping none: what a command that goes through every document once needs, in the memory of
   * one batch. Batches come in the folder's order (not by creation); answers what loading found.
   */
  static async readEach(
    dataDir: string,
    visit: (batch: BatchState) => void,
    options: Pick<BatchStoreOptions, 'fs'> = {},
  ): Promise<StoreLoadReport> {
    const store = new BatchStore(dataDir, { ...options, readOnly: true });
    await store.#loadAll(visit);
    return store.#report;
  }

  async #loadAll(visit?: (batch: BatchState) => void): Promise<void> {
    // A read-only store never creates anything: a folder that does not exist holds no batch.
    // The whole path: a process that died before syncing may have left any level unsynced.
    if (!this.#readOnly) await makeDirectoryDurable(this.#root, this.#fs, { mode: 0o700, wholePath: true });
    const damaged: DamagedBatch[] = [];
    const recovered: (JournalDamage & { batchId: string })[] = [];
    const entries = await this.#fs.readdir(this.#root).catch((error: unknown) => {
      if (this.#readOnly && errorCode(error) === 'ENOENT') return [];
      throw error;
    });
    // Each batch is read on its own; results are kept in the folder's order, so reports read the same.
    const loaded: (LoadedBatch | DamagedBatch | undefined)[] = Array.from({ length: entries.length });
    let next = 0;
    const loadNext = async (): Promise<void> => {
      for (let index = next++; index < entries.length; index = next++) {
        const entry = entries[index];
        if (!entry?.isDirectory()) continue;
        const batch = await loadBatchFolder(this.#root, entry.name, this.#fs, this.#readOnly);
        if (visit && batch && !('damage' in batch) && batch.stored?.state) {
          visit(batch.stored.state);
          loaded[index] = { batchId: batch.batchId, recovered: batch.recovered, replayed: 0 };
        } else loaded[index] = batch;
      }
    };
    await Promise.all(Array.from({ length: visit ? 1 : LOAD_CONCURRENCY }, loadNext));
    const toFold: string[] = [];
    for (const batch of loaded) {
      if (batch === undefined) continue;
      if ('damage' in batch) {
        damaged.push(batch);
        continue;
      }
      recovered.push(...batch.recovered.map((damage) => ({ ...damage, batchId: batch.batchId })));
      if (!batch.stored) continue; // Handed to `visit`, not kept.
      this.#batches.set(batch.batchId, batch.stored);
      const { writer, finished, restFile } = batch.stored;
      // A finished batch is folded, and given its rest file when it is at rest and has none.
      if (
        writer &&
        (batch.replayed >= FOLD_ON_LOAD_ENTRIES || (finished && (batch.replayed > 0 || !restFile)))
      )
        toFold.push(batch.batchId);
    }
    this.#report = { damaged, recovered };
    // After opening, not before: the batches are usable at once, the folds follow in each batch's
    // turn (and a batch at rest, once folded, rests).
    for (const batchId of toFold) this.#fold(batchId);
  }

  /**
   * Runs `work` in the batch's turn (after the work queued on it before), counting it as
   * pending meanwhile; once nothing is pending any more, batches at rest may go to rest.
   */
  #enqueue<T>(batch: StoredBatch, work: () => Promise<T>): Promise<T> {
    batch.pending += 1;
    const done = batch.queue.then(work);
    const settled = () => {
      batch.pending -= 1;
      if (batch.pending === 0) this.#rest();
    };
    batch.queue = done.then(settled, settled);
    return done;
  }

  /** The batch's state, in memory while work is pending on it (it never rests then). */
  #stateOf(batch: StoredBatch): BatchState {
    if (!batch.state) throw new Error('a batch at rest was used without being read');
    return batch.state;
  }

  /**
   * Folds a batch's journal into a fresh snapshot in the batch's turn (after the records before
   * it). A failed fold loses nothing: the journal keeps every entry, and is replayed next time.
   */
  #fold(batchId: string): void {
    const batch = this.#batches.get(batchId);
    const writer = batch?.writer;
    if (!batch || !writer) return;
    void this.#enqueue(batch, async () => {
      if (writer.entriesSinceSnapshot > 0) {
        // Up to the last entry applied: one stored meanwhile and still to be applied makes the
        // writer refuse (it is folded after its own record).
        const folded = await writer.compact(this.#stateOf(batch), batch.applied).catch(() => false);
        if (!folded) return;
      }
      await this.#writeRest(batchId, batch);
    }).catch(() => undefined);
  }

  /**
   * Writes the rest file of a batch at rest folded into its snapshot (rest-file.ts), unless it
   * has one. A failure costs nothing but a full read of the batch at the next start.
   */
  async #writeRest(batchId: string, batch: StoredBatch): Promise<void> {
    const { writer, state } = batch;
    if (!writer || batch.restFile || writer.entriesSinceSnapshot !== 0) return;
    if (state && batch.applied !== writer.lastSeq) return; // An entry is still to be applied.
    const resting = batch.resting ?? (state && isAtRest(state) ? restingOf(state) : undefined);
    if (!resting) return;
    const seq = writer.lastSeq;
    const written = await writeRestFile(join(this.#root, batchId), this.#fs, resting, seq).catch(() => false);
    // A record stored meanwhile leaves it behind: it is written again after the next fold.
    batch.restFile = written && writer.lastSeq === seq;
  }

  /** Batches at rest leave memory, but the few used last (stored-batch.ts `putToRest`). */
  #rest(): void {
    putToRest(this.#batches.values(), this.#keptAtRest);
  }

  #touch(batch: StoredBatch): void {
    this.#uses += 1;
    batch.used = this.#uses;
  }

  /** What loading found: damaged batches (not loaded) and recovered torn writes. */
  get loadReport(): StoreLoadReport {
    return this.#report;
  }

  /** Every batch's outline, oldest first: at rest or not, none is read for it. */
  outlines(): BatchOutline[] {
    return [...this.#batches.values()].map(outlineOfStored).sort(byCreation);
  }

  outline(batchId: string): BatchOutline | undefined {
    const batch = this.#batches.get(batchId);
    return batch && outlineOfStored(batch);
  }

  /**
   * Every batch in memory, oldest first: every batch that is not at rest (so every one with
   * something to send or to track), and those at rest used lately.
   */
  loaded(): BatchState[] {
    return [...this.#batches.values()]
      .flatMap((batch) => (batch.state ? [batch.state] : []))
      .sort(byCreation);
  }

  /**
   * The batch if it is in memory; undefined for an unknown batch, and for one at rest that is not
   * (`open` reads it). A batch that is not at rest always is.
   */
  get(batchId: string): BatchState | undefined {
    return this.#batches.get(batchId)?.state;
  }

  /** A batch's name and connection, at rest or not. */
  label(batchId: string): Pick<BatchOutline, 'id' | 'name' | 'connection'> | undefined {
    const batch = this.#batches.get(batchId);
    return batch?.state ?? batch?.resting?.outline;
  }

  /** The batch, read back from its snapshot if it is at rest and not in memory; undefined when unknown. */
  async open(batchId: string): Promise<BatchState | undefined> {
    const batch = this.#batches.get(batchId);
    if (!batch) return undefined;
    this.#touch(batch);
    if (batch.state) return batch.state;
    batch.opening ??= this.#enqueue(batch, () => this.#readBack(batchId, batch)).finally(() => {
      batch.opening = undefined;
    });
    return batch.opening;
  }

  async #readBack(batchId: string, batch: StoredBatch): Promise<BatchState> {
    if (batch.state) return batch.state;
    const read = await readBatch(join(this.#root, batchId), batchId, this.#fs);
    if (!read.ok) throw new Error(`batch ${batchId} cannot be read: ${read.error.problem}`);
    const state = shareRepeatedParts(read.value.state);
    const { journal } = read.value;
    batch.applied = journal.entries.at(-1)?.seq ?? journal.snapshot?.seq ?? 0;
    batch.state = state;
    batch.resting = undefined;
    batch.finished = isFinished(state);
    return state;
  }

  /**
   * Keeps a batch in memory until the returned release is called (a send run holds its batch
   * so): a batch that came to rest meanwhile stays readable with `get`.
   */
  retain(batchId: string): () => void {
    const batch = this.#batches.get(batchId);
    if (!batch) return () => undefined;
    batch.retained += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      batch.retained -= 1;
      if (batch.retained === 0) this.#rest();
    };
  }

  /** The contract digest of every document of a batch, in its order, at rest or not (none is read). */
  contracts(batchId: string): readonly ContractDigest[] {
    const batch = this.#batches.get(batchId);
    return batch ? contractsOfStored(batch) : [];
  }

  /** The contract digest of one document, at rest or not; undefined when there is no such document. */
  contractOf(batchId: string, documentId: string): ContractDigest | undefined {
    const batch = this.#batches.get(batchId);
    return batch && contractOfStored(batch, documentId);
  }

  /** Creates an empty batch durably. */
  async create(name: string, defaults: BatchDefaults, source?: string): Promise<BatchState> {
    if (this.#readOnly) throw new Error('the store is read-only');
    const batchId = randomUUID();
    const writer = await JournalWriter.open<BatchState, BatchEvent>(join(this.#root, batchId), undefined, {
      fs: this.#fs,
    });
    this.#batches.set(batchId, storedBatch({ state: emptyBatch(batchId) }, writer, false));
    return this.record(batchId, [
      { type: 'batch_created', batchId, name, defaults, ...(source ? { source } : {}) },
    ]);
  }

  /**
   * Binds `batchId` to `address` unless it is bound already, and returns the binding in force
   * (README "Using the app", Connections: a batch is sent, continued and tracked only with the connection
   * it was first sent with). Bindings of one batch are decided one at a time, so two callers
   * that race with different connections get the same answer: the first one. The only way a
   * batch gets bound.
   */
  bindConnection(batchId: string, address: ConnectionAddress): Promise<ConnectionAddress> {
    const decided = (this.#binding.get(batchId) ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        const bound = this.outline(batchId)?.connection;
        if (bound) return bound;
        const state = await this.record(batchId, [
          { type: 'connection_bound', baseUrl: address.baseUrl, clientId: address.clientId },
        ]);
        return state.connection ?? address;
      });
    this.#binding.set(batchId, decided);
    void decided
      .finally(() => {
        if (this.#binding.get(batchId) === decided) this.#binding.delete(batchId);
      })
      .catch(() => undefined);
    return decided;
  }

  /**
   * Stores events durably, applies them, tells listeners, and returns the new state. A batch at
   * rest out of memory is read back first: a record made while that read runs may be stored after
   * one made just after it ends (both overlap, so either order is one the callers allowed).
   */
  record(batchId: string, events: readonly BatchEvent[]): Promise<BatchState> {
    const batch = this.#batches.get(batchId);
    const writer = batch?.writer;
    if (!batch || !writer) return Promise.reject(new Error(`batch ${batchId} is unknown or read-only`));
    this.#touch(batch);
    if (!batch.state) {
      const release = this.retain(batchId);
      return this.open(batchId)
        .then(() => this.record(batchId, events))
        .finally(release);
    }
    if (events.length === 0) return this.#enqueue(batch, () => Promise.resolve(this.#stateOf(batch)));
    // Appended now, in the order they reach here, so concurrent records share one fsync (group
    // commit); the state is applied in the same order once each is durable.
    const appended = writer.append(events, new Date(this.#now()));
    batch.restFile = false; // It describes the snapshot with an empty journal: no more.

    appended.catch(() => undefined); // Handled below, in order; this only marks it as awaited.
    return this.#enqueue(batch, async () => {
      const entries = await appended;
      const state = entries.reduce(applyBatchEvent, this.#stateOf(batch));
      batch.state = state;
      batch.applied = entries.at(-1)?.seq ?? batch.applied;
      if (batch.finished || mayBringToRest(events)) batch.finished = isFinished(state);
      // The snapshot may only cover entries applied to this state: the last one of this record.
      const appliedSeq = entries.at(-1)?.seq;
      // A failed compaction loses nothing (the journal keeps every entry) and is tried again
      // after the next record; the events themselves are stored, so the record succeeds.
      if (appliedSeq !== undefined && writer.entriesSinceSnapshot >= this.#compactAfterEntries)
        await writer.compact(state, appliedSeq).catch(() => false);
      // A finished batch (it just finished, or the person changed one) is folded right after
      // this record (those who wait for it hear of it first): nothing more will be written to
      // it, and once folded it may rest out of memory.
      else if (batch.finished) this.#fold(batchId);
      for (const listener of this.#listeners) listener(state, events);
      return state;
    });
  }

  /**
   * Deletes a batch and its journal, durably and in one step: once this resolves the batch
   * never comes back, and a crash midway leaves it whole or gone. PDF copies stay in the blob
   * store (shared by content).
   */
  async delete(batchId: string): Promise<void> {
    const batch = this.#batches.get(batchId);
    if (!batch) return;
    if (batch.writer && !this.#deleted) throw new Error('the record of deleted contracts cannot be read');
    this.#batches.delete(batchId);
    await batch.queue;
    if (!batch.writer) return;
    // What the service holds stays known, durably, before the batch goes: from its documents,
    // or from what is kept of them at rest.
    await this.#deleted?.remember(contractsToRemember(batchId, batch));
    await batch.writer.close();
    const folder = join(this.#root, batchId);
    const deleted = `${folder}${DELETED_SUFFIX}`;
    // Removing files one by one could leave a snapshot without its journal: an older batch.
    await this.#fs.rename(folder, deleted);
    await this.#fs.syncDirectory(this.#root);
    await this.#fs.rm(deleted, { recursive: true, force: true });
  }

  /** Calls `listener` after every recorded change; returns the unsubscribe function. */
  subscribe(listener: BatchListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Flushes and closes every journal. */
  async close(): Promise<void> {
    await this.#deleted?.close();
    // Records and folds under way finish first (a fold never fails its queue).
    await Promise.all(
      [...this.#batches.values()].map(async (batch) => {
        await batch.queue;
        await batch.writer?.close();
      }),
    );
  }
}
