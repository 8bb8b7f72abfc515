import { mkdir, open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { syncDirectory, writeFileAtomic } from './durable-fs';

/**
 * One folder, two files: `snapshot.json` (a whole state, replaced atomically) and
 * `journal.log` (events appended since, one per line, each with a CRC-32). Appends are
 * fsynced before the promise resolves, so a caller may act on an event once it is stored.
 * Appends that arrive while a flush is running are written together (group commit).
 */

export interface JournalEntry<E> {
  readonly seq: number;
  readonly at: string;
  readonly event: E;
}

/** A problem found while loading: the folder, file and line, and what was wrong. */
export interface JournalDamage {
  readonly file: string;
  readonly line: number | undefined;
  readonly problem: string;
  /** True when the damage is a half-written last line from a crash: it was never acknowledged. */
  readonly tornTail: boolean;
}

export interface LoadedJournal<S, E> {
  readonly snapshot: { readonly seq: number; readonly state: S } | undefined;
  readonly entries: readonly JournalEntry<E>[];
  /** Torn tails that were set aside (reported, never silently dropped). */
  readonly recovered: readonly JournalDamage[];
}

export type JournalLoad<S, E> =
  | { readonly ok: true; readonly journal: LoadedJournal<S, E> }
  | { readonly ok: false; readonly damage: JournalDamage };

const SNAPSHOT_FILE = 'snapshot.json';
const JOURNAL_FILE = 'journal.log';

function checksum(text: string): string {
  return crc32(Buffer.from(text, 'utf8')).toString(16).padStart(8, '0');
}

/** Encodes an entry as one journal line: checksum, tab, JSON, newline. */
export function encodeLine(entry: JournalEntry<unknown>): string {
  const json = JSON.stringify(entry);
  return `${checksum(json)}\t${json}\n`;
}

function decodeLine<E>(line: string): JournalEntry<E> | undefined {
  const tab = line.indexOf('\t');
  if (tab !== 8) return undefined;
  const json = line.slice(tab + 1);
  if (checksum(json) !== line.slice(0, tab)) return undefined;
  try {
    const entry = JSON.parse(json) as JournalEntry<E>;
    return typeof entry.seq === 'number' && typeof entry.at === 'string' ? entry : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads a journal folder. A damaged snapshot or a damaged line before the last one is
 * corruption: the load fails with its location. A damaged last line without its newline is
 * the trace of a crash mid-write; it is set aside and reported in `recovered`.
 */
export async function loadJournal<S, E>(folder: string): Promise<JournalLoad<S, E>> {
  let snapshot: LoadedJournal<S, E>['snapshot'];
  const snapshotPath = join(folder, SNAPSHOT_FILE);
  const snapshotText = await readFile(snapshotPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (snapshotText !== undefined) {
    const decoded = decodeLine<S>(snapshotText.endsWith('\n') ? snapshotText.slice(0, -1) : snapshotText);
    if (!decoded) {
      return {
        ok: false,
        damage: {
          file: snapshotPath,
          line: undefined,
          problem: 'the snapshot fails its checksum',
          tornTail: false,
        },
      };
    }
    snapshot = { seq: decoded.seq, state: decoded.event };
  }

  const journalPath = join(folder, JOURNAL_FILE);
  const text = await readFile(journalPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  // An empty journal (just compacted) has no lines, not one empty line.
  const lines = text === '' ? [] : text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  if (endsWithNewline) lines.pop();
  const entries: JournalEntry<E>[] = [];
  const recovered: JournalDamage[] = [];
  let previousSeq = snapshot?.seq ?? 0;
  for (const [index, line] of lines.entries()) {
    const isLast = index === lines.length - 1;
    const entry = decodeLine<E>(line);
    if (!entry) {
      const damage = { file: journalPath, line: index + 1, problem: 'the line fails its checksum' };
      if (isLast && !endsWithNewline) {
        recovered.push({
          ...damage,
          problem: 'a half-written last line (the app stopped while writing it)',
          tornTail: true,
        });
        break;
      }
      return { ok: false, damage: { ...damage, tornTail: false } };
    }
    // Entries already folded into the snapshot (a crash between snapshot and truncation).
    if (entry.seq <= (snapshot?.seq ?? 0)) continue;
    if (entry.seq !== previousSeq + 1) {
      return {
        ok: false,
        damage: {
          file: journalPath,
          line: index + 1,
          problem: `entry ${entry.seq} follows entry ${previousSeq}: entries are missing`,
          tornTail: false,
        },
      };
    }
    previousSeq = entry.seq;
    entries.push(entry);
  }
  return { ok: true, journal: { snapshot, entries, recovered } };
}

interface PendingAppend {
  readonly lines: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Appends events to a journal folder durably. One writer per folder. */
export class JournalWriter<S, E> {
  readonly #folder: string;
  #handle: FileHandle | undefined;
  #seq: number;
  #pending: PendingAppend[] = [];
  #flushing: Promise<void> | undefined;
  #entriesSinceSnapshot: number;
  /** Set when a write failed: later entries would leave a gap, so the writer refuses them. */
  #failure: unknown;
  /** While a snapshot is written, appends wait (they must not land in a journal being emptied). */
  #compacting: Promise<void> | undefined;

  private constructor(folder: string, seq: number, entriesSinceSnapshot: number) {
    this.#folder = folder;
    this.#seq = seq;
    this.#entriesSinceSnapshot = entriesSinceSnapshot;
  }

  /** Opens a writer that continues after `lastSeq`, dropping a torn tail first. */
  static async open<S, E>(
    folder: string,
    loaded: LoadedJournal<S, E> | undefined,
  ): Promise<JournalWriter<S, E>> {
    await mkdir(folder, { recursive: true });
    const lastSeq = loaded?.entries.at(-1)?.seq ?? loaded?.snapshot?.seq ?? 0;
    const writer = new JournalWriter<S, E>(folder, lastSeq, loaded?.entries.length ?? 0);
    if (loaded && loaded.recovered.length > 0) {
      // Rewrite the readable entries so the next append does not follow a torn line.
      await writeFileAtomic(join(folder, JOURNAL_FILE), loaded.entries.map(encodeLine).join(''));
    }
    writer.#handle = await open(join(folder, JOURNAL_FILE), 'a', 0o600);
    await syncDirectory(folder);
    return writer;
  }

  /** Entries written since the last snapshot; callers compact when it grows. */
  get entriesSinceSnapshot(): number {
    return this.#entriesSinceSnapshot;
  }

  /** Stores the events durably, in order; resolves with their entries once fsynced. */
  append(events: readonly E[], now: Date = new Date()): Promise<JournalEntry<E>[]> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const entries = events.map((event) => {
      this.#seq += 1;
      return { seq: this.#seq, at: now.toISOString(), event };
    });
    this.#entriesSinceSnapshot += entries.length;
    const lines = entries.map(encodeLine).join('');
    const stored = new Promise<void>((resolve, reject) => this.#pending.push({ lines, resolve, reject }));
    this.#flushing ??= this.#flush();
    return stored.then(() => entries);
  }

  async #flush(): Promise<void> {
    await this.#compacting;
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      try {
        const handle = this.#handle;
        if (!handle) throw new Error('journal is closed');
        await handle.write(batch.map((item) => item.lines).join(''));
        await handle.datasync();
        for (const item of batch) item.resolve();
      } catch (error) {
        this.#failure = error;
        for (const item of [...batch, ...this.#pending]) item.reject(error);
        this.#pending = [];
      }
    }
    this.#flushing = undefined;
  }

  /** The sequence number of the last appended entry. */
  get lastSeq(): number {
    return this.#seq;
  }

  /**
   * Folds the journal into a new snapshot of `state`, which must reflect every entry up to
   * `seq`, and empties the journal. Does nothing (answers false) while appends are in flight or
   * when `seq` is not the last entry, so no entry is ever lost. Safe at any instant: entries the
   * snapshot covers are skipped on load if the journal was not emptied yet.
   */
  async compact(state: S, seq: number): Promise<boolean> {
    if (this.#flushing || this.#pending.length > 0 || seq !== this.#seq || this.#compacting) return false;
    let finished: () => void = () => undefined;
    this.#compacting = new Promise((resolve) => (finished = resolve));
    try {
      await writeFileAtomic(
        join(this.#folder, SNAPSHOT_FILE),
        encodeLine({ seq, at: new Date().toISOString(), event: state }),
      );
      await this.#handle?.truncate(0);
      await this.#handle?.sync();
      this.#entriesSinceSnapshot = 0;
    } finally {
      this.#compacting = undefined;
      finished();
    }
    return true;
  }

  /** Waits for pending appends and closes the file. */
  async close(): Promise<void> {
    await this.#flushing;
    await this.#handle?.close();
    this.#handle = undefined;
  }

  /** Removes the folder and everything in it (a deleted batch). */
  async destroy(): Promise<void> {
    await this.close();
    await rm(this.#folder, { recursive: true, force: true });
  }
}
