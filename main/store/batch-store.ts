import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { err, ok, type Result } from '../../shared/base/result';
import type { BatchDefaults } from '../../shared/domain/batch';
import type { BatchEvent } from '../domain/batch-events';
import type { ConnectionAddress } from '../domain/batch-connection';
import { classOf } from '../domain/document-class';
import { applyBatchEvent, emptyBatch, UnknownBatchEventError } from '../domain/apply-batch-event';
import { mayHoldRequest, type BatchState } from '../domain/batch-state';
import { upgradeBatchState } from '../domain/batch-state-upgrade';
import { DeletedContracts, type DeletedContract } from './deleted-contracts';
import { makeDirectoryDurable } from './durable-fs';
import { errorCode, nodeFileSystem, type FileSystem } from './file-system';
import { shareRepeatedParts } from './shared-parts';
import { JournalWriter, loadJournal, type JournalDamage, type JournalEntry } from './journal';

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
/** A batch folder being deleted is first renamed with this suffix, so a crash never leaves half a batch. */
const DELETED_SUFFIX = '.deleted';

export interface BatchStoreOptions {
  /** A read-only store (for `status` while another process sends) never writes or repairs a file. */
  readonly readOnly?: boolean;
  /** Journal entries after which a batch is folded into a fresh snapshot (default 2,000). */
  readonly compactAfterEntries?: number;
  /** Where the data folder lives: the real disk unless a test says otherwise. */
  readonly fs?: FileSystem;
  /** The clock entries are stamped with: this computer's, unless a test moves time. */
  readonly now?: () => number;
}

interface OpenBatch {
  state: BatchState;
  readonly writer: JournalWriter<BatchState, BatchEvent> | undefined;
  /** Records of one batch are applied one after another, in the order they were appended. */
  queue: Promise<unknown>;
}

/** Replays journal entries onto a state; an event this version cannot read is reported as damage. */
function foldEntries(
  folder: string,
  initial: BatchState,
  entries: readonly JournalEntry<BatchEvent>[],
): Result<BatchState, JournalDamage> {
  let state = initial;
  for (const entry of entries) {
    try {
      state = applyBatchEvent(state, entry);
    } catch (error) {
      if (!(error instanceof UnknownBatchEventError)) throw error;
      const damage = { file: join(folder, 'journal.log'), line: undefined, tornTail: false };
      return err({ ...damage, problem: `entry ${entry.seq} holds ${error.message}` });
    }
  }
  return ok(state);
}

/**
 * True when nothing will write to the batch unless the person acts: every document is signed,
 * ended at its service, gone or failed. Such a batch is folded into its snapshot at once: a year of finished batches
 * then opens as a year of snapshots, with no journal left to replay.
 */
