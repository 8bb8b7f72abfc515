import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { checkPdfFile, type PdfCheckResult } from '../batch/pdf-check';
import { syncDirectory } from './durable-fs';

/**
 * The app's private, content-addressed copies of accepted PDFs. A copy never changes after it
 * is written, so what is sent is exactly what was checked, whatever happens to the original.
 */
export class BlobStore {
  readonly #root: string;

  constructor(dataDir: string) {
    this.#root = join(dataDir, 'blobs');
  }

  /** Removes copies left half-written by a process that stopped mid-way; call it under the data folder's lock. */
  async removeUnfinishedCopies(): Promise<void> {
    await rm(join(this.#root, 'incoming'), { recursive: true, force: true });
  }

  /** Where the copy of the PDF with this digest lives. */
  pathOf(sha256: string): string {
    return join(this.#root, sha256.slice(0, 2), `${sha256}.pdf`);
  }

  /** True when a copy with this digest is present. */
  async has(sha256: string): Promise<boolean> {
    return stat(this.pathOf(sha256)).then(
      () => true,
      () => false,
    );
  }

  /**
   * Checks a PDF with the service's rules while streaming it once into a private copy, durably
   * (fsync, then rename into place). The original is only read; a rejected file leaves nothing.
   */
  async intake(sourcePath: string): Promise<PdfCheckResult> {
    const incoming = join(this.#root, 'incoming');
    await mkdir(incoming, { recursive: true });
    const temporary = join(incoming, `${randomUUID()}.part`);
    const output = await open(temporary, 'w', 0o600);
    let result: PdfCheckResult;
    try {
      result = await checkPdfFile(sourcePath, async (chunk) => {
        await output.write(chunk);
      });
      if (result.ok) await output.sync();
    } finally {
      await output.close();
    }
    if (!result.ok) {
      await rm(temporary, { force: true });
      return result;
    }
    const folder = join(this.#root, result.pdf.sha256.slice(0, 2));
    await mkdir(folder, { recursive: true });
    await rename(temporary, this.pathOf(result.pdf.sha256));
    await syncDirectory(folder);
    return result;
  }
}
