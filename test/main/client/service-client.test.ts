import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CreationAnswer } from '../../../main/domain/service-answers';
import type { ServiceResult } from '../../../main/domain/service-failure';
import { normalizeFilename } from '../../../shared/service/filename';
import type { CreateSigningRequestBody, Participant } from '../../../shared/service/wire';
import { READ_SPACING_MS } from '../../../main/client/read-spacing';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { expectFailure, expectOk, makeTestClient, uploadSourceOf } from '../../support/client-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';

const signer: Participant = {
  participant_type: 'signer',
  role: 'Employee',
  name: 'Anne Dupré',
  email: 'anne.dupre@example.com',
  signing_order: 1,
};
const observer: Participant = {
  participant_type: 'observer',
  role: 'HR',
  name: 'Bruno Keller',
  email: 'bruno.keller@example.com',
};

function bodyFor(
  uploadId: string,
  reference: string,
  recipients: Participant[] = [signer],
): CreateSigningRequestBody {
  return {
    external_reference: reference,
    transaction_type: 'employment_contract',
    document: { upload_id: uploadId },
    recipients,
    signing: { enforce_order: true, owner: { must_sign: false } },
    locale: 'fr-FR',
  };
}

/** The service and every client of a test on one virtual clock: waits (spacing, backoff, Retry-After) take no real time. */
let sim: Simulator;
let clock: VirtualClock;
let files: TempFolder;
let pdfPath: string;

beforeAll(async () => {
  files = makeTempFolder();
  pdfPath = await writePdf(files, 'Contrat été 2026.pdf', 'Employment contract');
});
afterAll(() => files.remove());
beforeEach(async () => {
  ({ sim, clock } = await startVirtualSimulator({ seed: 7 }));
});
afterEach(async () => {
  await sim.close();
});

/** A creation that succeeded with a readable id (the simulator always gives one). */
function createdOf(result: ServiceResult<CreationAnswer>): CreationAnswer & { id: string } {
  const answer = expectOk(result);
  if (answer.id === undefined) throw new Error('expected the creation to return an id');
  return { ...answer, id: answer.id };
}

function client(overrides = {}) {
  return makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock, ...overrides });
}

/** Lets virtual time run until `work` (calls that may wait for their turn or a backoff) has ended. */
function run<T>(work: Promise<T>): Promise<T> {
  return clock.complete(work);
}

/** Upload → create → participant → prepare, as the send engine does it. */
async function prepareOne(reference: string, c = client().client) {
  const upload = expectOk(await c.uploadDocument(uploadSourceOf(pdfPath)));
  const key = randomUUID();
  const created = createdOf(await c.createSigningRequest(bodyFor(upload.upload_id, reference), key));
  // As the engine does it: after an attempt that may have added the participant, call again;
  // a conflict then means it is there (the storm below loses answers on purpose).
  let added = await c.addParticipant(created.id, observer);
  let mayHaveAdded = false;
  while (!added.ok && added.error.outcomeUnknown) {
    mayHaveAdded = true;
    added = await c.addParticipant(created.id, observer);
  }
  if (!added.ok && !(added.error.code === 'participant_conflict' && mayHaveAdded)) expectOk(added);
  const prepared = expectOk(await c.prepareSigningRequest(created.id));
  return { upload, created, prepared, key };
}

