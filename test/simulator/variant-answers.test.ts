import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import {
  callApi,
  createSigningRequest,
  fetchJson,
  getToken,
  newIdempotencyKey,
  readRequest,
  signingRequestBody,
  uploadPdf,
  type JsonAnswer,
} from './test-support';
import {
  describeVariant,
  variantNamed,
  variantsForSuite,
  type ServiceVariant,
} from '../../simulator/variants';

let simulator: Simulator | undefined;

afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

async function start(
  variant: ServiceVariant,
  options: { tokenTtlSeconds?: number } = {},
): Promise<Simulator> {
  simulator = await startSimulator({ variant, ...options });
  return simulator;
}

/** An empty answer: no body, and Content-Length 0 (nothing at all for 204). */
function expectEmpty(answer: JsonAnswer): void {
  expect(answer.body).toBeUndefined();
  expect(answer.headers.get('content-type')).toBeNull();
  expect(answer.headers.get('content-length')).toBe(answer.status === 204 ? null : '0');
}

const READ_FIELDS = [
  'document',
  'evidence',
  'external_reference',
  'finalized_at',
  'id',
  'opened_at',
  'prepared_at',
  'status',
  'submission_status',
  'transaction_type',
];

/** The fields a 'full' read adds to the ones §4.4 lists. */
const ECHOED = ['external_reference', 'transaction_type'];

describe.each(variantsForSuite().map((variant) => [describeVariant(variant), variant] as const))(
  'a polite client through every operation — %s',
  (_line, variant) => {
    it('gets the success codes, bodies and fields this variant chose, and no violation', async () => {
      const sim = await start(variant);
      const tokenAnswer = await fetchJson(`${sim.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=demo-desk&client_secret=demo-desk-secret',
      });
      expect(tokenAnswer.status).toBe(200);
      expect(tokenAnswer.body.expires_in).toBe(
        variant.token.reportsExpiresIn ? variant.token.ttlSeconds : undefined,
      );
      const token = tokenAnswer.body.access_token as string;

      const upload = await uploadPdf(sim, token);
      expect(upload.status).toBe(variant.success.upload);
      const lifetime = { number: 24, string: '24', absent: undefined, unreadable: 'about a day' };
      expect(upload.body.expires_in_hours).toStrictEqual(lifetime[variant.uploadLifetime]);

      const key = newIdempotencyKey();
      const body = signingRequestBody(upload.body.upload_id as string);
      const created = await createSigningRequest(sim, token, body, key);
      const replay = await createSigningRequest(sim, token, body, key);
      const replayStatus = variant.success.replay === 'same' ? variant.success.create : 200;
      expect([created.status, replay.status]).toEqual([variant.success.create, replayStatus]);
      let id: string;
      if (variant.createAnswer === 'body') {
        expect(created.body.idempotent_replay).toBe(false);
        expect([replay.body.idempotent_replay, replay.body.id]).toEqual([true, created.body.id]);
        id = created.body.id as string;
      } else if (variant.createAnswer === 'location') {
        // No body: the request is named by Location, a path or this service's whole URL, on a replay too.
        expectEmpty(created);
        const location = created.headers.get('location') ?? '';
        id = decodeURIComponent(location.split('/').pop() ?? '');
        expect(new URL(location, sim.baseUrl).href).toBe(`${sim.baseUrl}/api/v1/signing-requests/${id}`);
        expect(replay.headers.get('location')).toBe(location);
      } else {
        // No body and no Location at first; a replay of the key says it.
        expectEmpty(created);
        expect(created.headers.get('location')).toBeNull();
        expect(replay.body.idempotent_replay).toBe(true);
        id = replay.body.id as string;
      }
      expect(sim.state.requests().map((request) => request.id)).toEqual([id]);
      const base = `/api/v1/signing-requests/${id}`;

      const added = await callApi(sim, token, 'POST', `${base}/participants`, {
        json: { participant_type: 'signer', role: 'Manager', name: 'Carla Diaz', email: 'carla@example.com' },
      });
      expect(added.status).toBe(variant.success.participant);
      const prepared = await callApi(sim, token, 'POST', `${base}/prepare`);
      expect(prepared.status).toBe(variant.success.prepare);
      for (const answer of [added, prepared]) {
        if (variant.emptyBodies || answer.status === 204) expectEmpty(answer);
        else expect(answer.body.id).toBe(id);
      }
      if (!variant.emptyBodies && prepared.status !== 204) {
        expect(prepared.body.document).toMatchObject({ revision: 1, sha256: expect.any(String) });
      }

      const widget = await callApi(sim, token, 'POST', `${base}/widget-session`);
      expect(widget.status).toBe(variant.success.widget);
      expect(widget.body.widget_url).toMatch(/\/widget\//);

      const read = await readRequest(sim, token, id);
      expect(read.status).toBe(variant.success.read);
      expect(read.body).toMatchObject({ id, status: 'prepared', document: { status: 'prepared' } });
      if (variant.extraFields) {
        expect(read.body._links).toEqual({ self: { href: base } });
        expect(read.body.meta).toEqual(expect.any(Object));
        expect(read.body.document.pages).toBe(1);
        expect(read.body.evidence).toMatchObject({ ready: false, items: [] });
      } else {
        // A read shows the reference only when the variant echoes it (§4.4 does not list it).
        expect(Object.keys(read.body).sort()).toEqual(
          variant.readFields === 'full'
            ? READ_FIELDS
            : READ_FIELDS.filter((field) => !ECHOED.includes(field)),
        );
        expect(read.body.document).toEqual({ status: 'prepared' });
        expect(read.body.evidence).toEqual({ ready: false });
      }
      expect(sim.state.requests()).toHaveLength(1);
      expect(sim.state.violations()).toEqual([]);
    });
  },
);

describe('unknown fields (extraFields)', () => {
  it('are added inside participant and error objects, and to the token answer', async () => {
    const sim = await start(variantNamed('http-date-extras'));
    const token = await getToken(sim);
    const upload = await uploadPdf(sim, token);
    const created = await createSigningRequest(
      sim,
      token,
      signingRequestBody(upload.body.upload_id as string),
    );
    const added = await callApi(
      sim,
      token,
      'POST',
      `/api/v1/signing-requests/${created.body.id}/participants`,
      {
        json: { participant_type: 'observer', role: 'HR', name: 'Dora', email: 'dora@example.com' },
      },
    );
    expect(added.body.participant).toMatchObject({ email: 'dora@example.com', invited: false });
    expect(added.body._links.self.href).toBe(`/api/v1/signing-requests/${created.body.id}/participants`);
    const missing = await readRequest(sim, token, 'sr_missing');
    expect(missing.body.error).toMatchObject({ code: 'signing_request_not_found', details: [] });
    const tokenAnswer = await fetchJson(`${sim.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=demo-desk&client_secret=demo-desk-secret',
    });
    expect(tokenAnswer.body).toMatchObject({ token_type: 'Bearer', meta: expect.any(Object) });
  });
});

