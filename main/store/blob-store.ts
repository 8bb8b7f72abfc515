import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { checkPdfFile, type PdfCheckResult } from '../batch/pdf-check';
import { userFiles, type UserFiles } from '../batch/user-files';
import { makeDirectoryDurable } from './durable-fs';
import { nodeFileSystem, type FileSystem } from './file-system';

/** Read size of a stored copy: large reads bound the memory of an upload to a few chunks. */
const READ_CHUNK_BYTES = 1024 * 1024;

export interface BlobStoreOptions {
  /** Where the data folder lives: the real disk unless a test says otherwise. */
  readonly fs?: FileSystem;
  /**
   * Where the user's original files are read from: the real disk, by the rules for the person's
   * files (main/batch/user-files.ts). A test may read them from memory, so that a seeded run
   * replays the same interleaving of operations.
   */
  readonly originals?: Pick<UserFiles, 'createReadStream'>;
}

/**
 * The app's private, content-addressed copies of accepted PDFs. A copy never changes after it
 * is written, so what is sent is exactly what was checked, whatever happens to the original.
 */
export class BlobStore {
  readonly #root: string;
  readonly #fs: FileSystem;
  readonly #originals: Pick<UserFiles, 'createReadStream'>;
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
   * store's file system. A missing copy is an error of the stream (ENOENT).
   */
  openRead(sha256: string): Readable {
    return this.#fs.createReadStream(this.pathOf(sha256), { highWaterMark: READ_CHUNK_BYTES });
  }

  /**
   * Checks a PDF with the service's rules while streaming it once into a private copy, durably
   * (fsync, then rename into place, then fsync the folder). The original is only read; a
   * rejected file leaves nothing. Once this resolves, the copy survives a power cut. With
   * `within`, the file must be inside that folder once its links are resolved (a manifest's PDF).
   */
  async intake(sourcePath: string, within?: string): Promise<PdfCheckResult> {
    // The copies' folder must be durable, the whole path once per process, since a process
    // that died may have left it unsynced; `incoming` is scratch space and need not be.
    this.#rootMadeDurable ??= makeDirectoryDurable(this.#root, this.#fs, { wholePath: true }).catch(
      (error: unknown) => {
        this.#rootMadeDurable = undefined;
        throw error;
      },
    );
    await this.#rootMadeDurable;
    const incoming = join(this.#root, 'incoming');
    await this.#fs.mkdir(incoming);
    const temporary = join(incoming, `${randomUUID()}.part`);
    const output = await this.#fs.open(temporary, 'w', 0o600);
    let result: PdfCheckResult;
    try {
      result = await checkPdfFile(
        sourcePath,
        async (chunk) => {
          await output.write(chunk);
        },
        (path, options) => this.#originals.createReadStream(path, options),
        within,
      );
      if (result.ok) await output.sync();
    } catch (error) {
      await output.close().catch(() => undefined);
      await this.#fs.rm(temporary, { force: true }).catch(() => undefined);
      throw error;
    }
    await output.close();
    if (!result.ok) {
      await this.#fs.rm(temporary, { force: true });
      return result;
    }
    const folder = join(this.#root, result.pdf.sha256.slice(0, 2));
    await makeDirectoryDurable(folder, this.#fs);
    await this.#fs.rename(temporary, this.pathOf(result.pdf.sha256));
    await this.#fs.syncDirectory(folder);
    return result;
  }
}