describe('each endpoint (spec §4)', () => {
  it('tests the connection by obtaining a token and reports the granted scopes', async () => {
    const grant = expectOk(await run(client().client.testConnection()));
    expect(grant.scopes).toEqual(
      expect.arrayContaining(['signing.create', 'signing.read', 'ceremony.create']),
    );
    expect(grant.expiresInSeconds).toBe(3600);
    expect(JSON.stringify(grant)).not.toContain('sim_at_');
  });

  it('uploads a real PDF: the service stores the predicted name and the same SHA-256', async () => {
    const { client: c } = client();
    const progress: number[] = [];
    const upload = expectOk(
      await run(c.uploadDocument(uploadSourceOf(pdfPath), { onProgress: (sent) => progress.push(sent) })),
    );
    const localSha = createHash('sha256').update(readFileSync(pdfPath)).digest('hex');
    expect(upload.upload_id).toMatch(/^upl_/);
    expect(upload.sha256).toBe(localSha);
    expect(upload.size_bytes).toBe(readFileSync(pdfPath).length);
    expect(upload.filename).toBe(normalizeFilename('Contrat été 2026.pdf'));
    expect(upload.filename).toBe('Contrat_ete_2026.pdf');
    expect(progress.at(-1)).toBe(upload.size_bytes);
  });

  it('reports upload progress in slices of at most 64 KiB as the connection takes them, not a whole read at once', async () => {
    const { client: c } = client();
    // 3 MiB in one stored file: the disk is read a MiB at a time.
    const pdf = readFileSync(pdfPath);
    const bigPath = files.file('big.pdf');
    writeFileSync(bigPath, Buffer.concat([pdf, Buffer.alloc(3 * 1024 * 1024 - pdf.length, 0x20)]));
    const progress: number[] = [];
    const upload = expectOk(
      await run(c.uploadDocument(uploadSourceOf(bigPath), { onProgress: (sent) => progress.push(sent) })),
    );
    expect(upload.size_bytes).toBe(3 * 1024 * 1024);
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(3 * 1024 * 1024);
    const steps = progress.slice(1).map((sent, index) => sent - (progress[index] ?? 0));
    expect(Math.min(...steps)).toBeGreaterThan(0);
    expect(Math.max(...steps)).toBeLessThanOrEqual(64 * 1024);
  });

  it.each([
    ['Q3%20report.pdf', 'Q3_20report.pdf'],
    ['Devis n°12 – Müller & Söhne.pdf', normalizeFilename('Devis n°12 – Müller & Söhne.pdf')],
    ['plain name.PDF', normalizeFilename('plain name.PDF')],
  ])('the service stores exactly the name the app predicts for %s', async (name, predicted) => {
    const { client: c } = client();
    const upload = expectOk(await run(c.uploadDocument({ ...uploadSourceOf(pdfPath), filename: name })));
    expect(upload.filename).toBe(predicted);
    expect(upload.filename).toBe(normalizeFilename(name));
    expect(sim.state.violations()).toEqual([]);
  });

  it('creates a signing request once per Idempotency-Key, and a retry replays it', async () => {
    const { client: c } = client();
    const upload = expectOk(await run(c.uploadDocument(uploadSourceOf(pdfPath))));
    const key = randomUUID();
    const first = createdOf(await run(c.createSigningRequest(bodyFor(upload.upload_id, 'HR-1'), key)));
    const again = createdOf(await run(c.createSigningRequest(bodyFor(upload.upload_id, 'HR-1'), key)));
    expect(first).toEqual({
      id: expect.stringMatching(/^sr_/),
      replayed: false,
      earlierAttemptUnknown: false,
      locationId: undefined,
      serviceTime: expect.any(Number),
    });
    expect(again).toMatchObject({ id: first.id, replayed: true, earlierAttemptUnknown: false });
    expect(sim.state.countByExternalReference()).toEqual({ 'HR-1': 1 });
  });

  it('adds a participant, prepares, opens a widget session and reads the request', async () => {
    const { client: c } = client();
    const { created, prepared } = await run(prepareOne('HR-2', c));
    expect(prepared.alreadyPrepared).toBe(false);
    expect(prepared.revision).toBe(1);
    expect(prepared.sha256).toMatch(/^[0-9a-f]{64}$/);

    const session = expectOk(await run(c.createWidgetSession(created.id)));
    expect(session.expiresInSeconds).toBe(900);
    // Answered at this instant of the virtual clock: valid exactly 900 s from it.
    expect(session.expiresAt).toBe(clock.now() + 900_000);
    expect(session.widgetUrl.reveal()).toMatch(new RegExp(`^${sim.baseUrl}/widget/`));
    expect(`${session.widgetUrl}`).toBe('[redacted]');
    expect(JSON.stringify(session)).not.toContain('/widget/');

    const read = expectOk(await run(c.getSigningRequest(created.id)));
    expect(read).toMatchObject({ id: created.id, status: 'prepared', document: { status: 'prepared' } });
    expect(read.prepared_at).toEqual(expect.any(String));
  });

  it('reads a request in a status outside the documented set and keeps it as it is', async () => {
    const { client: c } = client();
    const upload = expectOk(await run(c.uploadDocument(uploadSourceOf(pdfPath))));
    const created = createdOf(
      await run(c.createSigningRequest(bodyFor(upload.upload_id, 'HR-3'), randomUUID())),
    );
    const read = expectOk(await run(c.getSigningRequest(created.id)));
    expect(read.status).toBe('draft');
  });

  it('honours the widget lifetime the service returns, not an assumed 900 s', async () => {
    await sim.close();
    ({ sim } = await startVirtualSimulator({ widgetTtlSeconds: 42 }, clock));
    const { client: c } = client();
    const { created } = await run(prepareOne('HR-4', c));
    const session = expectOk(await run(c.createWidgetSession(created.id)));
    expect(session.expiresInSeconds).toBe(42);
    expect(session.expiresAt - clock.now()).toBe(42_000);
  });

  it('sends Accept: application/json on every call', async () => {
    await run(prepareOne('HR-5'));
    expect(sim.state.violations()).toEqual([]);
  });
});

