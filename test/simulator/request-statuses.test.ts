import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import {
  callApi,
  createDraftRequest,
  createPreparedRequest,
  fetchJson,
  getToken,
  readRequest,
} from './test-support';

/**
 * Statuses beyond the spec's (§3: "Complete list of status values: not shown"): a test puts a
 * request in any of them, programmatically or through the control API, and reads show it.
 */
let simulator: Simulator;

beforeEach(async () => {
  simulator = await startSimulator();
});

afterEach(async () => {
  await simulator.close();
});

function control(path: string, body: unknown) {
  return fetchJson(`${simulator.baseUrl}/__simulator${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('a request in a status the spec does not list', () => {
  it('setStatus puts a request in any status, with its document status and finalized_at when given', async () => {
    const token = await getToken(simulator);
    const id = await createPreparedRequest(simulator, token);
    simulator.setStatus(id, { status: 'declined' });
    expect((await readRequest(simulator, token, id)).body).toMatchObject({
      status: 'declined',
      document: { status: 'prepared' },
      finalized_at: null,
    });
    const before = simulator.clock.now();
    simulator.setStatus(id, { status: 'voided', documentStatus: 'voided', finalized: true });
    const voided = (await readRequest(simulator, token, id)).body;
    expect(voided).toMatchObject({ status: 'voided', document: { status: 'voided' } });
    // Set when the status was set, by the simulator's clock.
    expect(Date.parse(voided.finalized_at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(voided.finalized_at)).toBeLessThanOrEqual(simulator.clock.now());
    simulator.setStatus(id, { status: 'on_hold', finalized: false });
    expect((await readRequest(simulator, token, id)).body).toMatchObject({
      status: 'on_hold',
      finalized_at: null,
    });
    expect(() => simulator.setStatus('sr_nope', { status: 'declined' })).toThrow(
      'no signing request sr_nope',
    );
  });

  it('POST /__simulator/requests/{id}/status does the same, and refuses what it does not know', async () => {
    const token = await getToken(simulator);
    const id = await createPreparedRequest(simulator, token);
    const answer = await control(`/requests/${id}/status`, { status: 'awaiting_payment' });
    expect(answer).toMatchObject({ status: 200, body: { id, status: 'awaiting_payment' } });
    expect((await readRequest(simulator, token, id)).body.status).toBe('awaiting_payment');
    expect(
      (
        await control(`/requests/${id}/status`, {
          status: 'expired',
          documentStatus: 'expired',
          finalized: true,
        })
      ).status,
    ).toBe(200);
    expect((await readRequest(simulator, token, id)).body).toMatchObject({
      status: 'expired',
      document: { status: 'expired' },
      finalized_at: expect.any(String),
    });
    expect((await control('/requests/sr_nope/status', { status: 'declined' })).status).toBe(404);
    expect((await control(`/requests/${id}/status`, { status: '' })).status).toBe(400);
    expect((await control(`/requests/${id}/status`, { status: 'declined', reason: 'typo' })).status).toBe(
      400,
    );
  });

  it('a request that ended can no longer be signed; put back in progress, its ceremony goes on', async () => {
    const token = await getToken(simulator);
    const id = await createPreparedRequest(simulator, token);
    simulator.setStatus(id, { status: 'cancelled' });
    const session = await callApi(simulator, token, 'POST', `/api/v1/signing-requests/${id}/widget-session`);
    expect(session).toMatchObject({ status: 409, body: { error: { code: 'widget_session_conflict' } } });
    expect(() => simulator.complete(id)).toThrow('is cancelled');
    expect((await control(`/requests/${id}/complete`, {})).status).toBe(409);
    simulator.setStatus(id, { status: 'in_progress' });
    simulator.complete(id);
    expect((await readRequest(simulator, token, id)).body).toMatchObject({
      status: 'completed',
      document: { status: 'finalized' },
    });
  });

  it('a status set before preparation stays until the test changes it (draft requests too)', async () => {
    const token = await getToken(simulator);
    const id = await createDraftRequest(simulator, token);
    simulator.setStatus(id, { status: 'expired' });
    expect((await readRequest(simulator, token, id)).body.status).toBe('expired');
    expect(simulator.state.requests()[0]).toMatchObject({ id, status: 'expired' });
  });
});
