import { randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { phaseOf } from '../../../main/domain/batch-state';
import type { Desk } from '../../../main/app/desk-core';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import type { Simulator, SimulatorOptions } from '../../../simulator/simulator';
import { variantNamed } from '../../../simulator/variants';
import { violationsOfKind } from '../../../simulator/violations';
import { makeBatch } from '../../support/batch-harness';
import { CrashFileSystem } from '../../support/crash-fs';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

/**
 * Exactly once against services that make other choices the spec allows (README "Sending exactly
 * once"): each test stages one case an outside review found, through the real engine over real
 * HTTP, and checks what the user would check — how many signing requests the service holds per
 * document, and what the document says. Service and desk run on one virtual clock.
 */
let sim: Simulator | undefined;
let clock: VirtualClock;
let files: TempFolder | undefined;
let desk: Desk | undefined;

afterEach(async () => {
  if (desk) await clock.complete(desk.close());
  await sim?.close();
  files?.remove();
  desk = undefined;
  sim = undefined;
  files = undefined;
});

async function setUp(
  options: SimulatorOptions = {},
  deskOptions: Parameters<typeof openVirtualDesk>[3] = {},
) {
  ({ sim, clock } = await startVirtualSimulator({ seed: 3, ...options }));
  files = makeTempFolder('desk-exactly-once-');
  desk = await openVirtualDesk(sim, clock, files.file('data'), { reuploadBackoffMs: 20, ...deskOptions });
  return { sim, files, desk };
}

const CREATE_PATH = '^/api/v1/signing-requests$';

describe('a creation whose outcome is unknown is never sent again by itself', () => {
  it('after a lost answer and then a gateway 404 (HTML), the same key is replayed: one request, prepared', async () => {
    const { sim, files, desk } = await setUp();
    const batch = await makeBatch(desk, files, 1);
    // Every attempt of the first call is applied and its answer lost; then a gateway answers 404.
    sim.faults.enqueue(
      ...Array.from({ length: 4 }, () => ({ kind: 'dropAfter' as const, pathPattern: CREATE_PATH })),
      { kind: 'gateway404', pathPattern: CREATE_PATH },
    );
    await clock.complete(desk.engine.send(batch.id));
    // As a user would: retry whatever failed.
    for (const document of desk.store.get(batch.id)?.documents ?? [])
      if (document.send.error) await clock.complete(desk.engine.retry(batch.id, document.draft.id));
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
    expect(summary).toMatchObject({ state: 'finished', prepared: 1, failed: 0, needsCheck: 0 });
    expect(sim.state.violations()).toEqual([]);
  });

  it('after a lost answer and then a 404 the service itself words, the document needs a check: no second request', async () => {
    const { sim, files, desk } = await setUp();
    const batch = await makeBatch(desk, files, 1);
    sim.faults.enqueue(
      ...Array.from({ length: 4 }, () => ({ kind: 'dropAfter' as const, pathPattern: CREATE_PATH })),
      { kind: 'reject', pathPattern: CREATE_PATH, status: 404, code: 'not_found' },
    );
    await clock.complete(desk.engine.send(batch.id));
    for (const document of desk.store.get(batch.id)?.documents ?? [])
      if (document.send.error) await clock.complete(desk.engine.retry(batch.id, document.draft.id));
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
    expect(summary).toMatchObject({ prepared: 0, needsCheck: 1 });
    const document = desk.store.get(batch.id)!.documents[0]!;
    expect(phaseOf(document)).toBe('needs_check');
    expect(document.send.check).toMatchObject({ reason: 'key_refused', code: 'not_found' });
    expect(document.send.check?.firstAttemptAt).toBeDefined();

    // The user finds REF-1's request at the service and links it: sending goes on with it.
    const [remote] = sim.state.requests();
    const wrong = await clock.complete(
      desk.engine.linkRequest(batch.id, document.draft.id, 'sr_does_not_exist'),
    );
    expect(wrong).toMatchObject({ ok: false });
    expect(await clock.complete(desk.engine.linkRequest(batch.id, document.draft.id, remote!.id))).toEqual({
      ok: true,
    });
    expect(await clock.complete(desk.engine.send(batch.id))).toMatchObject({
      state: 'finished',
      prepared: 1,
      needsCheck: 0,
    });
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
    expect(sim.state.requests()[0]).toMatchObject({ status: 'prepared' });
    expect(
      sim.state
        .requests()[0]!
        .participants.map((p) => p.email)
        .sort(),
    ).toEqual(['observer1@example.com', 'signer1@example.com']);
  });

  it('refuses to link a request that carries another reference', async () => {
    const { sim, files, desk } = await setUp();
    const batch = await makeBatch(desk, files, 2);
    sim.faults.enqueue(
      ...Array.from({ length: 4 }, () => ({ kind: 'dropAfter' as const, pathPattern: CREATE_PATH })),
      { kind: 'reject', pathPattern: CREATE_PATH, status: 422, code: 'rejected' },
    );
    await clock.complete(desk.engine.send(batch.id));
    const documents = desk.store.get(batch.id)!.documents;
    const checking = documents.find((document) => document.send.check)!;
    const sent = documents.find((document) => document.send.requestId)!;
    // The request another document of the data folder follows: refused before any read.
    expect(
      await clock.complete(desk.engine.linkRequest(batch.id, checking.draft.id, sent.send.requestId!)),
    ).toEqual({
      ok: false,
      error: {
        refusal: 'refused',
        message: `${sent.send.requestId} already belongs to ${sent.draft.externalReference} in ${batch.name}: one request cannot serve two documents. It was not linked.`,
      },
    });
    // A request of another reference that no document follows (made elsewhere): refused after its read.
    const { pdf } = checking.draft;
    const upload = await clock.complete(
      desk.client.uploadDocument({
        open: () => desk.blobs.openRead(pdf.sha256),
        sizeBytes: pdf.sizeBytes,
        filename: pdf.originalName,
      }),
    );
    if (!upload.ok) throw new Error(upload.error.message);
    const elsewhere = await clock.complete(
      desk.client.createSigningRequest(
        {
          ...checking.send.create!.body,
          external_reference: 'MADE-ELSEWHERE',
          document: { upload_id: upload.value.upload_id },
        },
        randomUUID(),
      ),
    );
    if (!elsewhere.ok || !elsewhere.value.id) throw new Error('expected a request made elsewhere');
    expect(
      await clock.complete(desk.engine.linkRequest(batch.id, checking.draft.id, elsewhere.value.id)),
    ).toEqual({
      ok: false,
      error: {
        refusal: 'refused',
        message: `${elsewhere.value.id} belongs to reference MADE-ELSEWHERE, not ${checking.draft.externalReference}. It was not linked.`,
      },
    });
  });
});

describe('extra participants', () => {
  it('a participant_conflict without an earlier unknown attempt is a failure with the service message, not "already there"', async () => {
    const { sim, files, desk } = await setUp();
    const batch = await makeBatch(desk, files, 1);
    // Paused right after the creation's answer is stored, before any participant call.
    const unsubscribe = desk.store.subscribe((_state, events) => {
      if (events.some((event) => event.type === 'request_created')) desk.engine.pause(batch.id);
    });
    await clock.complete(desk.engine.send(batch.id));
    unsubscribe();
    expect(sim.state.calls().filter((call) => call.operation === 'addParticipant')).toEqual([]);
    sim.faults.enqueue({
      kind: 'reject',
      pathPattern: '/participants$',
      status: 409,
      code: 'participant_conflict',
    });
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary).toMatchObject({ prepared: 0, failed: 1 });
    const document = desk.store.get(batch.id)!.documents[0]!;
    expect(document.send.error?.code).toBe('participant_conflict');
    expect(document.send.participants[0]?.done).toBeUndefined();
    // The request was never prepared without its observer.
    expect(sim.state.requests()[0]).toMatchObject({ status: 'draft' });
  });
});

