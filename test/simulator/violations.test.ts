import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../simulator/simulator';
import {
  JSON_HEADERS,
  callApi,
  createDraftRequest,
  createPreparedRequest,
  createSigningRequest,
  fetchJson,
  getToken,
  rawRequest,
  readRequest,
  signingRequestBody,
  uploadPdf,
} from './test-support';
import {
  violationKindOf,
  violationKinds,
  violationsOfKind,
  type ViolationKind,
} from '../../simulator/violations';

let simulator: Simulator;
let token: string;

beforeEach(async () => {
  simulator = await startSimulator();
  token = await getToken(simulator);
});

afterEach(async () => {
  await simulator.close();
});

const linesOf = (kind: ViolationKind) => violationsOfKind(simulator.state.violations(), kind);

describe('violation kinds', () => {
  it('tag every line, and records carry the kind and time', async () => {
    await fetchJson(`${simulator.baseUrl}/api/v1/nothing`, { headers: JSON_HEADERS });
    const [record] = simulator.state.violationRecords();
    expect(record).toEqual({
      kind: 'unknown-endpoint',
      text: 'unknown-endpoint: GET /api/v1/nothing is not an endpoint of the spec',
      at: expect.stringMatching(/Z$/),
    });
    expect(violationKindOf(record?.text ?? '')).toBe('unknown-endpoint');
    expect(violationKindOf('no tag here')).toBeUndefined();
    expect(violationKinds).toContain('retry-after');
  });

  it('are counted in the control API state', async () => {
    await fetchJson(`${simulator.baseUrl}/api/v1/nothing`, { headers: JSON_HEADERS });
    const state = await fetchJson(`${simulator.baseUrl}/__simulator/state`);
    expect(state.body.violationCounts).toEqual({ 'unknown-endpoint': 1 });
    expect(state.body.variant.name).toBe('reference');
  });
});

describe('unknown-endpoint', () => {
  it('flags paths and methods the spec does not define', async () => {
    await fetchJson(`${simulator.baseUrl}/api/v1/signing-requests/sr_a/cancel`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    });
    await fetchJson(`${simulator.baseUrl}/api/v1/signing-requests/sr_a`, { method: 'DELETE' });
    expect(linesOf('unknown-endpoint')).toEqual([
      'unknown-endpoint: POST /api/v1/signing-requests/sr_a/cancel is not an endpoint of the spec',
      'unknown-endpoint: DELETE /api/v1/signing-requests/sr_a is not an endpoint of the spec (the spec defines GET there)',
    ]);
  });

  it('leaves the favicon, the widget and the control API alone', async () => {
    await fetch(`${simulator.baseUrl}/favicon.ico`);
    await fetch(`${simulator.baseUrl}/widget/abc/def`);
    await fetch(`${simulator.baseUrl}/__simulator/nothing`);
    await readRequest(simulator, token, 'sr_a');
    expect(simulator.state.violations()).toEqual([]);
  });
});

describe('idempotency-key', () => {
  it('flags a creation without Idempotency-Key (still answered 400)', async () => {
    const upload = await uploadPdf(simulator, token);
    const answer = await callApi(simulator, token, 'POST', '/api/v1/signing-requests', {
      json: signingRequestBody(upload.body.upload_id as string),
    });
    expect([answer.status, answer.body.error.code]).toEqual([400, 'idempotency_key_required']);
    expect(linesOf('idempotency-key')).toEqual([
      'idempotency-key: POST /api/v1/signing-requests by demo-desk without an Idempotency-Key header',
    ]);
  });

  it('flags a key reused with a body for another contract, not a faithful replay', async () => {
    const upload = await uploadPdf(simulator, token);
    const body = signingRequestBody(upload.body.upload_id as string);
    await createSigningRequest(simulator, token, body, 'key-a');
    await createSigningRequest(simulator, token, body, 'key-a');
    expect(simulator.state.violations()).toEqual([]);
    await createSigningRequest(simulator, token, { ...body, external_reference: 'HR-OTHER' }, 'key-a');
    expect(linesOf('idempotency-key')).toEqual([
      'idempotency-key: POST /api/v1/signing-requests by demo-desk: Idempotency-Key reused with a body for another contract (key "key-a")',
    ]);
  });

  it('does not flag the same contract under its key from a second desk (another upload of the same PDF), and refuses it', async () => {
    const first = await uploadPdf(simulator, token);
    const second = await uploadPdf(simulator, token);
    expect(second.body.upload_id).not.toBe(first.body.upload_id);
    await createSigningRequest(simulator, token, signingRequestBody(first.body.upload_id as string), 'key-b');
    const again = await createSigningRequest(
      simulator,
      token,
      signingRequestBody(second.body.upload_id as string, { locale: 'de-DE' }),
      'key-b',
    );
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'idempotency_key_reused' } });
    expect(simulator.state.violations()).toEqual([]);
    expect(simulator.state.countByExternalReference()).toEqual({ 'HR-2026-001': 1 });
  });
});

