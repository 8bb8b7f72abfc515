import { dirname, join } from 'node:path';
import { err, ok, type Result } from '../../shared/base/result';
import { makeDirectoryDurable, writeFileAtomic } from './durable-fs';
import { errorCode, nodeFileSystem, type FileSystem, type OpenFile } from './file-system';
import {
  decodeLine,
  encodeDurableEntries,
  encodeLine,
  encodeRecord,
  readJournalText,
  type JournalDamage,
  type JournalEntry,
  type PendingRecord,
} from './journal-lines';

export { encodeLine, type JournalDamage, type JournalEntry } from './journal-lines';

/**
 * One folder, two files: `snapshot.json` (a whole state, replaced atomically) and
 * `journal.log` (events appended since, one per line, each with a CRC-32; journal-lines.ts
 * has the format). Appends are fsynced before the promise resolves, so a caller may act on an
 * event once it is stored. Appends share their fsync the way databases commit (group commit):
 * the appends made while the app handles one event (an answer, a timer) go into one write and
 * one fdatasync, and those that arrive while it runs go together into the next. Every file
 * operation goes through a `FileSystem`, so power cuts can be tested.
 */

export interface LoadedJournal<S, E> {
  readonly snapshot: { readonly seq: number; readonly state: S } | undefined;
  readonly entries: readonly JournalEntry<E>[];
  /** Torn tails that were set aside (reported, never silently dropped). */
  readonly recovered: readonly JournalDamage[];
}

export type JournalLoad<S, E> = Result<LoadedJournal<S, E>, JournalDamage>;

/** What a writer needs of a loaded journal: where its snapshot and entries stop, and a torn tail to drop. */
export type JournalStart<E> = Pick<LoadedJournal<unknown, E>, 'entries' | 'recovered'> & {
  readonly snapshot: { readonly seq: number } | undefined;
};

const SNAPSHOT_FILE = 'snapshot.json';
const JOURNAL_FILE = 'journal.log';

/** The file's text, or undefined when it does not exist. */
async function readIfPresent(fs: FileSystem, path: string): Promise<string | undefined> {
  return fs.readFile(path, 'utf8').catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  });
}

/**
 * Reads a journal folder. A damaged snapshot, or a damaged journal line (journal-lines.ts says
 * how damage is told from a torn last record), is corruption: the load fails with its location.
 * A last record torn by a crash while it was written was never acknowledged: it is set aside and
 * reported in `recovered`.
 */
export async function loadJournal<S, E>(
  folder: string,
  fs: FileSystem = nodeFileSystem,
): Promise<JournalLoad<S, E>> {
  let snapshot: LoadedJournal<S, E>['snapshot'];
  const snapshotPath = join(folder, SNAPSHOT_FILE);
  const snapshotText = await readIfPresent(fs, snapshotPath);
  if (snapshotText !== undefined) {
    const decoded = decodeLine<S>(snapshotText.endsWith('\n') ? snapshotText.slice(0, -1) : snapshotText);
    if (!decoded) {
      return err({
        file: snapshotPath,
        line: undefined,
        problem: 'the snapshot fails its checksum',
        tornTail: false,
      });
    }
    snapshot = { seq: decoded.entry.seq, state: decoded.entry.event };
  }

  const journalPath = join(folder, JOURNAL_FILE);
  const text = (await readIfPresent(fs, journalPath)) ?? '';
  const read = readJournalText<E>(text, journalPath, snapshot?.seq ?? 0);
  if (!read.ok) return read;
  return ok({ snapshot, entries: read.value.entries, recovered: read.value.recovered });
}

/**
 * Resolves once the promise continuations already queued, and those they queue in turn, have
 * run (a tick callback runs after the microtask queue drains), without waiting for I/O or timers.
 */
function settledWork(): Promise<void> {
  return new Promise((resolve) => process.nextTick(resolve));
}

