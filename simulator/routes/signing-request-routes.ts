import { isoTimestamp } from '../clock';
import { canonicalJson } from '../canonical-json';
import { errorResponse, headerValue, type ApiResponse } from '../http-io';
import { randomId } from '../random-ids';
import {
  createSigningRequestSchema,
  describeIssues,
  duplicateEmailProblem,
  type CreateSigningRequestInput,
} from '../request-schemas';
import type { IdempotencyEntry, StoredSigningRequest } from '../service-state';
import { grantOf, signingRequestNotFound, type ApiCall, type ApiRoute } from './api-route';
import { jsonContentTypeProblem, readJsonObject } from './json-body';
import { noteAnyBody } from './no-body';

const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

function creationResponse(request: StoredSigningRequest): Record<string, unknown> {
  return {
    id: request.id,
    external_reference: request.externalReference,
    transaction_type: request.transactionType,
    submission_status: 'accepted',
  };
}

function storeRequest(call: ApiCall, input: CreateSigningRequestInput, key: string): StoredSigningRequest {
  const { state } = call.service;
  const upload = state.uploads.get(input.document.upload_id);
  if (!upload) throw new Error('storeRequest called without a checked upload');
  const request: StoredSigningRequest = {
    id: randomId('sr_'),
    clientId: grantOf(call).clientId,
    externalReference: input.external_reference,
    transactionType: input.transaction_type ?? null,
    idempotencyKey: key,
    uploadId: upload.uploadId,
    uploadSha256: upload.sha256,
    filename: upload.filename,
    enforceOrder: input.signing?.enforce_order ?? false,
    ownerMustSign: input.signing?.owner?.must_sign ?? null,
    ceremonyMode: input.ceremony?.mode ?? null,
    meetingProvider: input.ceremony?.meeting_provider ?? null,
    evidenceLevel: input.evidence_level ?? null,
    locale: input.locale ?? null,
    status: 'draft',
    documentStatus: 'pending',
    revision: null,
    documentSha256: null,
    participants: input.recipients.map((recipient) => ({
      participantId: randomId('par_'),
      participantType: recipient.participant_type,
      isInternal: recipient.is_internal ?? false,
      role: recipient.role,
      name: recipient.name,
      email: recipient.email,
      signingOrder: recipient.signing_order ?? null,
      addedLater: false,
      signedAt: null,
    })),
    createdAt: state.clock.now(),
    preparedAt: null,
    openedAt: null,
    finalizedAt: null,
  };
  state.requests.set(request.id, request);
  return request;
}

/** The variant's answer when the upload is unknown, another client's, or expired; undefined when usable. */
function uploadProblem(call: ApiCall, uploadId: string): ApiResponse | undefined {
  const { state } = call.service;
  const { uploadUnknown, uploadExpired } = state.settings.variant;
  const upload = state.uploads.get(uploadId);
  if (!upload || upload.clientId !== grantOf(call).clientId) {
    return errorResponse(
      uploadUnknown.status,
      uploadUnknown.code,
      'document.upload_id: no such upload for this client',
    );
  }
  if (state.isUploadExpired(upload)) {
    return errorResponse(
      uploadExpired.status,
      uploadExpired.code,
      'document.upload_id: the upload has expired; upload the PDF again',
    );
  }
  return undefined;
}

/** The body is validated: the 422 answer, or the parsed input. */
function validateCreation(
  value: Record<string, unknown>,
): { ok: true; input: CreateSigningRequestInput } | { ok: false; answer: ApiResponse } {
  const parsed = createSigningRequestSchema.safeParse(value);
  if (!parsed.success) {
    return { ok: false, answer: errorResponse(422, 'invalid_signing_request', describeIssues(parsed.error)) };
  }
  const duplicate = duplicateEmailProblem(parsed.data.recipients);
  if (duplicate) return { ok: false, answer: errorResponse(422, 'invalid_signing_request', duplicate) };
  return { ok: true, input: parsed.data };
}

/**
 * A creation's success as the variant answers it: the body, or no body with the request named
 * by `Location` (absolute or relative, by the request's id), or no body at all on the first
 * answer (a replay then says it).
 */
function creationAnswer(
  call: ApiCall,
  status: number,
  body: Record<string, unknown>,
  replay: boolean,
): ApiResponse {
  const { createAnswer } = call.service.state.settings.variant;
  if (createAnswer === 'body' || (createAnswer === 'bare-then-replay' && replay)) return { status, body };
  if (createAnswer === 'bare-then-replay') return { status, body: null, empty: true };
  const id = String(body.id);
  const path = `/api/v1/signing-requests/${encodeURIComponent(id)}`;
  // Both spellings occur in the wild: a path, or the whole URL of this very service.
  const location = id.charCodeAt(id.length - 1) % 2 === 0 ? path : `${call.service.baseUrl()}${path}`;
  return { status, body: null, empty: true, headers: { location } };
}

/** The answer a remembered key gives: a replay, or the variant's answer when the body differs. */
function keyAnswer(call: ApiCall, earlier: IdempotencyEntry, canonicalBody: string): ApiResponse {
  const { success, keyReuse } = call.service.state.settings.variant;
  if (earlier.canonicalBody !== canonicalBody && keyReuse !== 'replay') {
    return errorResponse(
      keyReuse.status,
      keyReuse.code,
      'this Idempotency-Key was used with a different body',
    );
  }
  const status = success.replay === 'same' ? success.create : 200;
  return creationAnswer(call, status, { ...earlier.createdResponse, idempotent_replay: true }, true);
}

