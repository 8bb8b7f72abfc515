import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import { callApi, createDraftRequest, createPreparedRequest, getToken, readRequest } from './test-support';

let simulator: Simulator;
let token: string;

beforeEach(async () => {
  simulator = await startSimulator({ widgetTtlSeconds: 300 });
  token = await getToken(simulator);
});

afterEach(async () => {
  await simulator.close();
});

const path = (id: string, operation: string) => `/api/v1/signing-requests/${id}/${operation}`;
const witness = {
  participant_type: 'signer',
  role: 'Witness',
  name: 'Cleo Dubois',
  email: 'cleo@example.com',
};

describe('POST /api/v1/signing-requests/{id}/participants', () => {
  it('answers 201 with the participant, its id and defaults', async () => {
    const id = await createDraftRequest(simulator, token);
    const answer = await callApi(simulator, token, 'POST', path(id, 'participants'), { json: witness });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      id,
      participant: {
        participant_id: expect.stringMatching(/^par_[0-9a-f]{24}$/),
        participant_type: 'signer',
        is_internal: false,
        role: 'Witness',
        name: 'Cleo Dubois',
        email: 'cleo@example.com',
        signing_order: null,
      },
    });
    const participants = simulator.state.requests()[0]?.participants ?? [];
    expect(participants.at(-1)).toMatchObject({ email: 'cleo@example.com', addedLater: true });
  });

  it('keeps is_internal and signing_order when given', async () => {
    const id = await createDraftRequest(simulator, token);
    const answer = await callApi(simulator, token, 'POST', path(id, 'participants'), {
      json: { ...witness, is_internal: true, signing_order: 2 },
    });
    expect(answer.body.participant).toMatchObject({ is_internal: true, signing_order: 2 });
  });

  it('answers 404 signing_request_not_found for an unknown request', async () => {
    const answer = await callApi(simulator, token, 'POST', path('sr_nope', 'participants'), {
      json: witness,
    });
    expect([answer.status, answer.body.error.code]).toEqual([404, 'signing_request_not_found']);
  });

  it.each<[string, unknown, string]>([
    [
      'an observer role too long',
      { ...witness, participant_type: 'observer', role: 'r'.repeat(101) },
      'role',
    ],
    ['a bad e-mail', { ...witness, email: 'cleo@' }, 'email: must be a valid e-mail address'],
    ['a missing name', { ...witness, name: undefined }, 'name: is required'],
    ['a bad type', { ...witness, participant_type: 'approver' }, 'participant_type'],
    ['signing_order 0', { ...witness, signing_order: 0 }, 'signing_order: must be at least 1'],
  ])('answers 422 invalid_participant_request for %s', async (_label, participant, message) => {
    const id = await createDraftRequest(simulator, token);
    const answer = await callApi(simulator, token, 'POST', path(id, 'participants'), { json: participant });
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('invalid_participant_request');
    expect(answer.body.error.message).toContain(message);
  });

  it('answers 422 invalid_participant_request for a body that is not an object', async () => {
    const id = await createDraftRequest(simulator, token);
    const answer = await callApi(simulator, token, 'POST', path(id, 'participants'), { json: [witness] });
    expect([answer.status, answer.body.error.code]).toEqual([422, 'invalid_participant_request']);
  });

  it('answers 415 invalid_content_type for a non-JSON content type', async () => {
    const id = await createDraftRequest(simulator, token);
    const answer = await callApi(simulator, token, 'POST', path(id, 'participants'), {
      body: JSON.stringify(witness),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect([answer.status, answer.body.error.code]).toEqual([415, 'invalid_content_type']);
  });

  it('answers 409 participant_conflict for an e-mail already on the request (any case)', async () => {
    const id = await createDraftRequest(simulator, token);
    const answer = await callApi(simulator, token, 'POST', path(id, 'participants'), {
      json: { ...witness, email: 'Anne@Example.com' },
    });
    expect([answer.status, answer.body.error.code]).toEqual([409, 'participant_conflict']);
  });

  it('answers 409 participant_conflict once the request is prepared', async () => {
    const id = await createPreparedRequest(simulator, token);
    const answer = await callApi(simulator, token, 'POST', path(id, 'participants'), { json: witness });
    expect([answer.status, answer.body.error.code]).toEqual([409, 'participant_conflict']);
  });
});

