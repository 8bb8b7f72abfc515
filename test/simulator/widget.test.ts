import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../main/time/virtual-clock';
import type { Simulator } from '../../simulator/simulator';
import { startVirtualSimulator } from '../support/virtual-world';
import { callApi, createPreparedRequest, getToken, readRequest } from './test-support';

let simulator: Simulator;
let clock: VirtualClock;
let token: string;

beforeEach(async () => {
  // On a virtual clock: its latency (and only the test) moves time.
  ({ sim: simulator, clock } = await startVirtualSimulator({
    widgetTtlSeconds: 120,
    evidenceDelayMs: 2_000,
  }));
  token = await getToken(simulator);
});

afterEach(async () => {
  await simulator.close();
});

const twoSigners = {
  recipients: [
    {
      participant_type: 'signer',
      role: 'Employee',
      name: 'Anne Martin',
      email: 'anne@example.com',
      signing_order: 2,
    },
    {
      participant_type: 'signer',
      role: 'Manager',
      name: 'Zoé <Keller>',
      email: 'zoe@example.com',
      signing_order: 1,
    },
    { participant_type: 'observer', role: 'HR', name: 'Bruno', email: 'bruno@example.com' },
  ],
};

async function openWidget(id: string): Promise<string> {
  const session = await callApi(simulator, token, 'POST', `/api/v1/signing-requests/${id}/widget-session`);
  return session.body.widget_url as string;
}

function participantIds(): Record<string, string> {
  const participants = simulator.state.requests()[0]?.participants ?? [];
  return Object.fromEntries(
    participants.map((participant) => [participant.email, participant.participantId]),
  );
}

