import { createHash } from 'node:crypto';
import { err, ok, type Result } from '../../shared/base/result';
import { englishWords, type Translator } from '../../shared/i18n/translator';
import type { PdfProblemCode } from '../../shared/ipc/error-codes';
import { MAX_PDF_BYTES, PDF_HEADER_PATTERN } from '../../shared/service/limits';
import { unreadableReason, userFiles, type ReadOptions } from './user-files';

/** Why a file cannot be sent, in the service's own terms (spec §7 upload errors). */
export interface PdfProblem {
  readonly code: PdfProblemCode;
  readonly message: string;
  /** For `unreadable_file`: the system's error code (ENOENT…), for a caller that words it itself. */
  readonly systemCode?: string;
  /** For `invalid_pdf`: what the file is instead, when its first bytes say so. */
  readonly looksLike?: NotPdfKind;
}

/** What a file that is not a PDF often is: an office document (zip or OLE container) or an image. */
export type NotPdfKind = 'office' | 'image';

/** The first bytes of the files people most often mistake for PDFs. */
const SIGNATURES: readonly { readonly kind: NotPdfKind; readonly bytes: readonly number[] }[] = [
  { kind: 'office', bytes: [0x50, 0x4b, 0x03, 0x04] }, // .docx, .xlsx, .odt: a zip
  { kind: 'office', bytes: [0xd0, 0xcf, 0x11, 0xe0] }, // .doc, .xls: an OLE container
  { kind: 'office', bytes: [0x7b, 0x5c, 0x72, 0x74, 0x66] }, // {\rtf
  { kind: 'image', bytes: [0x89, 0x50, 0x4e, 0x47] }, // PNG
  { kind: 'image', bytes: [0xff, 0xd8, 0xff] }, // JPEG
  { kind: 'image', bytes: [0x47, 0x49, 0x46, 0x38] }, // GIF8
  { kind: 'image', bytes: [0x49, 0x49, 0x2a, 0x00] }, // TIFF, little-endian
  { kind: 'image', bytes: [0x4d, 0x4d, 0x00, 0x2a] }, // TIFF, big-endian
];

/** What `head` (a file's first bytes) says the file is, when it is one of the usual mistakes. */
export function notPdfKind(head: Uint8Array): NotPdfKind | undefined {
  return SIGNATURES.find(({ bytes }) => bytes.every((byte, index) => head[index] === byte))?.kind;
}

export interface CheckedPdf {
  readonly sha256: string;
  readonly sizeBytes: number;
}

/** The checked PDF, or what is wrong with it. */
export type PdfCheckResult = Result<CheckedPdf, PdfProblem>;

const HEADER_BYTES = 8;
/**
 * Read size of a check. Small enough that each read's buffer comes from the allocator's heap: a
 * buffer of 1 MiB per read is mapped and unmapped and drives the garbage collector, which cost
 * more than the file itself for the thousands of one-page PDFs an office imports at once (1.1
 * ms a file against 0.4 ms); a 45 MiB file takes about 40 ms more.
 */
const READ_CHUNK_BYTES = 64 * 1024;

/**
 * A problem's words in `t`'s language (English unless given: the words a problem is made with).
 * A caller that shows a problem found earlier words it anew by its code.
 */
export function pdfProblemMessage(
  problem: Pick<PdfProblem, 'code' | 'systemCode' | 'looksLike'>,
  t: Translator['t'] = englishWords(),
): string {
  switch (problem.code) {
    case 'missing_pdf':
      return t('errors.pdfEmpty');
    case 'pdf_too_large':
      return t('errors.pdfTooLarge', { bytes: MAX_PDF_BYTES });
    case 'invalid_pdf':
      return problem.looksLike === 'office'
        ? t('errors.pdfInvalidOffice')
        : problem.looksLike === 'image'
          ? t('errors.pdfInvalidImage')
          : t('errors.pdfInvalid');
    case 'unreadable_file':
      return t('errors.pdfUnreadable', { reason: unreadableReason(problem.systemCode, t) });
  }
}

function problemOf(code: PdfProblem['code'], systemCode?: string): PdfProblem {
  const problem = { code, ...(systemCode === undefined ? {} : { systemCode }) };
  return { ...problem, message: pdfProblemMessage(problem) };
}

/** Why a file that cannot be read is not sent, from the error of the attempt (its `.code`). */
export function readProblem(error: unknown): PdfProblem {
  return problemOf('unreadable_file', (error as { code?: string }).code);
}

/**
 * Applies the service's upload rules to a file on disk, locally and with the same outcome the
 * service would give (spec §7): not empty, at most 50 MiB, starts with a PDF header. Streams the
 * file once, computing its SHA-256, and hands every chunk to `sink` (to copy it) when given.
 * `read` opens the file: the person's files on the real disk (regular files only, bounded in
 * time; inside `within` when given) unless a test reads it from memory.
 */
export async function checkPdfFile(
  path: string,
  sink?: (chunk: Buffer) => Promise<void>,
  read: (path: string, options: ReadOptions) => AsyncIterable<Buffer> = (source, options) =>
    userFiles.chunks(source, options),
  within?: string,
): Promise<PdfCheckResult> {
  const hash = createHash('sha256');
  let size = 0;
  let header = Buffer.alloc(0);
  try {
    for await (const bytes of read(path, {
      highWaterMark: READ_CHUNK_BYTES,
      ...(within === undefined ? {} : { within }),
    })) {
      size += bytes.length;
      if (size > MAX_PDF_BYTES) {
        return err(problemOf('pdf_too_large'));
      }
      if (header.length < HEADER_BYTES) {
        header = Buffer.concat([header, bytes.subarray(0, HEADER_BYTES - header.length)]);
      }
      hash.update(bytes);
      await sink?.(bytes);
    }
  } catch (error) {
    return err(readProblem(error));
  }
  if (size === 0) return err(problemOf('missing_pdf'));
  if (!PDF_HEADER_PATTERN.test(header.toString('latin1'))) {
    const looksLike = notPdfKind(header);
    const problem = { code: 'invalid_pdf' as const, ...(looksLike === undefined ? {} : { looksLike }) };
    return err({ ...problem, message: pdfProblemMessage(problem) });
  }
  return ok({ sha256: hash.digest('hex'), sizeBytes: size });
}