interface PendingAppend {
  readonly record: PendingRecord;
  /** The sequence number of the last entry of this append. */
  readonly lastSeq: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export interface JournalWriterOptions {
  /** Where the journal lives: the real disk unless a test says otherwise. */
  readonly fs?: FileSystem;
}

/**
 * Appends events to a journal folder durably. One writer per folder. A failed write or fsync
 * rejects its append and every append queued behind it, never half-applied; the next append
 * first cuts the file back to its acknowledged entries, so a full disk costs the appends made
 * while it was full, not the batch.
 */
export class JournalWriter<S, E> {
  readonly #folder: string;
  readonly #fs: FileSystem;
  #handle: OpenFile | undefined;
  /** The last sequence number handed out (some may still be on their way to the disk). */
  #seq: number;
  /** The last sequence number stored durably and acknowledged. */
  #durableSeq: number;
  /** The sequence number the snapshot covers: entries after it are in journal.log. */
  #snapshotSeq: number;
  /** Bytes of journal.log holding acknowledged entries; anything after them is debris of a failure. */
  #acknowledgedLength = 0;
  /** Set when a write or fsync failed: the file may hold debris after `#acknowledgedLength`. */
  #needsRepair = false;
  #pending: PendingAppend[] = [];
  #flushing: Promise<void> | undefined;
  /** While a snapshot is written, appends wait (they must not land in a journal being emptied). */
  #compacting: Promise<void> | undefined;

  private constructor(folder: string, fs: FileSystem, seq: number, snapshotSeq: number) {
    this.#folder = folder;
    this.#fs = fs;
    this.#seq = seq;
    this.#durableSeq = seq;
    this.#snapshotSeq = snapshotSeq;
  }

