import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { checkPdfFile, type PdfCheckResult, type SameFileChecks } from '../files/pdf-check';
import { userFiles, type UserFiles } from '../files/user-files';
import { makeDirectoriesDurable, makeDirectoryDurable } from './durable-fs';
import { nodeFileSystem, type FileSystem, type OpenFile } from './file-system';

/** Read size of a stored copy: large reads bound the memory of an upload to a few chunks. */
const READ_CHUNK_BYTES = 1024 * 1024;
/** Files `intakeMany` copies at once: reads of the person's files and writes of copies overlap. */
const INTAKE_CONCURRENCY = 8;
/** A group's copies are made durable together once it holds this many files… */
const GROUP_FILES = 200;
/** …or this many bytes, whichever comes first: what a power cut mid-group costs stays small. */
const GROUP_BYTES = 64 * 1024 * 1024;

export interface BlobStoreOptions {
  /** Where the data folder lives: the real disk unless a test says otherwise. */
  readonly fs?: FileSystem;
  /**
   * Where the user's original files are read from: the real disk, by the rules for the person's
   * files (main/files/user-files.ts). A test may read them from memory, so that a seeded run
   * replays the same interleaving of operations.
   */
  readonly originals?: Pick<UserFiles, 'open'>;
}

/**
 * The app's private, content-addressed copies of accepted PDFs. A copy never changes after it
 * is written, so what is sent is exactly what was checked, whatever happens to the original.
 */
export class BlobStore {
  readonly #root: string;
  readonly #fs: FileSystem;
  readonly #originals: Pick<UserFiles, 'open'>;
  #rootMadeDurable: Promise<void> | undefined;

  constructor(dataDir: string, options: BlobStoreOptions = {}) {
    this.#root = join(dataDir, 'blobs');
    this.#fs = options.fs ?? nodeFileSystem;
    this.#originals = options.originals ?? userFiles;
  }

  /** Removes copies left half-written by a process that stopped mid-way; call it under the data folder's lock. */
  async removeUnfinishedCopies(): Promise<void> {
    await this.#fs.rm(join(this.#root, 'incoming'), { recursive: true, force: true });
  }

  /** Where the copy of the PDF with this digest lives (on the real disk: prefer `openRead`). */
  pathOf(sha256: string): string {
    return join(this.#root, sha256.slice(0, 2), `${sha256}.pdf`);
  }

  /** True when a copy with this digest is present. */
  async has(sha256: string): Promise<boolean> {
    return this.#fs.stat(this.pathOf(sha256)).then(
      () => true,
      () => false,
    );
  }