function signAs(widgetUrl: string, participantId: string): Promise<Response> {
  return fetch(`${widgetUrl}/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ participant_id: participantId }).toString(),
    redirect: 'manual',
  });
}

describe('the widget page', () => {
  it('is a self-contained, accessible page under a strict CSP', async () => {
    const id = await createPreparedRequest(simulator, token);
    const response = await fetch(await openWidget(id));
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(html).toMatch(/<html lang="en">/);
    expect(html).toMatch(/<title>Sign document\.pdf<\/title>/);
    expect(html).not.toMatch(/<script|<link|<img|src=|https?:\/\//i);
    expect(html).toContain('HR-2026-001');
    expect(html).toContain('Anne Martin');
    expect(html).toContain('Bruno Keller');
    expect(html).toMatch(/<button type="submit">Sign as Anne Martin<\/button>/);
    // Observers get no sign button.
    expect(html).not.toContain('Sign as Bruno Keller');
  });

  it('escapes participant names', async () => {
    const id = await createPreparedRequest(simulator, token, twoSigners);
    const html = await (await fetch(await openWidget(id))).text();
    expect(html).toContain('Sign as Zoé &lt;Keller&gt;');
    expect(html).not.toContain('<Keller>');
  });

  it('opens the ceremony on first load: in_progress with opened_at', async () => {
    const id = await createPreparedRequest(simulator, token);
    const widgetUrl = await openWidget(id);
    expect((await readRequest(simulator, token, id)).body.status).toBe('prepared');
    await fetch(widgetUrl);
    const afterFirst = (await readRequest(simulator, token, id)).body;
    expect(afterFirst).toMatchObject({
      status: 'in_progress',
      document: { status: 'prepared' },
      finalized_at: null,
    });
    expect(afterFirst.opened_at).toEqual(expect.any(String));
    simulator.clock.advance(5_000);
    await fetch(widgetUrl);
    expect((await readRequest(simulator, token, id)).body.opened_at).toBe(afterFirst.opened_at);
  });

  it('runs the ceremony to completion, then evidence becomes ready after the delay', async () => {
    const id = await createPreparedRequest(simulator, token, twoSigners);
    const widgetUrl = await openWidget(id);
    await fetch(widgetUrl);
    const ids = participantIds();

    const first = await signAs(widgetUrl, ids['zoe@example.com'] ?? '');
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe(new URL(widgetUrl).pathname);
    expect((await readRequest(simulator, token, id)).body.status).toBe('in_progress');

    expect((await signAs(widgetUrl, ids['anne@example.com'] ?? '')).status).toBe(303);
    const completed = (await readRequest(simulator, token, id)).body;
    expect(completed).toMatchObject({
      status: 'completed',
      document: { status: 'finalized' },
      evidence: { ready: false },
      finalized_at: expect.any(String),
    });

    const page = await (await fetch(widgetUrl)).text();
    expect(page).toContain('All signatures are collected. You can close this window.');
    expect(page).not.toContain('<button');

    // Simulated time also runs with real time, so stay clear of the exact boundary.
    simulator.clock.advance(1_000);
    expect((await readRequest(simulator, token, id)).body.evidence.ready).toBe(false);
    simulator.clock.advance(1_000);
    expect((await readRequest(simulator, token, id)).body.evidence.ready).toBe(true);
    expect(
      simulator.state.requests()[0]?.participants.filter((participant) => participant.signedAt !== null),
    ).toHaveLength(2);
  });

  it('signs without an earlier page load, and treats a repeated signature as done', async () => {
    const id = await createPreparedRequest(simulator, token);
    const widgetUrl = await openWidget(id);
    const anne = participantIds()['anne@example.com'] ?? '';
    expect((await signAs(widgetUrl, anne)).status).toBe(303);
    expect((await signAs(widgetUrl, anne)).status).toBe(303);
    expect((await readRequest(simulator, token, id)).body.status).toBe('completed');
  });

  it('refuses to sign for an observer or an unknown participant', async () => {
    const id = await createPreparedRequest(simulator, token);
    const widgetUrl = await openWidget(id);
    expect((await signAs(widgetUrl, participantIds()['bruno@example.com'] ?? '')).status).toBe(400);
    expect((await signAs(widgetUrl, 'par_nobody')).status).toBe(400);
  });

  it('with enforced order, lets only the next signer sign', async () => {
    const id = await createPreparedRequest(simulator, token, {
      ...twoSigners,
      signing: { enforce_order: true },
    });
    const widgetUrl = await openWidget(id);
    const html = await (await fetch(widgetUrl)).text();
    expect(html).toMatch(/<button type="submit">Sign as Zoé &lt;Keller&gt;<\/button>/);
    expect(html).toMatch(/<button type="submit" disabled[^>]*>Sign as Anne Martin<\/button>/);
    expect(html).toContain('the signing order is enforced');

    const ids = participantIds();
    const tooEarly = await signAs(widgetUrl, ids['anne@example.com'] ?? '');
    expect(tooEarly.status).toBe(409);
    expect(await tooEarly.text()).toContain('Not your turn yet');

    expect((await signAs(widgetUrl, ids['zoe@example.com'] ?? '')).status).toBe(303);
    const next = await (await fetch(widgetUrl)).text();
    expect(next).toMatch(/<button type="submit">Sign as Anne Martin<\/button>/);
    expect((await signAs(widgetUrl, ids['anne@example.com'] ?? '')).status).toBe(303);
    expect((await readRequest(simulator, token, id)).body.status).toBe('completed');
  });

  it('expires by the clock: 410 for the page and for signing, recorded as a violation', async () => {
    const id = await createPreparedRequest(simulator, token);
    const widgetUrl = await openWidget(id);
    simulator.clock.advance(120_000);
    const page = await fetch(widgetUrl);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('This signing link has expired or is not valid');
    const signing = await signAs(widgetUrl, participantIds()['anne@example.com'] ?? '');
    expect(signing.status).toBe(410);
    expect((await readRequest(simulator, token, id)).body.status).toBe('prepared');
    expect(simulator.state.violations()).toContain(
      'widget-link: GET /widget/:token after the widget session expired (expires_in_seconds)',
    );
  });

  it('answers 410 for an unknown token', async () => {
    const response = await fetch(`${simulator.baseUrl}/widget/not-a-real-token`);
    expect(response.status).toBe(410);
    expect(await response.text()).toContain('This signing link has expired or is not valid');
  });

  it('logs widget calls without their secret token', async () => {
    const id = await createPreparedRequest(simulator, token);
    const widgetUrl = await openWidget(id);
    await fetch(widgetUrl);
    const secret = new URL(widgetUrl).pathname.split('/')[2] ?? '';
    const widgetCalls = simulator.state.calls().filter((call) => call.operation === 'widgetPage');
    expect(widgetCalls).toEqual([
      expect.objectContaining({ method: 'GET', path: '/widget/:token', status: 200 }),
    ]);
    expect(JSON.stringify(simulator.state.calls())).not.toContain(secret);
  });

  it('is never hit by faults or latency', async () => {
    const id = await createPreparedRequest(simulator, token);
    const widgetUrl = await openWidget(id);
    simulator.faults.set({ rate503: 1, latencyMs: 2_000 });
    // The simulator's latency runs on the virtual clock: a widget page it held back would take
    // (virtual) time to come.
    const started = clock.monotonic();
    expect((await clock.complete(fetch(widgetUrl))).status).toBe(200);
    expect(clock.monotonic() - started).toBe(0);
    // The API next to it is hit by both.
    const read = await clock.complete(readRequest(simulator, token, id));
    expect(read.status).toBe(503);
    expect(clock.monotonic() - started).toBe(2_000);
  });

  it('answers 405 for other methods', async () => {
    const id = await createPreparedRequest(simulator, token);
    const widgetUrl = await openWidget(id);
    const response = await fetch(widgetUrl, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });
});
