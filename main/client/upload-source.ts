import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';

/** Where the bytes of an upload come from; the caller decides (a file, a buffer, a blob store). */
export interface UploadSource {
  /**
   * A fresh stream of the whole PDF, from its first byte, each time it is called (once per
   * attempt). Its bytes must not change between calls and must total `sizeBytes`.
   */
  open(): Readable;
  readonly sizeBytes: number;
  /** The name shown to the service as `X-Filename` (the original file's name). */
  readonly filename: string;
}

/**
 * Read size of uploads from disk: large reads keep the thread pool (shared with the journal's
 * fsyncs) free while several uploads run, and bound the memory of one upload to a few chunks.
 */
export const UPLOAD_CHUNK_BYTES = 1024 * 1024;

/**
 * An upload source reading a file this process owns and that does not change while it is sent.
 * A file that vanished or changed size fails the attempt as `local_file_changed`.
 */
export function fileUploadSource(path: string, sizeBytes: number, filename: string): UploadSource {
  return {
    open: () => createReadStream(path, { highWaterMark: UPLOAD_CHUNK_BYTES }),
    sizeBytes,
    filename,
  };
}
