import { collectBody, headerValue, mediaType, oauthErrorResponse } from '../http-io';
import { ALL_SCOPES, type Scope } from '../types';
import type { ApiCall, ApiRoute } from './api-route';

const MAX_FORM_BYTES = 64 * 1024;
const SINGLE_VALUED_FIELDS = ['grant_type', 'client_id', 'client_secret', 'scope'];

function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

async function issueToken(call: ApiCall) {
  const { state, tokens } = call.service;
  if (/^bearer\s/i.test(headerValue(call.request, 'authorization') ?? '')) {
    state.recordViolation('token-endpoint', 'bearer token sent to /oauth/token');
  }
  if (mediaType(headerValue(call.request, 'content-type')) !== 'application/x-www-form-urlencoded') {
    return oauthErrorResponse(
      400,
      'invalid_request',
      'Content-Type must be application/x-www-form-urlencoded',
    );
  }
  const body = await collectBody(call.request, MAX_FORM_BYTES);
  if (body.kind === 'aborted') return null;
  if (body.kind === 'tooLarge') {
    return {
      ...oauthErrorResponse(400, 'invalid_request', 'the form is too large'),
      closeConnection: !body.drained,
    };
  }
  const form = new URLSearchParams(body.bytes.toString('utf8'));
  const formClientId = form.get('client_id');
  if (formClientId) call.noteFormClient(formClientId);
  const repeated = SINGLE_VALUED_FIELDS.find((field) => form.getAll(field).length > 1);
  if (repeated) return oauthErrorResponse(400, 'invalid_request', `${repeated} must appear once`);
  if (form.get('grant_type') !== 'client_credentials') {
    return oauthErrorResponse(400, 'unsupported_grant_type', 'grant_type must be client_credentials');
  }
  const client = state.authenticateClient(form.get('client_id') ?? '', form.get('client_secret') ?? '');
  if (!client) {
    return oauthErrorResponse(
      401,
      'invalid_client',
      'client_id and client_secret form fields do not match a client',
    );
  }
  call.identifyClient(client.clientId);
  // An optional `scope` narrows the grant (RFC 6749 §3.3); asking beyond the client's scopes fails.
  const requested = (form.get('scope') ?? '').split(' ').filter((scope) => scope !== '');
  const unknownScope = requested.find((scope) => !isScope(scope) || !client.scopes.includes(scope));
  if (unknownScope !== undefined) {
    return oauthErrorResponse(400, 'invalid_scope', `scope ${unknownScope} is not granted to this client`);
  }
  const scopes = requested.length > 0 ? requested.filter(isScope) : client.scopes;
  return {
    status: 200,
    body: {
      access_token: tokens.issue(client.clientId, scopes),
      token_type: 'Bearer',
      ...(state.settings.variant.token.reportsExpiresIn ? { expires_in: tokens.ttlSeconds } : {}),
      scope: scopes.join(' '),
    },
    headers: { pragma: 'no-cache' },
  };
}

/** `POST /oauth/token`: the client-credentials grant (spec §4.1), errors in OAuth shape. */
export const tokenRoute: ApiRoute = {
  method: 'POST',
  pattern: /^\/oauth\/token$/,
  operation: 'token',
  auth: null,
  handle: issueToken,
};
