import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import {
  nodeFileSystem,
  type DirectoryEntry,
  type FileStats,
  type FileSystem,
  type OpenFile,
  type OpenFlags,
} from '../../main/store/file-system';

/** fsyncs counted so far: of journals (`journal.log`), and of every other file or folder. */
export interface SyncCounts {
  readonly journal: number;
  readonly other: number;
}

/** An open file of the real disk whose syncs are counted. */
class CountedFile implements OpenFile {
  readonly #file: OpenFile;
  readonly #counted: () => void;

  constructor(file: OpenFile, counted: () => void) {
    this.#file = file;
    this.#counted = counted;
  }

  write(data: string | Uint8Array): Promise<void> {
    return this.#file.write(data);
  }

  writeFile(data: string | Uint8Array): Promise<void> {
    return this.#file.writeFile(data);
  }

  datasync(): Promise<void> {
    this.#counted();
    return this.#file.datasync();
  }

  sync(): Promise<void> {
    this.#counted();
    return this.#file.sync();
  }

  truncate(length: number): Promise<void> {
    return this.#file.truncate(length);
  }

  stat(): Promise<FileStats> {
    return this.#file.stat();
  }

  close(): Promise<void> {
    return this.#file.close();
  }
}

/**
 * The real disk, counting the fsyncs the app asks of it (what a journal record costs is one
 * of them, shared or not). Passed to `openDesk` as its `fs`, so the data folder takes no lock:
 * for benchmarks, where one process owns a temporary folder.
 */
export class CountingFileSystem implements FileSystem {
  #journal = 0;
  #other = 0;

  /** The counts so far; subtract two of them to count what happened in between. */
  counts(): SyncCounts {
    return { journal: this.#journal, other: this.#other };
  }

  mkdir(path: string, options?: { readonly mode?: number }): Promise<string | undefined> {
    return nodeFileSystem.mkdir(path, options);
  }

  readFile(path: string): Promise<Buffer>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  readFile(path: string, encoding?: 'utf8'): Promise<Buffer | string> {
    return encoding === undefined ? nodeFileSystem.readFile(path) : nodeFileSystem.readFile(path, encoding);
  }

  readdir(path: string): Promise<DirectoryEntry[]> {
    return nodeFileSystem.readdir(path);
  }

  stat(path: string): Promise<FileStats> {
    return nodeFileSystem.stat(path);
  }

  async open(path: string, flags: OpenFlags, mode?: number): Promise<OpenFile> {
    const file = await nodeFileSystem.open(path, flags, mode);
    const isJournal = basename(path) === 'journal.log';
    return new CountedFile(file, () => {
      if (isJournal) this.#journal += 1;
      else this.#other += 1;
    });
  }

  rename(from: string, to: string): Promise<void> {
    return nodeFileSystem.rename(from, to);
  }

  rm(path: string, options?: { readonly recursive?: boolean; readonly force?: boolean }): Promise<void> {
    return nodeFileSystem.rm(path, options);
  }

  syncDirectory(path: string): Promise<void> {
    this.#other += 1;
    return nodeFileSystem.syncDirectory(path);
  }

  createReadStream(
    path: string,
    options: { readonly highWaterMark: number; readonly end?: number },
  ): Readable {
    return nodeFileSystem.createReadStream(path, options);
  }
}