describe('empty bodies', () => {
  it('204 prepare and participant answers carry no body at all', async () => {
    const sim = await start(variantNamed('empty-204'));
    const token = await getToken(sim);
    const upload = await uploadPdf(sim, token);
    const created = await createSigningRequest(
      sim,
      token,
      signingRequestBody(upload.body.upload_id as string),
    );
    const prepared = await callApi(sim, token, 'POST', `/api/v1/signing-requests/${created.body.id}/prepare`);
    expect(prepared.status).toBe(204);
    expectEmpty(prepared);
    expect(sim.state.requests()[0]?.status).toBe('prepared');
  });

  it('errors keep their JSON body even when successes are empty', async () => {
    const sim = await start(variantNamed('terse-token'));
    const token = await getToken(sim);
    const refused = await callApi(sim, token, 'POST', '/api/v1/signing-requests/sr_none/prepare');
    expect([refused.status, refused.body.error.code]).toEqual([404, 'signing_request_not_found']);
  });
});

describe('token lifetime', () => {
  it("follows the variant's lifetime, without expires_in when it is not reported", async () => {
    const sim = await start(variantNamed('terse-token'));
    const token = await getToken(sim);
    sim.clock.advance(59_000);
    expect((await readRequest(sim, token, 'sr_x')).status).toBe(404);
    sim.clock.advance(1_000);
    expect((await readRequest(sim, token, 'sr_x')).status).toBe(401);
  });

  it('lets an explicit tokenTtlSeconds option win over the variant', async () => {
    const sim = await start(variantNamed('terse-token'), { tokenTtlSeconds: 3600 });
    const token = await getToken(sim);
    sim.clock.advance(61_000);
    expect((await readRequest(sim, token, 'sr_x')).status).toBe(404);
  });
});

describe('Retry-After forms', () => {
  it('delay-seconds by default', async () => {
    const sim = await start(variantNamed('reference'));
    sim.faults.enqueue({ kind: '503', retryAfterSeconds: 3 });
    const answer = await fetchJson(`${sim.baseUrl}/oauth/token`, { method: 'POST' });
    expect([answer.status, answer.headers.get('retry-after')]).toEqual([503, '3']);
  });

  it('an HTTP-date names an instant at least the delay after the answer, on the clock the Date header gives', async () => {
    const sim = await start(variantNamed('http-date-extras'));
    sim.clock.advance(7 * 3_600_000 + 123); // the simulator clock is not the wall clock
    const token = await getToken(sim);
    sim.faults.enqueue({ kind: '429', retryAfterSeconds: 2 });
    const before = sim.clock.now();
    const answer = await readRequest(sim, token, 'sr_x');
    const after = sim.clock.now();
    const header = answer.headers.get('retry-after') ?? '';
    expect(header).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    const named = Date.parse(header);
    expect(named % 1000).toBe(0);
    expect(named).toBeGreaterThanOrEqual(before + 2000);
    expect(named).toBeLessThan(after + 3000);
    const date = Date.parse(answer.headers.get('date') ?? '');
    expect(date).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(date).toBeLessThanOrEqual(after);
    expect(named - date).toBeGreaterThanOrEqual(2000);
  });
});