describe('uploads the service no longer accepts', () => {
  it('an upload of unknown lifetime is used; a refusal that does not name it fails at once with the service reason', async () => {
    const { sim, files, desk } = await setUp({ variant: variantNamed('terse-token') });
    const batch = await makeBatch(desk, files, 1);
    sim.faults.enqueue({
      kind: 'reject',
      pathPattern: CREATE_PATH,
      status: 422,
      code: 'invalid_signing_request',
    });
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary).toMatchObject({ state: 'finished', failed: 1 });
    expect(sim.state.calls().filter((call) => call.operation === 'upload')).toHaveLength(1);
    expect(desk.store.get(batch.id)!.documents[0]!.send.error?.message).toContain('invalid_signing_request');
  });

  it('a refusal naming the upload is followed by at most two fresh uploads per run, then the service reason', async () => {
    const { sim, files, desk } = await setUp({ variant: variantNamed('terse-token') });
    const batch = await makeBatch(desk, files, 1);
    sim.faults.enqueue(
      ...Array.from({ length: 5 }, () => ({
        kind: 'reject' as const,
        pathPattern: CREATE_PATH,
        status: 422,
        code: 'invalid_upload',
      })),
    );
    const started = clock.monotonic();
    const summary = await clock.complete(desk.engine.send(batch.id));
    // No long wait between them (virtual time: exact, whatever the load of the computer running it).
    expect(clock.monotonic() - started).toBeLessThan(5_000);
    expect(summary).toMatchObject({ state: 'finished', failed: 1 });
    expect(sim.state.calls().filter((call) => call.operation === 'upload')).toHaveLength(3);
    const error = desk.store.get(batch.id)!.documents[0]!.send.error;
    expect(error?.code).toBe('invalid_upload');
    expect(error?.message).toContain('invalid_upload');
    expect(sim.state.countByExternalReference()).toEqual({});
  });

  it('a refusal naming the upload (invalid_upload) uploads again and sends', async () => {
    const { sim, files, desk } = await setUp();
    const batch = await makeBatch(desk, files, 1);
    sim.faults.enqueue({ kind: 'reject', pathPattern: CREATE_PATH, status: 422, code: 'invalid_upload' });
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary).toMatchObject({ state: 'finished', prepared: 1, failed: 0 });
    expect(sim.state.calls().filter((call) => call.operation === 'upload')).toHaveLength(2);
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
  });
});