  /**
   * A fresh stream of the stored copy with this digest, from its first byte, read through the
   * store's file system. A missing copy is an error of the stream (ENOENT). With `sizeBytes`
   * (the copy's known size) the stream reads at most one byte more, enough to show a copy that
   * grew, instead of asking for a whole chunk more to find the end (a 1 MiB buffer each time).
   */
  openRead(sha256: string, sizeBytes?: number): Readable {
    return this.#fs.createReadStream(this.pathOf(sha256), {
      highWaterMark: READ_CHUNK_BYTES,
      ...(sizeBytes === undefined ? {} : { end: sizeBytes }),
    });
  }

  /**
   * Checks a PDF with the service's rules while streaming it once into a private copy, durably:
   * `intakeMany` with one file. Once this resolves, the copy survives a power cut. With
   * `within`, the file must be inside that folder once its links are resolved (a manifest's PDF).
   */
  async intake(sourcePath: string, within?: string): Promise<PdfCheckResult> {
    for await (const group of this.intakeMany([
      { path: sourcePath, ...(within === undefined ? {} : { within }) },
    ])) {
      const [result] = group.results;
      if (result) return result;
    }
    throw new Error('the intake of one file answered nothing');
  }

  /**
   * Checks many PDFs with the service's rules, each streamed once into a private copy, a few at
   * a time, and makes the copies durable a group at a time: a group's copies are written without
   * waiting for the disk, then fsynced together, renamed into place, and each folder they went
   * into is fsynced once. Each group is yielded, in the order of `sources`, only once all its
   * copies survive a power cut, so a caller may then record them. A copy already present is not
   * written again (its folder is synced with the group's, in case a process that died left its
   * entry unsynced). Originals are only read, each file once however many of `sources` name it
   * (by device and inode: a hard link, a path through another folder's name); a file refused by
   * its size or header is not read further, and a rejected file leaves nothing. A failure of the
   * data folder (disk full…) rejects, leaving nothing of the group being copied.
   */
  async *intakeMany(
    sources: readonly IntakeSource[],
    options: IntakeOptions = {},
  ): AsyncGenerator<IntakeGroup> {
    const limits = {
      concurrency: Math.max(1, options.concurrency ?? INTAKE_CONCURRENCY),
      files: Math.max(1, options.groupFiles ?? GROUP_FILES),
      bytes: options.groupBytes ?? GROUP_BYTES,
    };
    const sameFiles: SameFileChecks = new Map();
    for (let first = 0; first < sources.length;) {
      // The copies' folder must be durable, the whole path once per process, since a process
      // that died may have left it unsynced; `incoming` is scratch space and need not be.
      this.#rootMadeDurable ??= makeDirectoryDurable(this.#root, this.#fs, { wholePath: true }).catch(
        (error: unknown) => {
          this.#rootMadeDurable = undefined;
          throw error;
        },
      );
      await this.#rootMadeDurable;
      await this.#fs.mkdir(join(this.#root, 'incoming'));
      const results = await this.#intakeGroup(sources, first, limits, sameFiles);
      yield { first, results };
      first += results.length;
    }
  }

  /** Copies the next group of `sources` from `first` and makes it durable; answers its results. */
  async #intakeGroup(
    sources: readonly IntakeSource[],
    first: number,
    limits: { readonly concurrency: number; readonly files: number; readonly bytes: number },
    sameFiles: SameFileChecks,
  ): Promise<PdfCheckResult[]> {
    const results: PdfCheckResult[] = [];
    const group = new CopyGroup();
    const end = Math.min(sources.length, first + limits.files);
    let next = first;
    let failure: { readonly error: unknown } | undefined;
    // Files are taken in order while the group has room, so a group is a run of `sources`.
    const copyNext = async (): Promise<void> => {
      while (failure === undefined && next < end && group.bytes < limits.bytes) {
        const index = next;
        next += 1;
        try {
          results[index - first] = await this.#copyToIncoming(sources[index]!, group, sameFiles);
        } catch (error) {
          failure ??= { error };
        }
      }
    };
    await Promise.all(Array.from({ length: limits.concurrency }, copyNext));
    try {
      if (failure) throw failure.error;
      await this.#makeDurable(group, limits.concurrency);
    } catch (error) {
      await group.discardAll(this.#fs);
      throw error;
    }
    return results;
  }

  /**
   * Streams one file into `incoming` (not synced yet) while checking it; keeps an accepted copy in
   * `group`. The copy is begun with the first byte that passed the checks: a file refused by its
   * size or header, or one already read under another name, writes nothing.
   */
  async #copyToIncoming(
    source: IntakeSource,
    group: CopyGroup,
    sameFiles: SameFileChecks,
  ): Promise<PdfCheckResult> {
    const temporary = join(this.#root, 'incoming', `${randomUUID()}.part`);
    let copy: PendingCopy | undefined;
    let result: PdfCheckResult;
    try {
      result = await checkPdfFile(source.path, {
        sink: async (chunk) => {
          copy ??= group.open(temporary, await this.#fs.open(temporary, 'w', 0o600));
          group.bytes += chunk.length;
          await copy.output.write(chunk);
        },
        open: (path, options) => this.#originals.open(path, options),
        sameFiles,
        ...(source.within === undefined ? {} : { within: source.within }),
      });
    } catch (error) {
      if (copy) await group.discard(copy, this.#fs).catch(() => undefined);
      throw error;
    }
    if (!result.ok) {
      if (copy) await group.discard(copy, this.#fs);
      return result;
    }
    const { sha256 } = result.value;
    const folder = join(this.#root, sha256.slice(0, 2));
    group.folders.add(folder);
    // Read under another name of this operation: that name's copy, in this group or an earlier one, holds it.
    if (copy === undefined) return result;
    // One copy per digest: another file of the group, or a copy already in place, holds it.
    if (group.copies.has(sha256)) {
      await group.discard(copy, this.#fs);
      return result;
    }
    group.copies.set(sha256, copy);
    if (await this.has(sha256)) {
      group.copies.delete(sha256);
      await group.discard(copy, this.#fs);
    } else {
      copy.target = this.pathOf(sha256);
    }
    return result;
  }

  /**
   * The group's durability, in the order a power cut allows: every copy's bytes, then the
   * folders the copies go into, then the renames, then those folders' entries.
   */
  async #makeDurable(group: CopyGroup, concurrency: number): Promise<void> {
    const copies = [...group.copies.values()];
    await eachAtOnce(copies, concurrency, async (copy) => {
      await copy.output.sync();
      await copy.output.close();
      copy.closed = true;
    });
    // A folder's entry in the blobs folder, new or left unsynced by a process that died, is made
    // durable before a copy is renamed into it: one sync of the blobs folder for the group.
    await makeDirectoriesDurable(group.folders, this.#fs);
    await eachAtOnce(copies, concurrency, async (copy) => {
      await this.#fs.rename(copy.temporary, copy.target!);
      copy.renamed = true;
    });
    await eachAtOnce([...group.folders], concurrency, (folder) => this.#fs.syncDirectory(folder));
  }
}

/** A file of the person's to take in; with `within`, it must be inside that folder once its links are resolved. */
export interface IntakeSource {
  readonly path: string;
  readonly within?: string;
}

/** The results of one group of `intakeMany`, every copy in it durable. */
export interface IntakeGroup {
  /** The position in `sources` of the group's first file. */
  readonly first: number;
  /** One result per file of the group, in the order of `sources`. */
  readonly results: readonly PdfCheckResult[];
}

export interface IntakeOptions {
  /** Files copied at once. */
  readonly concurrency?: number;
  /** A group is made durable once it holds this many files… */
  readonly groupFiles?: number;
  /** …or once this many bytes were copied, whichever comes first. */
  readonly groupBytes?: number;
}

/** A copy written into `incoming`, not yet in place. */
interface PendingCopy {
  readonly temporary: string;
  readonly output: OpenFile;
  /** Where it goes once durable; unset while it may still be discarded. */
  target?: string;
  closed: boolean;
  renamed: boolean;
}

/** The copies of one group on their way into place, and what a failure must clean up. */
class CopyGroup {
  /** Accepted copies to put in place, by digest. */
  readonly copies = new Map<string, PendingCopy>();
  /** Folders of every accepted file of the group (copies to put in place, and copies already there). */
  readonly folders = new Set<string>();
  /** Bytes read into the group so far. */
  bytes = 0;
  readonly #opened = new Set<PendingCopy>();

  open(temporary: string, output: OpenFile): PendingCopy {
    const copy: PendingCopy = { temporary, output, closed: false, renamed: false };
    this.#opened.add(copy);
    return copy;
  }

  /** Closes and removes a copy that is not needed (rejected, or its digest is already held). */
  async discard(copy: PendingCopy, fs: FileSystem): Promise<void> {
    this.#opened.delete(copy);
    await copy.output.close();
    await fs.rm(copy.temporary, { force: true });
  }

  /** After a failure: closes and removes every copy not yet in place (best effort). */
  async discardAll(fs: FileSystem): Promise<void> {
    for (const copy of this.#opened) {
      if (copy.renamed) continue;
      if (!copy.closed) await copy.output.close().catch(() => undefined);
      await fs.rm(copy.temporary, { force: true }).catch(() => undefined);
    }
    this.#opened.clear();
  }
}

/** Runs `work` on every item, at most `limit` at once; rejects with the first failure once all settled. */
async function eachAtOnce<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { readonly error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const item = items[next]!;
      next += 1;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}
