/**
 * Reading one batch's folder into its state: its snapshot brought to today's shape, its journal
 * replayed onto it. The store reads every batch so when it opens, and a batch at rest again when
 * someone opens it (batch-store.ts); what loading found is reported, never hidden. A batch at rest
 * with a rest file that describes it (rest-file.ts) is taken from that file, unparsed.
 */
import { join } from 'node:path';
import { err, ok, type Result } from '../../shared/base/result';
import type { BatchEvent } from '../domain/batch-events';
import { applyBatchEvent, emptyBatch, UnknownBatchEventError } from '../domain/apply-batch-event';
import type { BatchState } from '../domain/batch-state';
import { upgradeBatchState } from '../domain/batch-state-upgrade';
import type { FileSystem } from './file-system';
import { isAtRest, isFinished, restingOf } from '../domain/batch-rest';
import {
  JournalWriter,
  loadJournal,
  type JournalDamage,
  type JournalEntry,
  type LoadedJournal,
} from './journal';
import { readRestFile } from './rest-file';
import { shareRepeatedParts } from './shared-parts';
import { storedBatch, type StoredBatch } from './stored-batch';

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

/** A batch folder as read: its state, and its journal as loaded (for a writer to continue it). */
export interface ReadBatch {
  readonly state: BatchState;
  readonly journal: LoadedJournal<BatchState, BatchEvent>;
}

/** Reads the batch of `folder` (named `batchId`), or the damage that keeps it from being read. */
export async function readBatch(
  folder: string,
  batchId: string,
  fs: FileSystem,
): Promise<Result<ReadBatch, JournalDamage>> {
  const loaded = await loadJournal<BatchState, BatchEvent>(folder, fs);
  if (!loaded.ok) return loaded;
  const journal = loaded.value;
  // A snapshot written by an earlier version is brought to today's shape before events apply.
  const initial = journal.snapshot ? upgradeBatchState(journal.snapshot.state) : emptyBatch(batchId);
  const folded = foldEntries(folder, initial, journal.entries);
  if (!folded.ok) return folded;
  return ok({ state: folded.value, journal });
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
export interface LoadedBatch {
  readonly batchId: string;
  /** Absent once handed to a visitor (`readEach`). */
  readonly stored?: StoredBatch;
  readonly recovered: readonly JournalDamage[];
  /** Journal entries replayed onto the snapshot while loading. */
  readonly replayed: number;
}

/** A batch folder being deleted is first renamed with this suffix, so a crash never leaves half a batch. */
export const DELETED_SUFFIX = '.deleted';

/**
 * Loads the batch folder `name` of `root`: the batch, in memory or at rest, with its writer (none
 * in a read-only store), or its damage; undefined for a folder that holds no batch.
 */
export async function loadBatchFolder(
  root: string,
  name: string,
  fs: FileSystem,
  readOnly: boolean,
): Promise<LoadedBatch | DamagedBatch | undefined> {
  const folder = join(root, name);
  if (name.endsWith(DELETED_SUFFIX)) {
    // A deletion the app did not finish: the batch is gone already, only its files remain.
    // Its rename may sit in the page cache only (the process died before syncing it): it is
    // made durable first, so that no power cut brings the batch back, whole or half removed.
    if (!readOnly) {
      await fs.syncDirectory(root);
      await fs.rm(folder, { recursive: true, force: true });
    }
    return undefined;
  }
  // A batch at rest says what is kept of it in its rest file: its snapshot is not parsed.
  const rested = readOnly ? undefined : await readRestFile(folder, fs).catch(() => undefined);
  if (rested) {
    const at = { snapshot: { seq: rested.snapshotSeq }, entries: [], recovered: [] };
    const writer = await JournalWriter.open<BatchState, BatchEvent>(folder, at, { fs });
    const stored = storedBatch({ resting: rested.resting }, writer, true);
    stored.restFile = true;
    return { batchId: name, stored, recovered: [], replayed: 0 };
  }
  const read = await readBatch(folder, name, fs);
  if (!read.ok) return { batchId: name, damage: read.error };
  const { state: folded, journal } = read.value;
  if (folded.createdAt === '') return undefined; // A batch whose creation never became durable.
  // At rest with nothing to fold: kept as its outline at once (its snapshot says all of it),
  // made before the writer opens so that the parsed batch is not held meanwhile.
  const rests = !readOnly && isAtRest(folded) && journal.entries.length === 0;
  // Read from disk just now, so nothing else holds its parts yet: equal ones become one.
  const held = rests ? { resting: restingOf(folded) } : { state: shareRepeatedParts(folded) };
  const finished = isFinished(folded);
  const { entries, recovered } = journal;
  const at = { snapshot: journal.snapshot && { seq: journal.snapshot.seq }, entries, recovered };
  const writer = readOnly ? undefined : await JournalWriter.open(folder, at, { fs });
  return { batchId: name, stored: storedBatch(held, writer, finished), recovered, replayed: entries.length };
}
