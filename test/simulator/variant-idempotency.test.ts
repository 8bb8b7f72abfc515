import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import {
  createSigningRequest,
  getToken,
  newIdempotencyKey,
  signingRequestBody,
  uploadPdf,
} from './test-support';
import { SERVICE_VARIANTS, variantNamed, type ServiceVariant } from '../../simulator/variants';

const HOUR = 3_600_000;

let simulator: Simulator | undefined;

beforeEach(() => {
  // Only Date is frozen: the simulator clock then moves by clock.advance alone, so retention
  // boundaries can be tested to the millisecond, while sockets and timers stay real.
  vi.useFakeTimers({ toFake: ['Date'] });
});

afterEach(async () => {
  vi.useRealTimers();
  await simulator?.close();
  simulator = undefined;
});

/** A simulator of `variant` with a token and an upload; tokens and uploads outlive the test. */
async function setUp(variant: ServiceVariant, uploadTtlHours = 10_000) {
  simulator = await startSimulator({ variant, uploadTtlHours, tokenTtlSeconds: 10_000 * 3600 });
  const token = await getToken(simulator);
  const uploadId = (await uploadPdf(simulator, token)).body.upload_id as string;
  return { sim: simulator, token, uploadId, body: signingRequestBody(uploadId) };
}

describe('key retention', () => {
  it.each([
    ['short-memory', 1],
    ['strict-24h', 24],
  ])(
    '%s forgets a key %i h after its creation: the same call then creates a second request',
    async (name, hours) => {
      const { sim, token, body } = await setUp(variantNamed(name));
      const key = newIdempotencyKey();
      const first = await createSigningRequest(sim, token, body, key);
      sim.clock.advance(hours * HOUR - 1);
      const replay = await createSigningRequest(sim, token, body, key);
      expect([replay.body.idempotent_replay, replay.body.id]).toEqual([true, first.body.id]);
      sim.clock.advance(1);
      const second = await createSigningRequest(sim, token, body, key);
      expect(second.status).toBe(sim.variant.success.create);
      expect(second.body.idempotent_replay).toBe(false);
      expect(second.body.id).not.toBe(first.body.id);
      expect(sim.state.countByExternalReference()).toEqual({ 'HR-2026-001': 2 });
      // The new request starts a new retention period for the key.
      sim.clock.advance(hours * HOUR - 1);
      expect((await createSigningRequest(sim, token, body, key)).body.id).toBe(second.body.id);
    },
  );

  it('the reference keeps a key forever', async () => {
    const { sim, token, body } = await setUp(variantNamed('reference'));
    const key = newIdempotencyKey();
    const first = await createSigningRequest(sim, token, body, key);
    sim.clock.advance(5_000 * HOUR);
    const replay = await createSigningRequest(sim, token, body, key);
    expect([replay.status, replay.body.id]).toEqual([200, first.body.id]);
  });

  it('a forgotten key reused with another body is a new key, not a breach', async () => {
    const { sim, token, body } = await setUp(variantNamed('short-memory'));
    const key = newIdempotencyKey();
    await createSigningRequest(sim, token, body, key);
    sim.clock.advance(HOUR);
    const other = await createSigningRequest(sim, token, { ...body, external_reference: 'HR-9' }, key);
    expect(other.body.idempotent_replay).toBe(false);
    expect(sim.state.violations()).toEqual([]);
  });
});

describe('check order', () => {
  it('key-first (reference) replays although the upload expired', async () => {
    const { sim, token, body } = await setUp(variantNamed('reference'), 1);
    const key = newIdempotencyKey();
    const first = await createSigningRequest(sim, token, body, key);
    sim.clock.advance(HOUR);
    const replay = await createSigningRequest(sim, token, body, key);
    expect([replay.status, replay.body.id]).toEqual([200, first.body.id]);
  });

  it.each(
    SERVICE_VARIANTS.filter((variant) => variant.checkOrder === 'upload-first').map((v) => [v.name, v]),
  )(
    'upload-first (%s) refuses a replay whose upload expired, with its own code, naming the upload',
    async (_name, variant) => {
      const { sim, token, body } = await setUp(variant, 1);
      const key = newIdempotencyKey();
      await createSigningRequest(sim, token, body, key);
      sim.clock.advance(HOUR);
      const replay = await createSigningRequest(sim, token, body, key);
      expect([replay.status, replay.body.error.code]).toEqual([
        variant.uploadExpired.status,
        variant.uploadExpired.code,
      ]);
      expect(replay.body.error.message).toMatch(/^document\.upload_id: /);
      expect(sim.state.requests()).toHaveLength(1);
    },
  );

  it('upload-first validates the body before looking at a reused key (422, not its refusal), and still records the breach', async () => {
    const { sim, token, body } = await setUp(variantNamed('strict-24h'));
    const key = newIdempotencyKey();
    await createSigningRequest(sim, token, body, key);
    const invalid = await createSigningRequest(sim, token, { ...body, recipients: [] }, key);
    expect([invalid.status, invalid.body.error.code]).toEqual([422, 'invalid_signing_request']);
    const reused = await createSigningRequest(sim, token, { ...body, external_reference: 'HR-2' }, key);
    // strict-24h refuses a reused key as Stripe does.
    expect([reused.status, reused.body.error.code]).toEqual([400, 'idempotency_error']);
    // Only the body for another reference is a breach: the same contract with other recipients
    // is what a second desk sends under its key.
    expect(sim.state.violations().filter((line) => line.startsWith('idempotency-key: '))).toHaveLength(1);
  });

  it('key-first answers 409 for a reused key before validating the body', async () => {
    const { sim, token, body } = await setUp(variantNamed('reference'));
    const key = newIdempotencyKey();
    await createSigningRequest(sim, token, body, key);
    const invalid = await createSigningRequest(sim, token, { ...body, recipients: [] }, key);
    expect([invalid.status, invalid.body.error.code]).toEqual([409, 'idempotency_key_reused']);
  });
});

describe('upload errors', () => {
  it.each(SERVICE_VARIANTS.map((variant) => [variant.name, variant]))(
    '%s answers an unknown and an expired upload with its codes, naming the upload',
    async (_name, variant) => {
      const { sim, token, body } = await setUp(variant, 1);
      const unknown = await createSigningRequest(sim, token, signingRequestBody('upl_missing'));
      expect([unknown.status, unknown.body.error.code]).toEqual([
        variant.uploadUnknown.status,
        variant.uploadUnknown.code,
      ]);
      expect(unknown.body.error.message).toBe('document.upload_id: no such upload for this client');
      sim.clock.advance(HOUR);
      const expired = await createSigningRequest(sim, token, body);
      expect([expired.status, expired.body.error.code]).toEqual([
        variant.uploadExpired.status,
        variant.uploadExpired.code,
      ]);
      expect(expired.body.error.message).toBe(
        'document.upload_id: the upload has expired; upload the PDF again',
      );
      expect(sim.state.requests()).toEqual([]);
    },
  );
});
