import { createHash } from 'node:crypto';
import { hasSigner, isSignable } from '../ceremony';
import { errorResponse, type ApiResponse } from '../http-io';
import { randomId, randomSecret } from '../random-ids';
import { describeIssues, participantSchema } from '../request-schemas';
import type { StoredParticipant } from '../service-state';
import { grantOf, signingRequestNotFound, type ApiCall, type ApiRoute } from './api-route';
import { jsonContentTypeProblem, readJsonObject } from './json-body';
import { refuseAnyBody } from './no-body';

const SIGNING_REQUEST_PATH = String.raw`^\/api\/v1\/signing-requests\/(?<id>[^/]+)`;

function requestFor(call: ApiCall) {
  return call.service.state.requestOf(grantOf(call).clientId, call.params.id ?? '');
}

async function addParticipant(call: ApiCall): Promise<ApiResponse | null> {
  const request = requestFor(call);
  if (!request) return signingRequestNotFound();
  const contentTypeProblem = jsonContentTypeProblem(call);
  if (contentTypeProblem) return contentTypeProblem;
  const body = await readJsonObject(call, 'invalid_participant_request');
  if (!body.ok) return body.answer;
  const parsed = participantSchema.safeParse(body.value);
  if (!parsed.success) return errorResponse(422, 'invalid_participant_request', describeIssues(parsed.error));
  if (request.status !== 'draft') {
    return errorResponse(
      409,
      'participant_conflict',
      `participants cannot be added once the request is ${request.status}`,
    );
  }
  const email = parsed.data.email.toLowerCase();
  if (request.participants.some((participant) => participant.email.toLowerCase() === email)) {
    return errorResponse(409, 'participant_conflict', 'email: already a participant of this signing request');
  }
  const participant: StoredParticipant = {
    participantId: randomId('par_'),
    participantType: parsed.data.participant_type,
    isInternal: parsed.data.is_internal ?? false,
    role: parsed.data.role,
    name: parsed.data.name,
    email: parsed.data.email,
    signingOrder: parsed.data.signing_order ?? null,
    addedLater: true,
    signedAt: null,
  };
  request.participants.push(participant);
  const { variant } = call.service.state.settings;
  return {
    status: variant.success.participant,
    empty: variant.emptyBodies,
    body: {
      id: request.id,
      participant: {
        participant_id: participant.participantId,
        participant_type: participant.participantType,
        is_internal: participant.isInternal,
        role: participant.role,
        name: participant.name,
        email: participant.email,
        signing_order: participant.signingOrder,
      },
    },
  };
}

async function prepare(call: ApiCall): Promise<ApiResponse | null> {
  const refused = await refuseAnyBody(call, 'invalid_prepare_request');
  if (refused !== undefined) return refused;
  const request = requestFor(call);
  if (!request) return signingRequestNotFound();
  if (request.status !== 'draft') {
    return errorResponse(409, 'prepare_conflict', `the request is already ${request.status}`);
  }
  if (!hasSigner(request)) {
    return errorResponse(
      422,
      'invalid_prepare_request',
      'the request has no signer; add one before preparing',
    );
  }
  request.status = 'prepared';
  request.documentStatus = 'prepared';
  request.revision = 1;
  request.documentSha256 = createHash('sha256').update(`${request.uploadSha256}:${request.id}`).digest('hex');
  request.preparedAt = call.service.state.clock.now();
  const { variant } = call.service.state.settings;
  return {
    status: variant.success.prepare,
    empty: variant.emptyBodies,
    body: {
      id: request.id,
      status: request.status,
      document: { revision: request.revision, sha256: request.documentSha256 },
    },
  };
}

async function createWidgetSession(call: ApiCall): Promise<ApiResponse | null> {
  const refused = await refuseAnyBody(call, 'invalid_widget_session_request');
  if (refused !== undefined) return refused;
  const request = requestFor(call);
  if (!request) return signingRequestNotFound();
  if (request.status === 'draft') {
    return errorResponse(
      409,
      'signing_request_not_ready',
      'prepare the signing request before opening a ceremony',
    );
  }
  if (request.status === 'completed') {
    return errorResponse(409, 'widget_session_conflict', 'the ceremony is already completed');
  }
  if (!isSignable(request)) {
    return errorResponse(409, 'widget_session_conflict', `the request is ${request.status}`);
  }
  const { state } = call.service;
  const token = randomSecret();
  const ttlSeconds = state.settings.widgetTtlSeconds;
  state.widgetSessions.set(token, {
    requestId: request.id,
    expiresAt: state.clock.now() + ttlSeconds * 1000,
  });
  return {
    status: state.settings.variant.success.widget,
    body: {
      id: request.id,
      widget_url: `${call.service.baseUrl()}/widget/${token}`,
      expires_in_seconds: ttlSeconds,
    },
  };
}

/** `POST /api/v1/signing-requests/{id}/participants` (spec §4.5). */
export const addParticipantRoute: ApiRoute = {
  method: 'POST',
  pattern: new RegExp(`${SIGNING_REQUEST_PATH}\\/participants$`),
  operation: 'addParticipant',
  auth: { scope: 'ceremony.create', forbiddenCode: 'participant_forbidden' },
  handle: addParticipant,
};

/** `POST /api/v1/signing-requests/{id}/prepare` (spec §4.6). */
export const prepareRoute: ApiRoute = {
  method: 'POST',
  pattern: new RegExp(`${SIGNING_REQUEST_PATH}\\/prepare$`),
  operation: 'prepare',
  auth: { scope: 'ceremony.create', forbiddenCode: 'prepare_forbidden' },
  handle: prepare,
};

/** `POST /api/v1/signing-requests/{id}/widget-session` (spec §4.7). */
export const widgetSessionRoute: ApiRoute = {
  method: 'POST',
  pattern: new RegExp(`${SIGNING_REQUEST_PATH}\\/widget-session$`),
  operation: 'createWidgetSession',
  auth: { scope: 'ceremony.create', forbiddenCode: 'widget_session_forbidden' },
  handle: createWidgetSession,
};