describe('documented errors come back typed, with the catalog message', () => {
  it('missing_pdf for an empty file', async () => {
    const empty = files.file('empty.pdf');
    writeFileSync(empty, '');
    const error = expectFailure(await run(client().client.uploadDocument(uploadSourceOf(empty))));
    expect(error).toMatchObject({ httpStatus: 422, code: 'missing_pdf', retryable: false });
    expect(error.message).toBe(
      'The PDF file is empty. Remove this document and add the PDF again from a copy that opens correctly.',
    );
  });

  it('invalid_pdf for a file without a PDF header', async () => {
    const fake = files.file('fake.pdf');
    writeFileSync(fake, 'PK\u0003\u0004 this is a zip file');
    const error = expectFailure(await run(client().client.uploadDocument(uploadSourceOf(fake))));
    expect(error).toMatchObject({ httpStatus: 422, code: 'invalid_pdf' });
  });

  it('pdf_too_large above 50 MiB', async () => {
    const big = files.file('big.pdf');
    const bytes = Buffer.alloc(50 * 1024 * 1024 + 1, 0x20);
    bytes.write('%PDF-1.7\n');
    writeFileSync(big, bytes);
    const error = expectFailure(await run(client().client.uploadDocument(uploadSourceOf(big))));
    expect(error).toMatchObject({ httpStatus: 413, code: 'pdf_too_large', retryable: false });
  });

  it('signing_request_not_found for an unknown request and for another client’s request', async () => {
    const { client: c } = client();
    const unknown = expectFailure(await run(c.getSigningRequest('sr_does_not_exist')));
    expect(unknown).toMatchObject({ httpStatus: 404, code: 'signing_request_not_found' });

    const { created } = await run(prepareOne('HR-10', c));
    sim.addClient({ clientId: 'other-desk', clientSecret: 'other-secret', scopes: ['signing.read'] });
    const other = makeTestClient(
      sim.baseUrl,
      {
        clientId: 'other-desk',
        clientSecret: 'other-secret',
      },
      { clock },
    ).client;
    const foreign = expectFailure(await run(other.getSigningRequest(created.id)));
    expect(foreign).toMatchObject({ httpStatus: 404, code: 'signing_request_not_found' });
  });

  it('signing_request_not_ready for a widget session before preparation', async () => {
    const { client: c } = client();
    const upload = expectOk(await run(c.uploadDocument(uploadSourceOf(pdfPath))));
    const created = createdOf(
      await run(c.createSigningRequest(bodyFor(upload.upload_id, 'HR-11'), randomUUID())),
    );
    const error = expectFailure(await run(c.createWidgetSession(created.id)));
    expect(error).toMatchObject({ httpStatus: 409, code: 'signing_request_not_ready' });
  });

  it('participant_conflict when adding after preparation, invalid_participant_request for a bad one', async () => {
    const { client: c } = client();
    const { created } = await run(prepareOne('HR-12', c));
    const late = expectFailure(
      await run(c.addParticipant(created.id, { ...observer, email: 'late@example.com' })),
    );
    expect(late).toMatchObject({ httpStatus: 409, code: 'participant_conflict' });

    const upload = expectOk(await run(c.uploadDocument(uploadSourceOf(pdfPath))));
    const draft = createdOf(
      await run(c.createSigningRequest(bodyFor(upload.upload_id, 'HR-13'), randomUUID())),
    );
    const invalid = { ...observer, email: 'not-an-address' } as Participant;
    const bad = expectFailure(await run(c.addParticipant(draft.id, invalid)));
    expect(bad).toMatchObject({ httpStatus: 422, code: 'invalid_participant_request' });
  });

  it('participant_forbidden, prepare_forbidden and widget_session_forbidden without ceremony.create', async () => {
    const { client: c } = client();
    const { created } = await run(prepareOne('HR-14', c));
    const upload = expectOk(await run(c.uploadDocument(uploadSourceOf(pdfPath))));
    const draft = createdOf(
      await run(c.createSigningRequest(bodyFor(upload.upload_id, 'HR-15'), randomUUID())),
    );
    // The same application with a narrower grant: requests stay visible, ceremonies are refused.
    sim.addClient({
      clientId: 'reader',
      clientSecret: 'reader-secret',
      scopes: ['signing.create', 'signing.read'],
    });
    const reader = makeTestClient(
      sim.baseUrl,
      { clientId: 'reader', clientSecret: 'reader-secret' },
      { clock },
    ).client;
    const readerUpload = expectOk(await run(reader.uploadDocument(uploadSourceOf(pdfPath))));
    const readerDraft = createdOf(
      await run(reader.createSigningRequest(bodyFor(readerUpload.upload_id, 'HR-16'), randomUUID())),
    );
    expect(expectFailure(await run(reader.addParticipant(readerDraft.id, observer)))).toMatchObject({
      httpStatus: 403,
      code: 'participant_forbidden',
    });
    expect(expectFailure(await run(reader.prepareSigningRequest(readerDraft.id)))).toMatchObject({
      httpStatus: 403,
      code: 'prepare_forbidden',
    });
    expect(expectFailure(await run(reader.createWidgetSession(readerDraft.id)))).toMatchObject({
      httpStatus: 403,
      code: 'widget_session_forbidden',
    });
    expect(created.id).not.toBe(draft.id);
  });

  it('invalid_prepare_request for a request without a signer', async () => {
    const { client: c } = client();
    const upload = expectOk(await run(c.uploadDocument(uploadSourceOf(pdfPath))));
    const created = createdOf(
      await run(c.createSigningRequest(bodyFor(upload.upload_id, 'HR-17', [observer]), randomUUID())),
    );
    expect(expectFailure(await run(c.prepareSigningRequest(created.id)))).toMatchObject({
      httpStatus: 422,
      code: 'invalid_prepare_request',
    });
  });

  it('prepare_conflict on an already prepared request resolves to "already prepared"', async () => {
    const { client: c } = client();
    const { created } = await run(prepareOne('HR-18', c));
    const again = expectOk(await run(c.prepareSigningRequest(created.id)));
    expect(again.alreadyPrepared).toBe(true);
    expect(sim.state.calls().some((call) => call.operation === 'prepare' && call.status === 409)).toBe(true);
  });

  it('widget_session_conflict once the request is completed', async () => {
    const { client: c } = client();
    const { created } = await run(prepareOne('HR-19', c));
    sim.complete(created.id);
    expect(expectFailure(await run(c.createWidgetSession(created.id)))).toMatchObject({
      httpStatus: 409,
      code: 'widget_session_conflict',
    });
  });

  it('upload_expired when the upload outlived expires_in_hours', async () => {
    const { client: c } = client();
    const upload = expectOk(await run(c.uploadDocument(uploadSourceOf(pdfPath))));
    sim.clock.advance((upload.expires_in_hours ?? 0) * 3600_000 + 1000);
    const error = expectFailure(
      await run(c.createSigningRequest(bodyFor(upload.upload_id, 'HR-20'), randomUUID())),
    );
    expect(error).toMatchObject({ httpStatus: 422, code: 'upload_expired', retryable: false });
  });

  it('idempotency_key_reused when a key is sent again with another body', async () => {
    const { client: c } = client();
    const upload = expectOk(await run(c.uploadDocument(uploadSourceOf(pdfPath))));
    const key = randomUUID();
    createdOf(await run(c.createSigningRequest(bodyFor(upload.upload_id, 'HR-21'), key)));
    const error = expectFailure(await run(c.createSigningRequest(bodyFor(upload.upload_id, 'HR-21b'), key)));
    expect(error).toMatchObject({ httpStatus: 409, code: 'idempotency_key_reused' });
    expect(sim.state.countByExternalReference()['HR-21b']).toBeUndefined();
  });
});