  /**
   * Opens a writer that continues after `lastSeq`, dropping a torn tail first. Only where the
   * loaded journal stops matters, not its snapshot's state (a batch at rest is not parsed).
   */
  static async open<S, E>(
    folder: string,
    loaded: JournalStart<E> | undefined,
    options: JournalWriterOptions = {},
  ): Promise<JournalWriter<S, E>> {
    const fs = options.fs ?? nodeFileSystem;
    await makeDirectoryDurable(folder, fs);
    const lastSeq = loaded?.entries.at(-1)?.seq ?? loaded?.snapshot?.seq ?? 0;
    const writer = new JournalWriter<S, E>(folder, fs, lastSeq, loaded?.snapshot?.seq ?? 0);
    const journalPath = join(folder, JOURNAL_FILE);
    if (loaded && loaded.recovered.length > 0) {
      // Rewrite the readable entries so the next append does not follow a torn record.
      await writeFileAtomic(journalPath, encodeDurableEntries(loaded.entries), fs);
    }
    const handle = await fs.open(journalPath, 'a', 0o600);
    try {
      // What was loaded may sit in the page cache only (its writer died before syncing): it is
      // made durable before anyone acts on it.
      await handle.sync();
      writer.#acknowledgedLength = (await handle.stat()).size;
      await fs.syncDirectory(folder);
      // Entries its snapshot covers only (a fold cut before it emptied the journal): nothing to
      // keep. Emptied, so that the next start sees an empty journal (and takes a batch at rest
      // from its rest file, main/store/rest-file.ts) instead of reading it whole every time;
      // only now that the snapshot's own rename is durable with its folder.
      if (loaded?.snapshot && loaded.entries.length === 0 && writer.#acknowledgedLength > 0) {
        await handle.truncate(0);
        await handle.sync();
        writer.#acknowledgedLength = 0;
      }
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    writer.#handle = handle;
    return writer;
  }

  /** Entries written since the last snapshot; callers compact when it grows. */
  get entriesSinceSnapshot(): number {
    return this.#seq - this.#snapshotSeq;
  }

  /**
   * Stores the events durably, in order; resolves with their entries once fsynced. Rejects
   * when the write or its fsync failed (disk full…): then none of them is stored, nor any
   * append queued behind them, and the next append repairs the file before it writes.
   */
  append(events: readonly E[], now: Date = new Date()): Promise<JournalEntry<E>[]> {
    // Encoded before numbers are taken: an event that cannot be stored leaves no gap behind it.
    const encoded = events.map((event) => JSON.stringify(event));
    const record = { firstSeq: this.#seq + 1, at: now.toISOString(), events: encoded };
    const entries = events.map((event, index) => ({ seq: record.firstSeq + index, at: record.at, event }));
    this.#seq += events.length;
    const stored = new Promise<void>((resolve, reject) =>
      this.#pending.push({ record, lastSeq: this.#seq, resolve, reject }),
    );
    this.#flushing ??= this.#flush();
    return stored.then(() => entries);
  }

  async #flush(): Promise<void> {
    await this.#compacting;
    while (this.#pending.length > 0) {
      // Each write waits for the work already under way to settle: the records it makes (one
      // document's answer, and another's marker once the slot that answer freed is its turn)
      // share one fdatasync instead of queueing for one each.
      await settledWork();
      const batch = this.#pending;
      this.#pending = [];
      // Each line says what was durable as it is written: a record that survives a cut proves
      // those before it were acknowledged, so damage to them is never taken for a torn tail.
      const durableSeq = this.#durableSeq;
      const lines = batch.map((item) => encodeRecord(item.record, durableSeq)).join('');
      try {
        const handle = this.#handle;
        if (!handle) throw new Error('journal is closed');
        if (this.#needsRepair) await this.#repair(handle);
        await handle.write(lines);
        await handle.datasync();
      } catch (error) {
        // Queued appends hold the following sequence numbers: they cannot follow a gap either.
        const abandoned = [...batch, ...this.#pending];
        this.#pending = [];
        this.#needsRepair = true;
        this.#seq = this.#durableSeq;
        for (const item of abandoned) item.reject(error);
        continue;
      }
      this.#acknowledgedLength += Buffer.byteLength(lines, 'utf8');
      this.#durableSeq = batch.at(-1)?.lastSeq ?? this.#durableSeq;
      for (const item of batch) item.resolve();
    }
    this.#flushing = undefined;
  }

  /**
   * Cuts the file back to its acknowledged entries and makes that durable, so what a failed
   * write left (a half line, or whole lines never acknowledged) cannot precede the next entry.
   */
  async #repair(handle: OpenFile): Promise<void> {
    await handle.truncate(this.#acknowledgedLength);
    await handle.sync();
    this.#needsRepair = false;
  }

  /** The sequence number of the last appended entry. */
  get lastSeq(): number {
    return this.#seq;
  }

  /**
   * Folds the journal into a new snapshot of `state`, which must reflect every entry up to
   * `seq`, and empties the journal. Does nothing (answers false) while appends are in flight or
   * when `seq` is not the last entry, so no entry is ever lost. Safe at any instant: entries the
   * snapshot covers are skipped on load if the journal was not emptied yet. Rejects when the
   * snapshot or the emptying fails; the journal then still holds every entry it acknowledged.
   */
  async compact(state: S, seq: number): Promise<boolean> {
    if (this.#flushing || this.#pending.length > 0 || seq !== this.#seq || this.#compacting) return false;
    let finished: () => void = () => undefined;
    this.#compacting = new Promise((resolve) => (finished = resolve));
    try {
      await writeFileAtomic(
        join(this.#folder, SNAPSHOT_FILE),
        encodeLine({ seq, at: new Date().toISOString(), event: state }),
        this.#fs,
      );
      // The snapshot is durable and covers every entry: none of the journal's bytes must be
      // kept, and emptying it is the same repair as after a failed append (retried by the next
      // append if it fails here).
      this.#snapshotSeq = seq;
      this.#acknowledgedLength = 0;
      this.#needsRepair = true;
      if (this.#handle) await this.#repair(this.#handle);
    } finally {
      this.#compacting = undefined;
      finished();
    }
    return true;
  }

  /** Waits for pending appends and closes the file, first cutting off what a failed append left. */
  async close(): Promise<void> {
    await this.#flushing;
    await this.#compacting;
    const handle = this.#handle;
    this.#handle = undefined;
    if (!handle) return;
    try {
      // Best effort: if it fails, a torn tail is set aside by the next load.
      if (this.#needsRepair) await this.#repair(handle).catch(() => undefined);
    } finally {
      await handle.close();
    }
  }

  /** Removes the folder and everything in it (a deleted batch). */
  async destroy(): Promise<void> {
    await this.close();
    await this.#fs.rm(this.#folder, { recursive: true, force: true });
    await this.#fs.syncDirectory(dirname(this.#folder));
  }
}
