import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../simulator/simulator';
import {
  JSON_HEADERS,
  callApi,
  createDraftRequest,
  createPreparedRequest,
  fetchJson,
  getToken,
  readRequest,
  samplePdf,
  signingRequestBody,
  uploadPdf,
} from './test-support';

let simulator: Simulator;

beforeEach(async () => {
  simulator = await startSimulator({ tokenTtlSeconds: 600 });
});

afterEach(async () => {
  await simulator.close();
});

function requestToken(form: Record<string, string>, headers: Record<string, string> = {}) {
  return fetchJson(`${simulator.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

const DEMO_FORM = {
  grant_type: 'client_credentials',
  client_id: DEMO_CLIENT.clientId,
  client_secret: DEMO_CLIENT.clientSecret,
};

describe('POST /oauth/token', () => {
  it('issues a bearer token with its lifetime and scopes', async () => {
    const answer = await requestToken(DEMO_FORM);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.body).toEqual({
      access_token: expect.stringMatching(/^sim_at_[A-Za-z0-9_-]{40,}$/),
      token_type: 'Bearer',
      expires_in: 600,
      scope: 'signing.create signing.read ceremony.create signing.cancel webhooks.manage',
    });
  });

  it('accepts a charset parameter on the form content type', async () => {
    const answer = await requestToken(DEMO_FORM, {
      'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
    });
    expect(answer.status).toBe(200);
  });

  it('refuses a JSON body with 400 invalid_request in OAuth shape', async () => {
    const answer = await fetchJson(`${simulator.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify(DEMO_FORM),
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it.each([
    ['another grant type', { ...DEMO_FORM, grant_type: 'password' }],
    ['no grant type', { client_id: DEMO_CLIENT.clientId, client_secret: DEMO_CLIENT.clientSecret }],
  ])('answers 400 unsupported_grant_type for %s', async (_label, form) => {
    const answer = await requestToken(form);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('unsupported_grant_type');
  });

  it.each([
    ['a wrong secret', { ...DEMO_FORM, client_secret: 'wrong' }],
    ['an unknown client', { ...DEMO_FORM, client_id: 'nobody' }],
    ['missing credentials', { grant_type: 'client_credentials' }],
  ])('answers 401 invalid_client for %s', async (_label, form) => {
    const answer = await requestToken(form);
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
  });

  it('refuses repeated form fields', async () => {
    const answer = await fetchJson(`${simulator.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=demo-desk&client_id=demo-desk&client_secret=demo-desk-secret',
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_request');
  });

  it('narrows the grant to a requested scope, and refuses a scope the client lacks', async () => {
    const narrowed = await requestToken({ ...DEMO_FORM, scope: 'signing.read' });
    expect(narrowed.body.scope).toBe('signing.read');
    const upload = await uploadPdf(simulator, narrowed.body.access_token as string);
    expect(upload.status).toBe(403);

    simulator.addClient({ clientId: 'reader', clientSecret: 'reader-secret', scopes: ['signing.read'] });
    const refused = await requestToken({
      grant_type: 'client_credentials',
      client_id: 'reader',
      client_secret: 'reader-secret',
      scope: 'signing.create',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_scope');
  });

  it('records a violation when a bearer token is sent to the token endpoint', async () => {
    const token = await getToken(simulator);
    const answer = await requestToken(DEMO_FORM, { authorization: `Bearer ${token}` });
    expect(answer.status).toBe(200);
    expect(simulator.state.violations()).toContain('token-endpoint: bearer token sent to /oauth/token');
  });

  it('logs the call with the authenticated client and never the secret', async () => {
    await getToken(simulator);
    const [call] = simulator.state.calls();
    expect(call).toMatchObject({
      method: 'POST',
      path: '/oauth/token',
      operation: 'token',
      status: 200,
      clientId: 'demo-desk',
      fault: null,
    });
    expect(JSON.stringify(simulator.state.calls())).not.toContain(DEMO_CLIENT.clientSecret);
  });
});

describe('bearer authentication of /api/v1', () => {
  async function expectInvalidToken(authorization: string | undefined) {
    const answer = await fetchJson(`${simulator.baseUrl}/api/v1/signing-requests/sr_unknown`, {
      headers: { ...JSON_HEADERS, ...(authorization === undefined ? {} : { authorization }) },
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(answer.body).toEqual({ error: { code: 'invalid_token', message: expect.any(String) } });
  }

  it('answers 401 invalid_token without a token', async () => {
    await expectInvalidToken(undefined);
  });

  it('answers 401 invalid_token for an unknown token or another scheme', async () => {
    await expectInvalidToken('Bearer sim_at_made_up');
    await expectInvalidToken(`Basic ${Buffer.from('demo-desk:demo-desk-secret').toString('base64')}`);
  });

  it('expires tokens by the simulator clock', async () => {
    const token = await getToken(simulator);
    simulator.clock.advance(599_000);
    expect((await readRequest(simulator, token, 'sr_unknown')).status).toBe(404);
    simulator.clock.advance(1_000);
    await expectInvalidToken(`Bearer ${token}`);
    const renewed = await getToken(simulator);
    expect((await readRequest(simulator, renewed, 'sr_unknown')).status).toBe(404);
  });

  it('invalidates every issued token on revokeTokens, while new ones work', async () => {
    const token = await getToken(simulator);
    simulator.revokeTokens();
    await expectInvalidToken(`Bearer ${token}`);
    const fresh = await getToken(simulator);
    expect((await readRequest(simulator, fresh, 'sr_unknown')).status).toBe(404);
  });

  it('accepts the scheme name in any case', async () => {
    const token = await getToken(simulator);
    const answer = await fetchJson(`${simulator.baseUrl}/api/v1/signing-requests/sr_unknown`, {
      headers: { ...JSON_HEADERS, authorization: `bearer ${token}` },
    });
    expect(answer.status).toBe(404);
  });
});

describe('scopes (spec §5)', () => {
  const readerOnly = { clientId: 'reader', clientSecret: 'reader-secret', scopes: ['signing.read' as const] };
  const creatorOnly = {
    clientId: 'creator',
    clientSecret: 'creator-secret',
    scopes: ['signing.create' as const, 'signing.read' as const],
  };

  it('answers 403 insufficient_scope for upload and create without signing.create', async () => {
    simulator.addClient(readerOnly);
    const token = await getToken(simulator, readerOnly);
    const upload = await fetchJson(`${simulator.baseUrl}/api/v1/uploads`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'content-type': 'application/pdf' },
      body: new Uint8Array(samplePdf()),
    });
    expect(upload.status).toBe(403);
    expect(upload.body.error.code).toBe('insufficient_scope');
    const create = await callApi(simulator, token, 'POST', '/api/v1/signing-requests', {
      json: signingRequestBody('upl_x'),
      headers: { 'idempotency-key': 'k1' },
    });
    expect(create.status).toBe(403);
    expect(create.body.error.code).toBe('insufficient_scope');
  });

  it('answers 403 insufficient_scope for reading without signing.read', async () => {
    const writer = { clientId: 'writer', clientSecret: 'writer-secret', scopes: ['signing.create' as const] };
    simulator.addClient(writer);
    const token = await getToken(simulator, writer);
    const answer = await readRequest(simulator, token, 'sr_any');
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('insufficient_scope');
  });

  it('answers the operation-specific 403 codes without ceremony.create', async () => {
    const demoToken = await getToken(simulator);
    const id = await createPreparedRequest(simulator, demoToken);
    simulator.addClient(creatorOnly);
    const token = await getToken(simulator, creatorOnly);
    const base = `/api/v1/signing-requests/${id}`;
    const participant = await callApi(simulator, token, 'POST', `${base}/participants`, {
      json: { participant_type: 'signer', role: 'Witness', name: 'Cleo', email: 'cleo@example.com' },
    });
    expect([participant.status, participant.body.error.code]).toEqual([403, 'participant_forbidden']);
    const prepare = await callApi(simulator, token, 'POST', `${base}/prepare`);
    expect([prepare.status, prepare.body.error.code]).toEqual([403, 'prepare_forbidden']);
    const widget = await callApi(simulator, token, 'POST', `${base}/widget-session`);
    expect([widget.status, widget.body.error.code]).toEqual([403, 'widget_session_forbidden']);
  });

  it('lets a client added at run time authenticate', async () => {
    simulator.addClient(creatorOnly);
    const token = await getToken(simulator, creatorOnly);
    const id = await createDraftRequest(simulator, token);
    expect(simulator.state.requests().find((request) => request.id === id)?.clientId).toBe('creator');
  });
});