describe('tokens', () => {
  it('rejects wrong credentials with a message that never contains the secret', async () => {
    const { client: c, log } = makeTestClient(
      sim.baseUrl,
      {
        clientId: DEMO_CLIENT.clientId,
        clientSecret: 'wrong-secret-123',
      },
      { clock },
    );
    const error = expectFailure(await run(c.testConnection()));
    expect(error).toMatchObject({ code: 'credentials_rejected', httpStatus: 401, retryable: false });
    expect(JSON.stringify(error)).not.toContain('wrong-secret-123');
    expect(log.lines.join('\n')).not.toContain('wrong-secret-123');
  });

  it('reuses one token across calls, renews it before it expires in the middle of work', async () => {
    // The client reads the same clock as the service, as two machines with synced clocks do.
    const { client: c } = client();
    await run(prepareOne('TOK-1', c));
    const tokenCalls = () => sim.state.calls().filter((call) => call.path === '/oauth/token').length;
    expect(tokenCalls()).toBe(1);
    // An hour goes by for both.
    await clock.advance(3601_000);
    await run(prepareOne('TOK-2', c));
    expect(tokenCalls()).toBe(2);
    expect(sim.state.calls().filter((call) => call.status === 401)).toHaveLength(0);
  });

  it('renews after expiry it did not foresee (clocks apart): one 401, then a new token', async () => {
    const { client: c } = client();
    await run(prepareOne('TOK-5', c));
    sim.clock.advance(3601_000);
    await run(prepareOne('TOK-6', c));
    expect(sim.state.calls().filter((call) => call.status === 401)).toHaveLength(1);
    expect(sim.state.calls().filter((call) => call.path === '/oauth/token')).toHaveLength(2);
  });

  it('renews once after a 401 (revoked token) and carries on', async () => {
    const { client: c } = client();
    await run(prepareOne('TOK-3', c));
    sim.revokeTokens();
    await run(prepareOne('TOK-4', c));
    expect(sim.state.calls().filter((call) => call.status === 401)).toHaveLength(1);
    expect(sim.state.countByExternalReference()).toMatchObject({ 'TOK-3': 1, 'TOK-4': 1 });
  });

  it('after a 401, retries with a token asked for then: one another call renewed during the wait and the service refused since is no sign of bad credentials', async () => {
    // A service that does not say how long tokens live answers 401 when one is too old. The read
    // waits its spacing (5 s) before trying again; meanwhile another call gets a new token, and
    // that one grows too old as well before the read goes.
    const { client: c } = client();
    const { created } = await run(prepareOne('TOK-7', c));
    sim.revokeTokens();
    const reading = c.getSigningRequest(created.id);
    const refusedReads = () =>
      sim.state.calls().filter((call) => call.operation === 'readSigningRequest' && call.status === 401)
        .length;
    await clock.runUntil(() => refusedReads() > 0, { what: 'the read refused' });
    expectOk(await run(c.testConnection()));
    sim.revokeTokens();
    expect(expectOk(await run(reading)).id).toBe(created.id);
    expect(refusedReads()).toBe(1);
    // The read went last, with a token of its own: asked for after the one Test connection got.
    const calls = sim.state.calls();
    const tokenCalls = calls.flatMap((call, index) => (call.operation === 'token' ? [index] : []));
    expect(tokenCalls).toHaveLength(3);
    const read = calls.findIndex((call) => call.operation === 'readSigningRequest' && call.status === 200);
    expect(read).toBeGreaterThan(tokenCalls[2] ?? Infinity);
  });

  it('shares one token request between concurrent calls', async () => {
    const { client: c } = client();
    await run(Promise.all(Array.from({ length: 8 }, () => c.uploadDocument(uploadSourceOf(pdfPath)))));
    expect(sim.state.calls().filter((call) => call.path === '/oauth/token')).toHaveLength(1);
  });
});

