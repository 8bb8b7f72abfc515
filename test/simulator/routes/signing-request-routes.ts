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
import type { StoredSigningRequest } from '../service-state';
import { grantOf, signingRequestNotFound, type ApiCall, type ApiRoute } from './api-route';
import { jsonContentTypeProblem, readJsonObject } from './json-body';

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

/**
 * Idempotency comes first, right after authentication and JSON parsing: a replay answers the
 * original creation even when the body would no longer validate (its upload expired).
 * Keys are remembered only when a request is created.
 */
async function createSigningRequest(call: ApiCall): Promise<ApiResponse | null> {
  const { state } = call.service;
  const clientId = grantOf(call).clientId;
  const contentTypeProblem = jsonContentTypeProblem(call);
  if (contentTypeProblem) return contentTypeProblem;
  const key = headerValue(call.request, 'idempotency-key');
  if (key === undefined || key === '') {
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
  if (earlier) {
    if (earlier.canonicalBody !== canonicalBody) {
      state.recordViolation(`${call.method} ${call.path}: Idempotency-Key reused with a different body`);
      return errorResponse(
        409,
        'idempotency_key_reused',
        'this Idempotency-Key was used with a different body',
      );
    }
    return { status: 200, body: { ...earlier.createdResponse, idempotent_replay: true } };
  }

  const parsed = createSigningRequestSchema.safeParse(body.value);
  if (!parsed.success) return errorResponse(422, 'invalid_signing_request', describeIssues(parsed.error));
  const duplicate = duplicateEmailProblem(parsed.data.recipients);
  if (duplicate) return errorResponse(422, 'invalid_signing_request', duplicate);
  const upload = state.uploads.get(parsed.data.document.upload_id);
  if (!upload || upload.clientId !== clientId) {
    return errorResponse(422, 'upload_not_found', 'document.upload_id: no such upload for this client');
  }
  if (state.isUploadExpired(upload)) {
    return errorResponse(
      422,
      'upload_expired',
      'document.upload_id: the upload has expired; upload the PDF again',
    );
  }

  const request = storeRequest(call, parsed.data, key);
  const createdResponse = creationResponse(request);
  state.rememberIdempotencyKey(clientId, key, { canonicalBody, requestId: request.id, createdResponse });
  return { status: 201, body: { ...createdResponse, idempotent_replay: false } };
}

async function readSigningRequest(call: ApiCall): Promise<ApiResponse> {
  const { state } = call.service;
  const request = state.requestOf(grantOf(call).clientId, call.params.id ?? '');
  if (!request) return signingRequestNotFound();
  const optionalIso = (ms: number | null) => (ms === null ? null : isoTimestamp(ms));
  return {
    status: 200,
    body: {
      id: request.id,
      external_reference: request.externalReference,
      transaction_type: request.transactionType,
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
