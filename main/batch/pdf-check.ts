import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { MAX_PDF_BYTES, PDF_HEADER_PATTERN } from '../../shared/service/limits';

/** Why a file cannot be sent, in the service's own terms (spec §7 upload errors). */
export interface PdfProblem {
  readonly code: 'missing_pdf' | 'pdf_too_large' | 'invalid_pdf' | 'unreadable_file';
  readonly message: string;
  /** For `unreadable_file`: the system's error code (ENOENT…), for a caller that words it itself. */
  readonly systemCode?: string;
}

export interface CheckedPdf {
  readonly sha256: string;
  readonly sizeBytes: number;
}

export type PdfCheckResult =
  { readonly ok: true; readonly pdf: CheckedPdf } | { readonly ok: false; readonly problem: PdfProblem };

const HEADER_BYTES = 8;

function readProblem(error: unknown): PdfProblem {
  const code = (error as { code?: string }).code;
  const reason =
    code === 'ENOENT'
      ? 'the file does not exist'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'it is a folder, not a file'
          : `the file cannot be read (${code ?? 'unknown error'})`;
  return {
    code: 'unreadable_file',
    message: `Cannot read the file: ${reason}.`,
    ...(code === undefined ? {} : { systemCode: code }),
  };
}

/**
 * Applies the service's upload rules to a file on disk, locally and with the same outcome the
 * service would give (spec §7): not empty, at most 50 MiB, starts with a PDF header. Streams the
 * file once, computing its SHA-256, and hands every chunk to `sink` (to copy it) when given.
 * `read` opens the file: the real disk unless a test reads it from memory.
 */
export async function checkPdfFile(
  path: string,
  sink?: (chunk: Buffer) => Promise<void>,
  read: (path: string, options: { readonly highWaterMark: number }) => Readable = createReadStream,
): Promise<PdfCheckResult> {
  const hash = createHash('sha256');
  let size = 0;
  let header = Buffer.alloc(0);
  try {
    for await (const chunk of read(path, { highWaterMark: 1024 * 1024 })) {
      const bytes = chunk as Buffer;
      size += bytes.length;
      if (size > MAX_PDF_BYTES) {
        return {
          ok: false,
          problem: {
            code: 'pdf_too_large',
            message: 'The PDF is larger than 50 MiB (52,428,800 bytes), the most the service accepts.',
          },
        };
      }
      if (header.length < HEADER_BYTES) {
        header = Buffer.concat([header, bytes.subarray(0, HEADER_BYTES - header.length)]);
      }
      hash.update(bytes);
      await sink?.(bytes);
    }
  } catch (error) {
    return { ok: false, problem: readProblem(error) };
  }
  if (size === 0) return { ok: false, problem: { code: 'missing_pdf', message: 'The file is empty.' } };
  if (!PDF_HEADER_PATTERN.test(header.toString('latin1'))) {
    return {
      ok: false,
      problem: {
        code: 'invalid_pdf',
        message: 'The file is not a PDF: it does not start with a PDF header (%PDF-1.x).',
      },
    };
  }
  return { ok: true, pdf: { sha256: hash.digest('hex'), sizeBytes: size } };
}