describe('answers the spec leaves open', () => {
  it('a 204 from prepare, without a body, prepares every document (revision and digest read when the service shows them)', async () => {
    const { sim, files, desk } = await setUp({ variant: variantNamed('empty-204') });
    const batch = await makeBatch(desk, files, 3);
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary).toMatchObject({ state: 'finished', prepared: 3, failed: 0 });
    expect(sim.state.requests().map((request) => request.status)).toEqual([
      'prepared',
      'prepared',
      'prepared',
    ]);
    // The answer lacked them, so the client read each request once for them.
    expect(sim.state.calls().filter((call) => call.operation === 'readSigningRequest')).toHaveLength(3);
    for (const document of desk.store.get(batch.id)!.documents) expect(document.send.prepared).toBeDefined();
    expect(sim.state.violations()).toEqual([]);
  });

  it('after a 429 with Retry-After, no call of that operation from any document goes out inside the wait', async () => {
    const { sim, files, desk } = await setUp({}, { concurrency: 4 });
    const batch = await makeBatch(desk, files, 8);
    sim.faults.set({ rate429: 0.3, retryAfterSeconds: 1 });
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary).toMatchObject({ state: 'finished', prepared: 8 });
    expect(sim.state.calls().filter((call) => call.status === 429).length).toBeGreaterThan(3);
    expect(violationsOfKind(sim.state.violations(), 'retry-after')).toEqual([]);
    expect(sim.state.violations()).toEqual([]);
    expect(Object.values(sim.state.countByExternalReference())).toEqual(Array(8).fill(1));
  });
});

describe('a failed write to the data folder', () => {
  it('ends the run cleanly with a clear reason, and sending resumes once there is room, exactly once', async () => {
    const fs = new CrashFileSystem();
    const { sim, files, desk } = await setUp({}, { fs });
    const batch = await makeBatch(desk, files, 4);
    // Room for a few steps, then the disk is full.
    fs.setCapacity(fs.usedBytes + 3_000);
    // Every request the client puts on the wire (undici's diagnostics channel, at departure).
    const departures: string[] = [];
    const depart = (message: unknown) =>
      departures.push(String((message as { request: { path: string } }).request.path));
    subscribe('undici:request:create', depart);
    const stopped = await clock.complete(desk.engine.send(batch.id));
    const departedBeforeStop = departures.length;
    expect(stopped.state).toBe('stopped');
    expect(stopped.reason).toMatch(/disk .* is full/);
    expect(desk.engine.isRunning(batch.id)).toBe(false);
    // No call leaves after the stop; the calls already on their way are answered (or dropped).
    await sim.connectionsClosed();
    unsubscribe('undici:request:create', depart);
    expect(departedBeforeStop).toBeGreaterThan(0);
    expect(departures.slice(departedBeforeStop)).toEqual([]);

    // Still full: a new send stops again, the same way, without a restart.
    expect(await clock.complete(desk.engine.send(batch.id))).toMatchObject({ state: 'stopped' });
    fs.setCapacity(undefined);
    const finished = await clock.complete(desk.engine.send(batch.id));
    expect(finished).toMatchObject({ state: 'finished', prepared: 4, failed: 0, needsCheck: 0 });
    const counts = sim.state.countByExternalReference();
    expect(Object.values(counts).every((count) => count === 1)).toBe(true);
  });
});