describe('transient failures', () => {
  it('waits as long as Retry-After says on a 429, then succeeds', async () => {
    const { client: c } = client();
    expectOk(await run(c.testConnection()));
    sim.faults.enqueue({ kind: '429', retryAfterSeconds: 1, pathPattern: '^/api/v1/uploads$' });
    expectOk(await run(c.uploadDocument(uploadSourceOf(pdfPath))));
    const [limited, retried] = sim.state.calls().filter((call) => call.path === '/api/v1/uploads');
    expect(limited?.status).toBe(429);
    expect(retried?.status).toBe(201);
    // The retry arrived once the second was over, and not later than its backoff after it.
    const waited = Date.parse(retried?.at ?? '') - Date.parse(limited?.at ?? '');
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(waited).toBeLessThanOrEqual(1050);
  });

  it('retries 503 until the service recovers, and gives up with a retryable failure after the bound', async () => {
    const { client: c } = client();
    sim.faults.enqueue(
      { kind: '503', pathPattern: 'uploads', retryAfterSeconds: 0 },
      { kind: '503', pathPattern: 'uploads', retryAfterSeconds: 0 },
      { kind: '503', pathPattern: 'uploads', retryAfterSeconds: 0 },
    );
    expectOk(await run(c.uploadDocument(uploadSourceOf(pdfPath))));

    sim.faults.set({ rate503: 1, retryAfterSeconds: 0 });
    const error = expectFailure(await run(c.uploadDocument(uploadSourceOf(pdfPath))));
    expect(error).toMatchObject({
      code: 'upstream_unavailable',
      httpStatus: 503,
      retryable: true,
      attempts: 8,
    });
  });

  it('a create whose answer was lost is retried with the same key and yields one request', async () => {
    const { client: c } = client();
    const upload = expectOk(await run(c.uploadDocument(uploadSourceOf(pdfPath))));
    sim.faults.enqueue({ kind: 'dropAfter', pathPattern: 'signing-requests$' });
    const created = createdOf(
      await run(c.createSigningRequest(bodyFor(upload.upload_id, 'DROP-1'), randomUUID())),
    );
    expect(created).toMatchObject({ replayed: true, earlierAttemptUnknown: true });
    expect(sim.state.countByExternalReference()).toEqual({ 'DROP-1': 1 });
  });

  it('a participant whose answer was lost is not sent again: the call says it may have been added', async () => {
    const { client: c } = client();
    const upload = expectOk(await run(c.uploadDocument(uploadSourceOf(pdfPath))));
    const created = createdOf(
      await run(c.createSigningRequest(bodyFor(upload.upload_id, 'DROP-2'), randomUUID())),
    );
    sim.faults.enqueue({ kind: 'dropAfter', pathPattern: 'participants$' });
    const attempts: number[] = [];
    const error = expectFailure(
      await run(c.addParticipant(created.id, observer, { onAttempt: (attempt) => attempts.push(attempt) })),
    );
    // No idempotency key: the caller records the unknown outcome before anything leaves again.
    expect(error).toMatchObject({ code: 'network_unreachable', outcomeUnknown: true });
    expect(attempts).toEqual([1]);
    const request = sim.state.requests().find((record) => record.id === created.id);
    expect(request?.participants.filter((p) => p.email === observer.email)).toHaveLength(1);
  });

  it('a prepare whose answer was lost resolves to prepared', async () => {
    const { client: c } = client();
    const upload = expectOk(await run(c.uploadDocument(uploadSourceOf(pdfPath))));
    const created = createdOf(
      await run(c.createSigningRequest(bodyFor(upload.upload_id, 'DROP-3'), randomUUID())),
    );
    sim.faults.enqueue({ kind: 'dropAfter', pathPattern: 'prepare$' });
    const prepared = expectOk(await run(c.prepareSigningRequest(created.id)));
    expect(prepared.alreadyPrepared).toBe(true);
    expect(expectOk(await run(c.getSigningRequest(created.id))).status).toBe('prepared');
  });

  it('reports the service as unreachable after two refused connections, and works again when it is back', async () => {
    const { client: c } = client({ retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 6 } });
    expectOk(await run(c.testConnection()));
    await sim.goOffline();
    const error = expectFailure(await run(c.getSigningRequest('sr_any')));
    expect(error).toMatchObject({
      code: 'network_unreachable',
      retryable: true,
      outcomeUnknown: false,
      attempts: 2,
    });
    expect(error.message).toContain('cannot be reached');
    await sim.goOnline();
    expect(expectFailure(await run(c.getSigningRequest('sr_any'))).code).toBe('signing_request_not_found');
  });

  it('times out a call that takes too long', async () => {
    const { client: c } = client({
      callTimeoutMs: 200,
      retry: { baseDelayMs: 5, maxDelayMs: 10, maxAttempts: 2 },
    });
    expectOk(await run(c.testConnection()));
    // Past the hold on a new client's first reads: the first attempt leaves at once.
    await clock.advance(READ_SPACING_MS);
    sim.faults.set({ latencyMs: 600 });
    const reading = c.getSigningRequest('sr_any');
    // The service holds each answer 600 ms: only the client's own deadline ends each attempt. The
    // second waits the read spacing, counted from the first one's end.
    await clock.advanceWhileCallsHang(READ_SPACING_MS + 1_000);
    const error = expectFailure(await reading);
    expect(error).toMatchObject({ code: 'timeout', retryable: true, outcomeUnknown: true, attempts: 2 });
    const reads = sim.state.calls().filter((call) => call.operation === 'readSigningRequest');
    expect(reads).toHaveLength(2);
    // The first attempt was given up 200 ms after it left, by the client's deadline.
    const gap = Date.parse(reads[1]?.at ?? '') - Date.parse(reads[0]?.at ?? '');
    expect(gap).toBe(200 + READ_SPACING_MS);
  });

  it('stops waiting as soon as the caller aborts', async () => {
    const { client: c } = client();
    expectOk(await run(c.testConnection()));
    // Past the hold on a new client's first reads: the read leaves at once and waits for its answer.
    await clock.advance(READ_SPACING_MS);
    sim.faults.set({ latencyMs: 5_000 });
    const controller = new AbortController();
    const reading = c.getSigningRequest('sr_any', { signal: controller.signal });
    await clock.runUntil(() => sim.state.callsUnderWay() === 1, { what: 'the read on its way' });
    clock.timer(100, () => controller.abort(new Error('paused by user')));
    let ended = false;
    void reading.catch(() => undefined).finally(() => (ended = true));
    // The service holds the call 5 s: time runs to the abort whatever is on the wire.
    await clock.advanceWhileCallsHang(99);
    expect(ended).toBe(false);
    await clock.advanceWhileCallsHang(1);
    // At the abort, not at the answer 5 s later.
    expect(ended).toBe(true);
    await expect(reading).rejects.toThrow('paused by user');
  });
});

