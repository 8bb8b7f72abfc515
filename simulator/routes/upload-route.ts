import { createHash } from 'node:crypto';
import { consumeBody, errorResponse, headerValue, type ApiResponse } from '../http-io';
import { decodeFilenameHeader, normalizeFilename } from '../normalize-filename';
import { randomId } from '../random-ids';
import type { ServiceVariant } from '../variants';
import { grantOf, type ApiCall, type ApiRoute } from './api-route';

/** 50 MiB (spec §8). */
export const MAX_PDF_BYTES = 50 * 1024 * 1024;

/**
 * `%PDF-` then a version that exists, 1.0 to 1.7 (ISO 32000-1) or 2.0 (ISO 32000-2), at the very
 * start: the first 8 bytes are all the header check needs. The app checks the same before
 * sending (shared/service/limits.ts; the simulator shares no code with it).
 */
const PDF_HEADER = /^%PDF-(?:1\.[0-7]|2\.0)$/;
const PDF_HEADER_BYTES = 8;

function pdfContentTypeProblem(contentType: string | undefined): string | undefined {
  if (contentType?.trim().toLowerCase() === 'application/pdf') return undefined;
  return `Content-Type must be exactly application/pdf, got ${contentType === undefined ? 'none' : JSON.stringify(contentType)}`;
}

function filenameFromHeader(call: ApiCall): string {
  const raw = headerValue(call.request, 'x-filename');
  // Node reads header bytes as latin-1: raw UTF-8 arrives garbled, so a client must percent-encode.
  if (raw !== undefined && /[^\x20-\x7e]/.test(raw)) {
    call.service.state.recordViolation(
      'filename',
      `${call.method} ${call.path} with a non-ASCII X-Filename header (percent-encode it as UTF-8)`,
    );
  }
  return normalizeFilename(decodeFilenameHeader(raw));
}

/**
 * Streams the PDF through a SHA-256 hash without keeping it: only its size, digest and first
 * bytes survive, so 50 MiB uploads cost no memory.
 */
async function createUpload(call: ApiCall): Promise<ApiResponse | null> {
  const { state } = call.service;
  const contentTypeProblem = pdfContentTypeProblem(headerValue(call.request, 'content-type'));
  if (contentTypeProblem) return errorResponse(415, 'invalid_content_type', contentTypeProblem);

  const hash = createHash('sha256');
  let head = Buffer.alloc(0);
  const outcome = await consumeBody(
    call.request,
    MAX_PDF_BYTES,
    (chunk) => {
      hash.update(chunk);
      if (head.length < PDF_HEADER_BYTES) {
        head = Buffer.concat([head, chunk.subarray(0, PDF_HEADER_BYTES - head.length)]);
      }
    },
    call.crossing,
  );
  if (outcome.kind === 'aborted') return null;
  if (outcome.kind === 'tooLarge') {
    return {
      ...errorResponse(413, 'pdf_too_large', `the PDF exceeds ${MAX_PDF_BYTES} bytes (50 MiB)`),
      closeConnection: !outcome.drained,
    };
  }
  if (outcome.sizeBytes === 0) return errorResponse(422, 'missing_pdf', 'the request body is empty');
  if (!PDF_HEADER.test(head.toString('latin1'))) {
    return errorResponse(
      422,
      'invalid_pdf',
      'the body does not start with a PDF header: %PDF-1.0 to %PDF-1.7, or %PDF-2.0',
    );
  }

  const now = state.clock.now();
  const upload = {
    uploadId: randomId('upl_'),
    clientId: grantOf(call).clientId,
    filename: filenameFromHeader(call),
    sha256: hash.digest('hex'),
    sizeBytes: outcome.sizeBytes,
    createdAt: now,
    expiresAt: now + state.settings.uploadTtlHours * 3_600_000,
  };
  state.uploads.set(upload.uploadId, upload);
  const { variant } = state.settings;
  return {
    status: variant.success.upload,
    body: {
      upload_id: upload.uploadId,
      filename: upload.filename,
      sha256: upload.sha256,
      size_bytes: upload.sizeBytes,
      ...reportedLifetime(variant.uploadLifetime, state.settings.uploadTtlHours),
    },
  };
}

/** `expires_in_hours` as the variant reports it: a number, a numeric string, absent, or unreadable. */
function reportedLifetime(
  form: ServiceVariant['uploadLifetime'],
  hours: number,
): { expires_in_hours?: number | string } {
  switch (form) {
    case 'number':
      return { expires_in_hours: hours };
    case 'string':
      return { expires_in_hours: String(hours) };
    case 'absent':
      return {};
    case 'unreadable':
      return { expires_in_hours: 'about a day' };
  }
}

/** `POST /api/v1/uploads` (spec §4.2). */
export const uploadRoute: ApiRoute = {
  method: 'POST',
  pattern: /^\/api\/v1\/uploads$/,
  operation: 'upload',
  auth: { scope: 'signing.create', forbiddenCode: 'insufficient_scope' },
  handle: createUpload,
};
