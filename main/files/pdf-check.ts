import { createHash } from 'node:crypto';
import { err, ok, type Result } from '../../shared/base/result';
import { englishWords, type Translator } from '../../shared/i18n/translator';
import type { PdfProblemCode } from '../../shared/ipc/error-codes';
import { MAX_PDF_BYTES, PDF_HEADER_PATTERN } from '../../shared/service/limits';
import { unreadableReason, userFiles, type OpenUserFile, type UserFileOptions } from './user-files';

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

/** How a check opens a file: the person's files on the real disk, unless a test says otherwise. */
export type OpenPdfFile = (path: string, options: UserFileOptions) => Promise<OpenUserFile>;

/**
 * The checks of one operation (a manifest's PDFs, the files added at once), by file: two names of
 * one file (a hard link, a path through another folder's name) share one check, so it is read once
 * and both names get the same answer.
 */
export type SameFileChecks = Map<string, Promise<PdfCheckResult>>;

export interface PdfCheckOptions {
  /**
   * Gets every chunk of the file once its size and header passed, to copy it. A failure of the
   * sink (the data folder's disk) rejects the check: it says nothing about the person's file.
   */
  readonly sink?: (chunk: Buffer) => Promise<void>;
  /** Opens the file: by default the person's files on the real disk (regular files only, bounded in time). */
  readonly open?: OpenPdfFile;
  /** The file must be inside this folder once its links are resolved (a manifest's PDF). */
  readonly within?: string;
  /** The path and `within` are already resolved (see {@link UserFileOptions.resolved}). */
  readonly resolved?: boolean;
  /** The checks made so far in this operation: a file already checked under another name is not read again. */
  readonly sameFiles?: SameFileChecks;
}

/**
 * Applies the service's upload rules to a file on disk, locally and with the same outcome the
 * service would give (spec §7): not empty, at most 50 MiB, starts with a PDF header. The file is
 * opened once; a file over the limit by its size (`fstat`) is refused before a byte is read, one
 * with another header after its first bytes; only then is the rest read, once, computing its
 * SHA-256 and handing every chunk to `sink` when given. A file `sameFiles` already holds (by
 * device and inode) is not read again: it gets that check's answer, and `sink` nothing.
 */
export async function checkPdfFile(path: string, options: PdfCheckOptions = {}): Promise<PdfCheckResult> {
  const open = options.open ?? ((source, openOptions) => userFiles.open(source, openOptions));
  let file: OpenUserFile;
  try {
    file = await open(path, {
      ...(options.within === undefined ? {} : { within: options.within }),
      ...(options.resolved === undefined ? {} : { resolved: options.resolved }),
    });
  } catch (error) {
    return err(readProblem(error));
  }
  // Registered before any wait, so a name opened meanwhile finds this check.
  const earlier = options.sameFiles?.get(file.identity);
  if (earlier !== undefined) {
    await file.close();
    return earlier;
  }
  const check = readAndCheck(file, options.sink).finally(() => file.close());
  options.sameFiles?.set(file.identity, check);
  return check;
}

/** The size and header of an open file, then its digest, its bytes handed to `sink`. */
async function readAndCheck(
  file: OpenUserFile,
  sink: ((chunk: Buffer) => Promise<void>) | undefined,
): Promise<PdfCheckResult> {
  if (file.size > MAX_PDF_BYTES) return err(problemOf('pdf_too_large'));
  const chunks: Buffer[] = [];
  let size = 0;
  // The header first, so that a file of another kind is refused without reading the rest.
  try {
    while (size < HEADER_BYTES) {
      const chunk = await file.read(HEADER_BYTES - size);
      if (chunk.length === 0) break;
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (error) {
    return err(readProblem(error));
  }
  if (size === 0) return err(problemOf('missing_pdf'));
  const header = Buffer.concat(chunks, size);
  if (!PDF_HEADER_PATTERN.test(header.toString('latin1'))) {
    const looksLike = notPdfKind(header);
    const problem = { code: 'invalid_pdf' as const, ...(looksLike === undefined ? {} : { looksLike }) };
    return err({ ...problem, message: pdfProblemMessage(problem) });
  }
  const hash = createHash('sha256');
  for (let chunk: Buffer = header; chunk.length > 0;) {
    hash.update(chunk);
    await sink?.(chunk);
    try {
      chunk = await file.read(READ_CHUNK_BYTES);
    } catch (error) {
      return err(readProblem(error));
    }
    size += chunk.length;
    // A file that grew past the limit since its size was read.
    if (size > MAX_PDF_BYTES) return err(problemOf('pdf_too_large'));
  }
  return ok({ sha256: hash.digest('hex'), sizeBytes: size });
}
