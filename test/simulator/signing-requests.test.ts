import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import {
  callApi,
  createDraftRequest,
  createSigningRequest,
  getToken,
  newIdempotencyKey,
  readRequest,
  signingRequestBody,
  uploadPdf,
} from './test-support';

let simulator: Simulator;
let token: string;
let uploadId: string;

beforeEach(async () => {
  simulator = await startSimulator({ uploadTtlHours: 1, tokenTtlSeconds: 86_400 });
  token = await getToken(simulator);
  uploadId = (await uploadPdf(simulator, token)).body.upload_id as string;
});

afterEach(async () => {
  await simulator.close();
});

describe('POST /api/v1/signing-requests', () => {
  it('answers 201 with the accepted request', async () => {
    const answer = await createSigningRequest(simulator, token, signingRequestBody(uploadId), 'key-1');
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^sr_[0-9a-f]{24}$/),
      external_reference: 'HR-2026-001',
      transaction_type: 'employment_contract',
      submission_status: 'accepted',
      idempotent_replay: false,
    });
    const [record] = simulator.state.requests();
    expect(record).toMatchObject({
      id: answer.body.id,
      clientId: 'demo-desk',
      externalReference: 'HR-2026-001',
      idempotencyKey: 'key-1',
      uploadId,
      status: 'draft',
      locale: 'fr-FR',
    });
    expect(
      record?.participants.map((participant) => [
        participant.email,
        participant.participantId.startsWith('par_'),
      ]),
    ).toEqual([
      ['anne@example.com', true],
      ['bruno@example.com', true],
    ]);
  });

  it('echoes a missing transaction_type as null and ignores unknown fields', async () => {
    const body = signingRequestBody(uploadId, { transaction_type: undefined, colour: 'blue' });
    const answer = await createSigningRequest(simulator, token, body);
    expect(answer.status).toBe(201);
    expect(answer.body.transaction_type).toBeNull();
  });

  it('accepts every optional field of spec §4.3', async () => {
    const answer = await createSigningRequest(
      simulator,
      token,
      signingRequestBody(uploadId, {
        signing: { enforce_order: true, owner: { must_sign: false } },
        ceremony: { mode: 'in_person', meeting_provider: 'none' },
        evidence_level: 'advanced',
        locale: 'deu-DE',
      }),
    );
    expect(answer.status).toBe(201);
    expect(simulator.state.requests()[0]).toMatchObject({
      enforceOrder: true,
      ownerMustSign: false,
      ceremonyMode: 'in_person',
      meetingProvider: 'none',
      evidenceLevel: 'advanced',
    });
  });

  describe('idempotency', () => {
    it('replays the original creation for the same key and body, without a new request', async () => {
      const key = newIdempotencyKey();
      const first = await createSigningRequest(simulator, token, signingRequestBody(uploadId), key);
      const replay = await createSigningRequest(simulator, token, signingRequestBody(uploadId), key);
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual({ ...first.body, idempotent_replay: true });
      expect(simulator.state.requests()).toHaveLength(1);
    });

    it('compares bodies regardless of key order', async () => {
      const key = newIdempotencyKey();
      const body = signingRequestBody(uploadId);
      await createSigningRequest(simulator, token, body, key);
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const replay = await createSigningRequest(simulator, token, reordered, key);
      expect(replay.status).toBe(200);
      expect(replay.body.idempotent_replay).toBe(true);
    });

    it('answers 409 idempotency_key_reused for the same key with another body, and records a violation', async () => {
      const key = newIdempotencyKey();
      await createSigningRequest(simulator, token, signingRequestBody(uploadId), key);
      const reused = await createSigningRequest(
        simulator,
        token,
        signingRequestBody(uploadId, { external_reference: 'HR-2026-002' }),
        key,
      );
      expect(reused.status).toBe(409);
      expect(reused.body.error.code).toBe('idempotency_key_reused');
      expect(simulator.state.requests()).toHaveLength(1);
      expect(
        simulator.state.violations().some((violation) => violation.includes('Idempotency-Key reused')),
      ).toBe(true);
    });

    it('still replays after the upload has expired', async () => {
      const key = newIdempotencyKey();
      const first = await createSigningRequest(simulator, token, signingRequestBody(uploadId), key);
      simulator.clock.advance(3_600_000);
      const fresh = await createSigningRequest(simulator, token, signingRequestBody(uploadId));
      expect(fresh.body.error.code).toBe('upload_expired');
      const replay = await createSigningRequest(simulator, token, signingRequestBody(uploadId), key);
      expect(replay.status).toBe(200);
      expect(replay.body.id).toBe(first.body.id);
    });

    it('records no key when the creation fails, so the same key works once the body is fixed', async () => {
      const key = newIdempotencyKey();
      const failed = await createSigningRequest(simulator, token, signingRequestBody('upl_missing'), key);
      expect(failed.status).toBe(422);
      const fixed = await createSigningRequest(simulator, token, signingRequestBody(uploadId), key);
      expect(fixed.status).toBe(201);
    });

    it('scopes keys to the client', async () => {
      const other = {
        clientId: 'other',
        clientSecret: 'other-secret',
        scopes: ['signing.create' as const, 'signing.read' as const],
      };
      simulator.addClient(other);
      const otherToken = await getToken(simulator, other);
      const otherUpload = (await uploadPdf(simulator, otherToken)).body.upload_id as string;
      await createSigningRequest(simulator, token, signingRequestBody(uploadId), 'shared-key');
      const answer = await createSigningRequest(
        simulator,
        otherToken,
        signingRequestBody(otherUpload),
        'shared-key',
      );
      expect(answer.status).toBe(201);
    });

    it('answers 400 idempotency_key_required without the header', async () => {
      const answer = await callApi(simulator, token, 'POST', '/api/v1/signing-requests', {
        json: signingRequestBody(uploadId),
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('idempotency_key_required');
    });

    it('answers 400 invalid_idempotency_key for a key over 255 characters', async () => {
      const answer = await createSigningRequest(
        simulator,
        token,
        signingRequestBody(uploadId),
        'k'.repeat(256),
      );
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_idempotency_key');
      const longest = await createSigningRequest(
        simulator,
        token,
        signingRequestBody(uploadId),
        'k'.repeat(255),
      );
      expect(longest.status).toBe(201);
    });
  });

  it('creates another request for a known external_reference with a new key, counted per reference', async () => {
    await createSigningRequest(simulator, token, signingRequestBody(uploadId));
    await createSigningRequest(simulator, token, signingRequestBody(uploadId));
    await createSigningRequest(
      simulator,
      token,
      signingRequestBody(uploadId, { external_reference: 'HR-2026-002' }),
    );
    expect(simulator.state.countByExternalReference()).toEqual({ 'HR-2026-001': 2, 'HR-2026-002': 1 });
  });

  it('answers 415 invalid_content_type for a body that is not JSON by type', async () => {
    const answer = await callApi(simulator, token, 'POST', '/api/v1/signing-requests', {
      body: JSON.stringify(signingRequestBody(uploadId)),
      headers: { 'content-type': 'text/plain', 'idempotency-key': 'k' },
    });
    expect(answer.status).toBe(415);
    expect(answer.body.error.code).toBe('invalid_content_type');
  });

  it.each([
    ['broken JSON', '{"external_reference":'],
    ['a JSON array', '[]'],
    ['JSON null', 'null'],
    ['an empty body', ''],
  ])('answers 422 invalid_signing_request for %s', async (_label, body) => {
    const answer = await callApi(simulator, token, 'POST', '/api/v1/signing-requests', {
      body,
      headers: { 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toEqual({
      code: 'invalid_signing_request',
      message: 'body: must be a JSON object',
    });
  });

  const recipient = { participant_type: 'signer', role: 'Employee', name: 'Anne', email: 'anne@example.com' };
  it.each<[string, Record<string, unknown>, string]>([
    ['missing external_reference', { external_reference: undefined }, 'external_reference: is required'],
    ['empty external_reference', { external_reference: '' }, 'external_reference: must not be empty'],
    [
      'long external_reference',
      { external_reference: 'r'.repeat(256) },
      'external_reference: must be at most 255 characters',
    ],
    ['numeric transaction_type', { transaction_type: 7 }, 'transaction_type: must be a string'],
    ['missing document', { document: undefined }, 'document: is required'],
    [
      'upload id without prefix',
      { document: { upload_id: 'abc' } },
      'document.upload_id: must be an upload identifier',
    ],
    ['missing recipients', { recipients: undefined }, 'recipients: is required'],
    ['no recipients', { recipients: [] }, 'recipients: must list at least one recipient'],
    [
      'bad participant type',
      { recipients: [{ ...recipient, participant_type: 'approver' }] },
      'recipients[0].participant_type',
    ],
    ['missing role', { recipients: [{ ...recipient, role: undefined }] }, 'recipients[0].role: is required'],
    [
      'long role',
      { recipients: [{ ...recipient, role: 'r'.repeat(101) }] },
      'recipients[0].role: must be at most 100 characters',
    ],
    [
      'long name',
      { recipients: [{ ...recipient, name: 'n'.repeat(256) }] },
      'recipients[0].name: must be at most 255 characters',
    ],
    [
      'bad second email',
      { recipients: [recipient, { ...recipient, email: 'not-an-email' }] },
      'recipients[1].email: must be a valid e-mail address',
    ],
    [
      'email without a dot in the domain',
      { recipients: [{ ...recipient, email: 'a@localhost' }] },
      'recipients[0].email',
    ],
    [
      'long email',
      { recipients: [{ ...recipient, email: `${'a'.repeat(250)}@x.io` }] },
      'recipients[0].email: must be at most 254 characters',
    ],
    [
      'string is_internal',
      { recipients: [{ ...recipient, is_internal: 'yes' }] },
      'recipients[0].is_internal: must be a boolean',
    ],
    [
      'signing_order 0',
      { recipients: [{ ...recipient, signing_order: 0 }] },
      'recipients[0].signing_order: must be at least 1',
    ],
    [
      'fractional signing_order',
      { recipients: [{ ...recipient, signing_order: 1.5 }] },
      'recipients[0].signing_order',
    ],
    [
      'null signing_order',
      { recipients: [{ ...recipient, signing_order: null }] },
      'recipients[0].signing_order',
    ],
    [
      'duplicate emails in another case',
      { recipients: [recipient, { ...recipient, email: 'ANNE@example.com' }] },
      'recipients[1].email: duplicates recipients[0].email',
    ],
    [
      'string enforce_order',
      { signing: { enforce_order: 'true' } },
      'signing.enforce_order: must be a boolean',
    ],
    [
      'string must_sign',
      { signing: { owner: { must_sign: 1 } } },
      'signing.owner.must_sign: must be a boolean',
    ],
    ['numeric ceremony mode', { ceremony: { mode: 3 } }, 'ceremony.mode: must be a string'],
    ['numeric evidence_level', { evidence_level: 2 }, 'evidence_level: must be a string'],
    ['lower-case region', { locale: 'fr-fr' }, 'locale: must be a locale tag'],
    ['language only', { locale: 'fr' }, 'locale: must be a locale tag'],
  ])('answers 422 invalid_signing_request naming the field for %s', async (_label, overrides, message) => {
    const answer = await createSigningRequest(simulator, token, signingRequestBody(uploadId, overrides));
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('invalid_signing_request');
    expect(answer.body.error.message).toContain(message);
  });

  it('answers 422 upload_not_found for an unknown upload or another client’s upload', async () => {
    const unknown = await createSigningRequest(simulator, token, signingRequestBody('upl_0000'));
    expect([unknown.status, unknown.body.error.code]).toEqual([422, 'upload_not_found']);

    const other = { clientId: 'other', clientSecret: 'other-secret', scopes: ['signing.create' as const] };
    simulator.addClient(other);
    const otherToken = await getToken(simulator, other);
    const foreign = await createSigningRequest(simulator, otherToken, signingRequestBody(uploadId));
    expect([foreign.status, foreign.body.error.code]).toEqual([422, 'upload_not_found']);
  });

  it('answers 422 upload_expired once the upload lifetime has passed by the clock', async () => {
    simulator.clock.advance(3_599_000);
    expect((await createSigningRequest(simulator, token, signingRequestBody(uploadId))).status).toBe(201);
    simulator.clock.advance(1_000);
    const expired = await createSigningRequest(simulator, token, signingRequestBody(uploadId));
    expect([expired.status, expired.body.error.code]).toEqual([422, 'upload_expired']);
  });
});

describe('GET /api/v1/signing-requests/{id}', () => {
  it('shows a new request as draft with a pending document and null timestamps', async () => {
    const id = await createDraftRequest(simulator, token);
    const answer = await readRequest(simulator, token, id);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      id,
      external_reference: 'HR-2026-001',
      transaction_type: 'employment_contract',
      submission_status: 'accepted',
      status: 'draft',
      document: { status: 'pending' },
      evidence: { ready: false },
      prepared_at: null,
      opened_at: null,
      finalized_at: null,
    });
  });

  it('answers 404 signing_request_not_found for an unknown id', async () => {
    const answer = await readRequest(simulator, token, 'sr_doesnotexist');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({
      error: { code: 'signing_request_not_found', message: expect.any(String) },
    });
  });

  it('answers 404 for another client’s request', async () => {
    const id = await createDraftRequest(simulator, token);
    const other = { clientId: 'other', clientSecret: 'other-secret', scopes: ['signing.read' as const] };
    simulator.addClient(other);
    const answer = await readRequest(simulator, await getToken(simulator, other), id);
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('signing_request_not_found');
  });
});