function atRest(state: BatchState): boolean {
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

/** Events after which a batch may have come to rest (its last document signed, ended, gone or failed). */
function mayBringToRest(events: readonly BatchEvent[]): boolean {
  return events.some(
    (event) =>
      (event.type === 'status_read' && event.status.final) ||
      event.type === 'request_gone' ||
      event.type === 'item_failed',
  );
}

/** A batch that could not be loaded, kept aside and reported: never silently dropped. */
export interface DamagedBatch {
  readonly batchId: string;
  readonly damage: JournalDamage;
}

export interface StoreLoadReport {
  readonly damaged: readonly DamagedBatch[];
  /** Half-written last records left by a crash (never acknowledged), set aside while loading. */
  readonly recovered: readonly (JournalDamage & { readonly batchId: string })[];
}

/** A batch read from its folder, before it joins the store. */
interface LoadedBatch {
  readonly batchId: string;
  /** Absent once handed to a visitor (`readEach`). */
  readonly open?: OpenBatch;
  readonly recovered: readonly JournalDamage[];
  /** Journal entries replayed onto the snapshot while loading. */
  readonly replayed: number;
}

export type BatchListener = (state: BatchState, events: readonly BatchEvent[]) => void;

/**
 * Every batch of a data folder, each in its own journal folder. `record` makes events durable
 * (fsync) before it resolves and before listeners hear of them, so callers may act on them.
 */
export class BatchStore {
  readonly #root: string;
  readonly #batches = new Map<string, OpenBatch>();
  /** Each batch's binding being decided, so that two are decided one after the other. */
  readonly #binding = new Map<string, Promise<ConnectionAddress>>();
  readonly #listeners = new Set<BatchListener>();
  #report: StoreLoadReport = { damaged: [], recovered: [] };
  /** The contracts of deleted batches the service holds or may hold requests for. */
  #deleted: DeletedContracts | undefined;

  readonly #readOnly: boolean;
  readonly #compactAfterEntries: number;
  readonly #fs: FileSystem;
  readonly #now: () => number;

  private constructor(dataDir: string, options: BatchStoreOptions) {
    this.#root = join(dataDir, 'batches');
    this.#fs = options.fs ?? nodeFileSystem;
    this.#readOnly = options.readOnly === true;
    this.#compactAfterEntries = options.compactAfterEntries ?? COMPACT_AFTER_ENTRIES;
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
        const batch = await this.#loadOne(entry.name);
        if (visit && batch && !('damage' in batch) && batch.open) {
          visit(batch.open.state);
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
      if (!batch.open) continue; // Handed to `visit`, not kept.
      this.#batches.set(batch.batchId, batch.open);
      if (
        batch.open.writer &&
        (batch.replayed >= FOLD_ON_LOAD_ENTRIES || (batch.replayed > 0 && atRest(batch.open.state)))
      )
        toFold.push(batch.batchId);
    }
    this.#report = { damaged, recovered };
    // After opening, not before: the batches are usable at once, the folds follow in each batch's turn.
    for (const batchId of toFold) this.#fold(batchId);
  }

  /** Loads one batch folder: its state and writer, or its damage; undefined for a folder that holds no batch. */
  async #loadOne(name: string): Promise<LoadedBatch | DamagedBatch | undefined> {
    const folder = join(this.#root, name);
    if (name.endsWith(DELETED_SUFFIX)) {
      // A deletion the app did not finish: the batch is gone already, only its files remain.
      // Its rename may sit in the page cache only (the process died before syncing it): it is
      // made durable first, so that no power cut brings the batch back, whole or half removed.
      if (!this.#readOnly) {
        await this.#fs.syncDirectory(this.#root);
        await this.#fs.rm(folder, { recursive: true, force: true });
      }
      return undefined;
    }
    const loaded = await loadJournal<BatchState, BatchEvent>(folder, this.#fs);
    if (!loaded.ok) return { batchId: name, damage: loaded.error };
    const journal = loaded.value;
    // A snapshot written by an earlier version is brought to today's shape before events apply.
    const initial = journal.snapshot ? upgradeBatchState(journal.snapshot.state) : emptyBatch(name);
    const folded = foldEntries(folder, initial, journal.entries);
    if (!folded.ok) return { batchId: name, damage: folded.error };
    // Read from disk just now, so nothing else holds its parts yet: equal ones become one.
    const state = shareRepeatedParts(folded.value);
    if (state.createdAt === '') return undefined; // A batch whose creation never became durable.
    const writer = this.#readOnly ? undefined : await JournalWriter.open(folder, journal, { fs: this.#fs });
    return {
      batchId: name,
      open: { state, writer, queue: Promise.resolve() },
      recovered: journal.recovered,
      replayed: journal.entries.length,
    };
  }

  /**
   * Folds a batch's journal into a fresh snapshot in the batch's turn (after the records before
   * it). A failed fold loses nothing: the journal keeps every entry, and is replayed next time.
   */
  #fold(batchId: string): void {
    const batch = this.#batches.get(batchId);
    const writer = batch?.writer;
    if (!batch || !writer) return;
    batch.queue = batch.queue.then(() =>
      writer.entriesSinceSnapshot > 0
        ? writer.compact(batch.state, writer.lastSeq).catch(() => false)
        : false,
    );
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
    const writer = await JournalWriter.open<BatchState, BatchEvent>(join(this.#root, batchId), undefined, {
      fs: this.#fs,
    });
    this.#batches.set(batchId, { state: emptyBatch(batchId), writer, queue: Promise.resolve() });
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
        const bound = this.get(batchId)?.connection;
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

  /** Stores events durably, applies them, tells listeners, and returns the new state. */
  record(batchId: string, events: readonly BatchEvent[]): Promise<BatchState> {
    const batch = this.#batches.get(batchId);
    const writer = batch?.writer;
    if (!batch || !writer) return Promise.reject(new Error(`batch ${batchId} is unknown or read-only`));
    if (events.length === 0) return batch.queue.then(() => batch.state);
    // Appended now, in call order, so concurrent records share one fsync (group commit); the
    // state is applied in the same order once each is durable.
    const appended = writer.append(events, new Date(this.#now()));
    appended.catch(() => undefined); // Handled below, in order; this only marks it as awaited.
    const recorded = batch.queue.then(async () => {
      const entries = await appended;
      batch.state = entries.reduce(applyBatchEvent, batch.state);
      // The snapshot may only cover entries applied to this state: the last one of this record.
      const appliedSeq = entries.at(-1)?.seq;
      // A failed compaction loses nothing (the journal keeps every entry) and is tried again
      // after the next record; the events themselves are stored, so the record succeeds.
      if (appliedSeq !== undefined && writer.entriesSinceSnapshot >= this.#compactAfterEntries)
        await writer.compact(batch.state, appliedSeq).catch(() => false);
      // A batch that just came to rest is folded right after this record (those who wait for it
      // hear of it first): nothing more will be written to it.
      else if (mayBringToRest(events) && atRest(batch.state)) this.#fold(batchId);
      for (const listener of this.#listeners) listener(batch.state, events);
      return batch.state;
    });
    batch.queue = recorded.catch(() => undefined);
    return recorded;
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
    // What the service holds stays known, durably, before the batch goes.
    const { state } = batch;
    await this.#deleted?.remember(
      state.documents.filter(mayHoldRequest).map((document) => ({
        batchId: state.id,
        batchName: state.name,
        connection: state.connection,
        documentId: document.draft.id,
        reference: document.draft.externalReference,
        sha256: document.draft.pdf.sha256,
        fileName: document.draft.pdf.originalName,
        requestId: document.send.requestId ?? document.send.check?.newRequestId,
      })),
    );
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