describe('POST /api/v1/signing-requests/{id}/prepare', () => {
  it('answers 200 with revision 1 and the prepared document digest, then reads as prepared', async () => {
    const id = await createDraftRequest(simulator, token);
    const uploadSha = simulator.state.uploads()[0]?.sha256 ?? '';
    const answer = await callApi(simulator, token, 'POST', path(id, 'prepare'));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      id,
      status: 'prepared',
      document: { revision: 1, sha256: createHash('sha256').update(`${uploadSha}:${id}`).digest('hex') },
    });
    const read = await readRequest(simulator, token, id);
    expect(read.body).toMatchObject({
      status: 'prepared',
      document: { status: 'prepared' },
      evidence: { ready: false },
      prepared_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      opened_at: null,
      finalized_at: null,
    });
    expect(read.body.document).not.toHaveProperty('sha256');
  });

  it('answers 409 prepare_conflict when already prepared', async () => {
    const id = await createPreparedRequest(simulator, token);
    const answer = await callApi(simulator, token, 'POST', path(id, 'prepare'));
    expect([answer.status, answer.body.error.code]).toEqual([409, 'prepare_conflict']);
  });

  it('answers 422 invalid_prepare_request when the request has no signer', async () => {
    const id = await createDraftRequest(simulator, token, {
      recipients: [{ participant_type: 'observer', role: 'HR', name: 'Bruno', email: 'bruno@example.com' }],
    });
    const answer = await callApi(simulator, token, 'POST', path(id, 'prepare'));
    expect([answer.status, answer.body.error.code]).toEqual([422, 'invalid_prepare_request']);
    const added = await callApi(simulator, token, 'POST', path(id, 'participants'), { json: witness });
    expect(added.status).toBe(201);
    expect((await callApi(simulator, token, 'POST', path(id, 'prepare'))).status).toBe(200);
  });

  it('answers 422 invalid_prepare_request for any body, even {}', async () => {
    const id = await createDraftRequest(simulator, token);
    const answer = await callApi(simulator, token, 'POST', path(id, 'prepare'), { json: {} });
    expect([answer.status, answer.body.error.code]).toEqual([422, 'invalid_prepare_request']);
  });

  it('answers 404 signing_request_not_found for an unknown request', async () => {
    const answer = await callApi(simulator, token, 'POST', path('sr_nope', 'prepare'));
    expect([answer.status, answer.body.error.code]).toEqual([404, 'signing_request_not_found']);
  });
});

describe('POST /api/v1/signing-requests/{id}/widget-session', () => {
  it('answers 200 with a secret widget URL on this service and its lifetime', async () => {
    const id = await createPreparedRequest(simulator, token);
    const answer = await callApi(simulator, token, 'POST', path(id, 'widget-session'));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      id,
      widget_url: expect.stringMatching(new RegExp(`^${simulator.baseUrl}/widget/[A-Za-z0-9_-]{43,}$`)),
      expires_in_seconds: 300,
    });
  });

  it('lets several sessions coexist', async () => {
    const id = await createPreparedRequest(simulator, token);
    const first = await callApi(simulator, token, 'POST', path(id, 'widget-session'));
    const second = await callApi(simulator, token, 'POST', path(id, 'widget-session'));
    expect(first.body.widget_url).not.toBe(second.body.widget_url);
    expect((await fetch(first.body.widget_url as string)).status).toBe(200);
    expect((await fetch(second.body.widget_url as string)).status).toBe(200);
  });

  it('answers 409 signing_request_not_ready while the request is a draft', async () => {
    const id = await createDraftRequest(simulator, token);
    const answer = await callApi(simulator, token, 'POST', path(id, 'widget-session'));
    expect([answer.status, answer.body.error.code]).toEqual([409, 'signing_request_not_ready']);
  });

  it('answers 409 widget_session_conflict once the ceremony is completed', async () => {
    const id = await createPreparedRequest(simulator, token);
    simulator.complete(id);
    const answer = await callApi(simulator, token, 'POST', path(id, 'widget-session'));
    expect([answer.status, answer.body.error.code]).toEqual([409, 'widget_session_conflict']);
  });

  it('still opens a session while the ceremony is in progress', async () => {
    const id = await createPreparedRequest(simulator, token);
    const first = await callApi(simulator, token, 'POST', path(id, 'widget-session'));
    await fetch(first.body.widget_url as string);
    expect((await readRequest(simulator, token, id)).body.status).toBe('in_progress');
    expect((await callApi(simulator, token, 'POST', path(id, 'widget-session'))).status).toBe(200);
  });

  it('answers 422 invalid_widget_session_request for a body', async () => {
    const id = await createPreparedRequest(simulator, token);
    const answer = await callApi(simulator, token, 'POST', path(id, 'widget-session'), { json: { ttl: 60 } });
    expect([answer.status, answer.body.error.code]).toEqual([422, 'invalid_widget_session_request']);
  });

  it('answers 404 signing_request_not_found for an unknown or foreign request', async () => {
    const unknown = await callApi(simulator, token, 'POST', path('sr_nope', 'widget-session'));
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'signing_request_not_found']);

    const id = await createPreparedRequest(simulator, token);
    const other = { clientId: 'other', clientSecret: 'other-secret', scopes: ['ceremony.create' as const] };
    simulator.addClient(other);
    const foreign = await callApi(
      simulator,
      await getToken(simulator, other),
      'POST',
      path(id, 'widget-session'),
    );
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'signing_request_not_found']);
  });
});

describe('simulator.complete', () => {
  it('runs the whole ceremony: completed, finalized, evidence ready after the delay', async () => {
    const id = await createPreparedRequest(simulator, token, { signing: { enforce_order: true } });
    simulator.complete(id);
    const read = await readRequest(simulator, token, id);
    expect(read.body).toMatchObject({
      status: 'completed',
      document: { status: 'finalized' },
      evidence: { ready: false },
      opened_at: expect.any(String),
      finalized_at: expect.any(String),
    });
    simulator.clock.advance(1_500);
    expect((await readRequest(simulator, token, id)).body.evidence.ready).toBe(true);
  });

  it('refuses a draft request and an unknown id', async () => {
    const id = await createDraftRequest(simulator, token);
    expect(() => simulator.complete(id)).toThrow(/not prepared/);
    expect(() => simulator.complete('sr_nope')).toThrow(/no signing request/);
  });
});