/**
 * True when a body reused under a key creates another contract than the key's first body
 * (another reference, or another PDF): a client bug. The same contract with another upload of
 * the same PDF, its recipients as written then, is what a second data folder or desk sends
 * under a key derived from the contract.
 */
function anotherContract(call: ApiCall, earlier: IdempotencyEntry, body: Record<string, unknown>): boolean {
  const { state } = call.service;
  const first = state.requests.get(earlier.requestId);
  const document = body.document as { upload_id?: unknown } | undefined;
  const upload = typeof document?.upload_id === 'string' ? state.uploads.get(document.upload_id) : undefined;
  return (
    !first || body.external_reference !== first.externalReference || upload?.sha256 !== first.uploadSha256
  );
}

/**
 * The variant's check order. 'key-first' (the reference): right after authentication and
 * JSON parsing, a known key answers its replay even when the body would no longer validate
 * (its upload expired). 'upload-first': the body and its upload are checked first (an expired
 * upload is refused even when the key would replay), then the key. Keys are remembered only
 * when a request is created, and forgotten after the variant's retention. A key reused with
 * another body is recorded whichever answer the order gives.
 */
async function createSigningRequest(call: ApiCall): Promise<ApiResponse | null> {
  const { state } = call.service;
  const clientId = grantOf(call).clientId;
  const contentTypeProblem = jsonContentTypeProblem(call);
  if (contentTypeProblem) return contentTypeProblem;
  const key = headerValue(call.request, 'idempotency-key');
  if (key === undefined || key === '') {
    state.recordViolation(
      'idempotency-key',
      `${call.method} ${call.path} by ${clientId} without an Idempotency-Key header`,
    );
    return errorResponse(400, 'idempotency_key_required', 'the Idempotency-Key header is required');
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    return errorResponse(
      400,
      'invalid_idempotency_key',
      'Idempotency-Key must be 1 to 255 printable ASCII characters',
    );
  }
  const body = await readJsonObject(call, 'invalid_signing_request');
  if (!body.ok) return body.answer;

  const canonicalBody = canonicalJson(body.value);
  const earlier = state.idempotencyEntry(clientId, key);
  if (earlier && earlier.canonicalBody !== canonicalBody && anotherContract(call, earlier, body.value)) {
    state.recordViolation(
      'idempotency-key',
      `${call.method} ${call.path} by ${clientId}: Idempotency-Key reused with a body for another contract (key ${JSON.stringify(key)})`,
    );
  }
  const keyFirst = state.settings.variant.checkOrder === 'key-first';
  if (earlier && keyFirst) return keyAnswer(call, earlier, canonicalBody);

  const validated = validateCreation(body.value);
  if (!validated.ok) return validated.answer;
  const uploadRefusal = uploadProblem(call, validated.input.document.upload_id);
  if (uploadRefusal) return uploadRefusal;
  if (earlier) return keyAnswer(call, earlier, canonicalBody);

  const request = storeRequest(call, validated.input, key);
  const createdResponse = creationResponse(request);
  state.rememberIdempotencyKey(clientId, key, {
    canonicalBody,
    requestId: request.id,
    createdResponse,
    createdAt: state.clock.now(),
  });
  return creationAnswer(
    call,
    state.settings.variant.success.create,
    { ...createdResponse, idempotent_replay: false },
    false,
  );
}

async function readSigningRequest(call: ApiCall): Promise<ApiResponse | null> {
  const body = await noteAnyBody(call);
  if (body.kind === 'aborted') return null;
  const closeConnection = body.kind === 'present' && body.undrained;
  const { state } = call.service;
  const request = state.requestOf(grantOf(call).clientId, call.params.id ?? '');
  if (!request) return { ...signingRequestNotFound(), closeConnection };
  const optionalIso = (ms: number | null) => (ms === null ? null : isoTimestamp(ms));
  const echo =
    state.settings.variant.readFields === 'full'
      ? { external_reference: request.externalReference, transaction_type: request.transactionType }
      : {};
  return {
    status: state.settings.variant.success.read,
    closeConnection,
    body: {
      id: request.id,
      ...echo,
      submission_status: 'accepted',
      status: request.status,
      document: { status: request.documentStatus },
      evidence: { ready: state.isEvidenceReady(request) },
      prepared_at: optionalIso(request.preparedAt),
      opened_at: optionalIso(request.openedAt),
      finalized_at: optionalIso(request.finalizedAt),
    },
  };
}

/** `POST /api/v1/signing-requests` (spec §4.3). */
export const createSigningRequestRoute: ApiRoute = {
  method: 'POST',
  pattern: /^\/api\/v1\/signing-requests$/,
  operation: 'createSigningRequest',
  auth: { scope: 'signing.create', forbiddenCode: 'insufficient_scope' },
  handle: createSigningRequest,
};

/** `GET /api/v1/signing-requests/{id}` (spec §4.4). */
export const readSigningRequestRoute: ApiRoute = {
  method: 'GET',
  pattern: /^\/api\/v1\/signing-requests\/(?<id>[^/]+)$/,
  operation: 'readSigningRequest',
  auth: { scope: 'signing.read', forbiddenCode: 'insufficient_scope' },
  handle: readSigningRequest,
};