describe('a fault storm: 20% 503 and dropped connections', () => {
  it('finishes every operation correctly, exactly one request per reference, no secret in the log', async () => {
    // Ten attempts per call: eight faults in a row (p = 0.32^8 per call) would otherwise fail a run now and then.
    const { client: c, log } = client({
      retry: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 10, maxRetryAfterMs: 5_000 },
    });
    sim.faults.set({
      rate503: 0.2,
      dropBeforeRate: 0.05,
      dropAfterRate: 0.05,
      rate429: 0.02,
      retryAfterSeconds: 1,
    });
    const started = clock.monotonic();
    const references = Array.from({ length: 30 }, (_, index) => `STORM-${index + 1}`);
    // One driver of virtual time for all thirty: it moves only while no call is on the wire.
    const results = await run(
      Promise.all(
        references.map(async (reference) => {
          const { created } = await prepareOne(reference, c);
          const session = expectOk(await c.createWidgetSession(created.id));
          const read = expectOk(await c.getSigningRequest(created.id));
          return { session, read };
        }),
      ),
    );
    expect(results.every(({ read }) => read.status === 'prepared')).toBe(true);
    expect(sim.state.countByExternalReference()).toEqual(Object.fromEntries(references.map((r) => [r, 1])));
    const localSha = createHash('sha256').update(readFileSync(pdfPath)).digest('hex');
    const uploadSha = new Map(sim.state.uploads().map((upload) => [upload.uploadId, upload.sha256]));
    for (const request of sim.state.requests()) {
      // The recipient from the creation and the observer added afterwards, each exactly once.
      expect(request.participants.map((participant) => participant.email).sort()).toEqual(
        [observer.email, ...bodyFor('upl_x', 'x').recipients.map((recipient) => recipient.email)].sort(),
      );
      expect(uploadSha.get(request.uploadId)).toBe(localSha);
    }
    for (const { session } of results) expect(session.expiresInSeconds).toBe(900);
    // Calls already on their way when a 429 or 503 was written can only arrive after it; the
    // simulator counts them too. Calls that left once the client knew are checked just below.
    expect(sim.state.violations().filter((violation) => !violation.startsWith('retry-after:'))).toEqual([]);
    const faulted = sim.state.calls().filter((call) => call.fault !== null);
    expect(faulted.length).toBeGreaterThan(20);
    expect(new Set(faulted.map((call) => call.fault))).toEqual(
      new Set(['503', '429', 'dropBefore', 'dropAfter']),
    );
    // Retry-After (1 s) was honoured: no retry of a 503 or 429 came sooner.
    expect(clock.monotonic() - started).toBeGreaterThanOrEqual(1_000);
    const calls = sim.state.calls();
    // Paths of one request only (an upload's or a creation's path is shared by every reference).
    const perRequest = /\/signing-requests\/[^/]+\/(participants|prepare|widget-session)$/;
    for (const [index, call] of calls.entries()) {
      if ((call.fault !== '503' && call.fault !== '429') || !perRequest.test(call.path)) continue;
      const retry = calls
        .slice(index + 1)
        .find((later) => later.path === call.path && later.method === call.method);
      if (retry) expect(Date.parse(retry.at) - Date.parse(call.at)).toBeGreaterThanOrEqual(990);
    }
    // Retry-After for everyone: after a 429 or 503 (Retry-After 1 s), no call of the same
    // operation arrives in that second. Virtual time does not move while a call is on the wire,
    // so calls already on their way when the answer was written arrive at its very instant; any
    // later one left after the client knew (a client without the shared gate sends several).
    for (const call of calls) {
      if (call.fault !== '503' && call.fault !== '429') continue;
      const given = Date.parse(call.at);
      const inside = calls.filter(
        (other) =>
          other.operation === call.operation &&
          Date.parse(other.at) > given &&
          Date.parse(other.at) < given + 1000,
      );
      expect(inside, `${call.operation} within a second of a ${call.fault}`).toEqual([]);
    }

    const written = log.lines.join('\n');
    expect(written).toContain('service.retry');
    expect(written).not.toContain(DEMO_CLIENT.clientSecret);
    expect(written).not.toContain('sim_at_');
    expect(written).not.toContain('/widget/');
    for (const { session } of results) expect(written).not.toContain(session.widgetUrl.reveal());
    // Reads of one request are 5 s apart, retries included: a read that meets a fault waits its turn.
    for (const request of sim.state.requests()) {
      const reads = calls
        .filter((call) => call.operation === 'readSigningRequest' && call.path.endsWith(`/${request.id}`))
        .map((call) => Date.parse(call.at));
      for (const [index, at] of reads.slice(1).entries())
        expect(at - (reads[index] ?? 0), `reads of ${request.id}`).toBeGreaterThanOrEqual(5_000);
    }
  });
});