describe('credentials', () => {
  it('flags client credentials and tokens in a query string, naming the parameters but never their values', async () => {
    await fetchJson(
      `${simulator.baseUrl}/oauth/token?client_id=demo-desk&client_secret=${DEMO_CLIENT.clientSecret}`,
      {
        method: 'POST',
        headers: { ...JSON_HEADERS, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=demo-desk&client_secret=demo-desk-secret',
      },
    );
    await fetchJson(`${simulator.baseUrl}/api/v1/signing-requests/sr_a?access_token=${token}`, {
      headers: JSON_HEADERS,
    });
    expect(linesOf('credentials')).toEqual([
      'credentials: POST /oauth/token with client_id, client_secret in the query string',
      'credentials: GET /api/v1/signing-requests/sr_a with access_token in the query string',
    ]);
    const everything = simulator.state.violations().join('\n');
    expect(everything).not.toContain(DEMO_CLIENT.clientSecret);
    expect(everything).not.toContain(token);
  });

  it('flags HTTP Basic on any call', async () => {
    const basic = `Basic ${Buffer.from('demo-desk:demo-desk-secret').toString('base64')}`;
    await fetchJson(`${simulator.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    await fetch(`${simulator.baseUrl}/widget/some-token`, { headers: { authorization: basic } });
    expect(linesOf('credentials')).toEqual([
      'credentials: POST /oauth/token with an Authorization: Basic header (credentials belong in the token form only)',
      'credentials: GET /widget/:token with an Authorization: Basic header (credentials belong in the token form only)',
    ]);
  });

  it('flags client_secret anywhere in a JSON body', async () => {
    const upload = await uploadPdf(simulator, token);
    const body = signingRequestBody(upload.body.upload_id as string, {
      ceremony: { mode: 'remote', auth: { client_secret: 'x' } },
    });
    expect((await createSigningRequest(simulator, token, body)).status).toBe(201);
    expect(linesOf('credentials')).toEqual([
      'credentials: POST /api/v1/signing-requests with client_secret in the JSON body (credentials belong in the token form only)',
    ]);
  });

  it('flags userinfo in an absolute-form request target, which is served by its path', async () => {
    const port = new URL(simulator.baseUrl).port;
    const answer = await rawRequest(simulator.baseUrl, {
      method: 'GET',
      path: `http://demo-desk:demo-desk-secret@127.0.0.1:${port}/api/v1/signing-requests/sr_a`,
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    });
    expect(answer.kind === 'answered' && JSON.parse(answer.text).error.code).toBe(
      'signing_request_not_found',
    );
    expect(simulator.state.violations()).toEqual([
      "credentials: GET /api/v1/signing-requests/sr_a with credentials in the request target's userinfo",
    ]);
  });

  it('leaves a client that sends credentials only in the token form alone', async () => {
    await getToken(simulator);
    const id = await createDraftRequest(simulator, token);
    await readRequest(simulator, token, id);
    expect(simulator.state.violations()).toEqual([]);
  });
});

describe('body-not-allowed', () => {
  const send = (method: string, path: string, body: string, extraHeaders: Record<string, string> = {}) =>
    rawRequest(simulator.baseUrl, {
      method,
      path,
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, ...extraHeaders },
      body,
    });

  it('flags a body on a read, which is still answered', async () => {
    const id = await createDraftRequest(simulator, token);
    // Node's client frames a GET body only with an explicit Content-Length.
    const answer = await send('GET', `/api/v1/signing-requests/${id}`, '{"x":1}', {
      'content-type': 'application/json',
      'content-length': '7',
    });
    expect(answer.kind === 'answered' && answer.status).toBe(200);
    expect(linesOf('body-not-allowed')).toEqual([
      `body-not-allowed: GET /api/v1/signing-requests/${id} by demo-desk with a request body (the spec says "No body")`,
    ]);
  });

  it('flags a body on prepare and widget-session, still answered 422', async () => {
    const draft = await createDraftRequest(simulator, token);
    const prepared = await createPreparedRequest(simulator, token);
    const prepare = await send('POST', `/api/v1/signing-requests/${draft}/prepare`, '{}');
    const widget = await send('POST', `/api/v1/signing-requests/${prepared}/widget-session`, '{}');
    expect(prepare.kind === 'answered' && prepare.status).toBe(422);
    expect(widget.kind === 'answered' && widget.status).toBe(422);
    expect(linesOf('body-not-allowed')).toEqual([
      `body-not-allowed: POST /api/v1/signing-requests/${draft}/prepare by demo-desk with a request body (the spec says "No body")`,
      `body-not-allowed: POST /api/v1/signing-requests/${prepared}/widget-session by demo-desk with a request body (the spec says "No body")`,
    ]);
  });

  it('leaves calls without a body alone, Content-Length: 0 included', async () => {
    const draft = await createDraftRequest(simulator, token);
    const prepare = await send('POST', `/api/v1/signing-requests/${draft}/prepare`, '', {
      'content-length': '0',
    });
    expect(prepare.kind === 'answered' && prepare.status).toBe(200);
    await callApi(simulator, token, 'POST', `/api/v1/signing-requests/${draft}/widget-session`);
    await readRequest(simulator, token, draft);
    expect(simulator.state.violations()).toEqual([]);
  });
});

describe('every kind has a test', () => {
  it('is listed here, so a new kind cannot slip in untested', () => {
    expect([...violationKinds].sort()).toEqual(
      [
        'accept', // http-protocol.test.ts
        'body-not-allowed',
        'credentials',
        'filename', // uploads.test.ts
        'idempotency-key',
        'read-spacing', // politeness.test.ts
        'retry-after', // politeness.test.ts
        'token-endpoint', // token-and-auth.test.ts
        'unknown-endpoint',
        'widget-link', // widget.test.ts
      ].sort(),
    );
  });
});
