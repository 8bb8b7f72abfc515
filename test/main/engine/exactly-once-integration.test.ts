import { afterEach, describe, expect, it } from 'vitest';
import { phaseOf, type BatchState } from '../../../main/domain/batch-state';
import type { Desk } from '../../../main/app/desk-core';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import type { Simulator } from '../../../simulator/simulator';
import { makeBatch, observer } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

/**
 * Rules of the step machine (main/domain/step-machine.ts) that its table test checks one answer
 * at a time, staged here through the real engine against the simulator over HTTP, with faults
 * that strike at once: what the document says, and what the service holds per reference.
 * Service and desk run on one virtual clock.
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

const CREATE = '^/api/v1/signing-requests$';
const PARTICIPANTS = '/participants$';

async function setUp(
  overrides: Parameters<typeof openVirtualDesk>[3] = {},
): Promise<{ sim: Simulator; files: TempFolder; desk: Desk }> {
  ({ sim, clock } = await startVirtualSimulator({ seed: 2323 }));
  files = makeTempFolder('hollow-exactly-once-');
  desk = await openVirtualDesk(sim, clock, files.file('data'), { reuploadBackoffMs: 20, ...overrides });
  return { sim, files, desk };
}

const onlyDocument = (current: Desk, batch: BatchState) => current.store.get(batch.id)!.documents[0]!;
const creations = (service: Simulator) =>
  service.state.calls().filter((call) => call.operation === 'createSigningRequest').length;

describe('an attempt whose outcome is unknown', () => {
  it('a refusal of its upload right after a lost answer, within the same call, never releases the key: the user is asked, one request', async () => {
    const { sim, files, desk } = await setUp();
    const batch = await makeBatch(desk, files, 1);
    // The creation is applied and its answer lost; the retry, at once within the same call,
    // meets a service that now refuses the upload (purged meanwhile).
    sim.faults.enqueue(
      { kind: 'dropAfter', pathPattern: CREATE },
      { kind: 'reject', pathPattern: CREATE, status: 422, code: 'upload_expired' },
    );
    const summary = await clock.complete(desk.engine.send(batch.id));
    // Uploading again under a new key would make a second request for REF-1.
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
    expect(sim.state.uploads()).toHaveLength(1);
    expect(summary).toMatchObject({ prepared: 0, needsCheck: 1 });
    const document = onlyDocument(desk, batch);
    expect(phaseOf(document)).toBe('needs_check');
    expect(document.send.check).toMatchObject({ reason: 'key_refused', code: 'upload_expired' });
    // The attempt that may have been applied is on record, not only in the question.
    expect(document.send.create?.unknown).toBe(true);
  });
});

describe('a pause while a creation is on its way', () => {
  it('a creation the service made, its answer still missing when the pause gave up on it: the replay after Resume is its own, nothing asked', async () => {
    // A pause lets calls on their way 20 ms to be answered, no more.
    const { sim, files, desk } = await setUp({ drainMs: 20 });
    const batch = await makeBatch(desk, files, 1);
    // The service makes the request and never answers.
    sim.faults.enqueue({ kind: 'silentAfter', pathPattern: CREATE });
    const sending = desk.engine.send(batch.id);
    await clock.runUntil(() => creations(sim) > 0, { what: 'the creation made at the service' });
    desk.engine.pause(batch.id);
    // The call never answers: the pause waits its 20 ms for it, then gives it up.
    await clock.advanceWhileCallsHang(20);
    expect(await clock.complete(sending)).toMatchObject({ state: 'paused' });
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });

    // Resume: the key is replayed, and the replay is taken as this document's own request.
    const summary = await clock.complete(desk.engine.send(batch.id));
    const document = onlyDocument(desk, batch);
    expect(document.send.check?.reason).toBeUndefined();
    expect(summary).toMatchObject({ prepared: 1, needsCheck: 0 });
    expect(document.send.requestId).toBe(sim.state.requests()[0]!.id);
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
  });
});

describe('a 409 to a creation', () => {
  it("a 409 while the key's first request is still being processed: the replay that follows is this document's own, not another desk's", async () => {
    const { sim, files, desk } = await setUp();
    const batch = await makeBatch(desk, files, 1);
    // Stopped once the key and body are stored, before the first attempt leaves.
    const unsubscribe = desk.store.subscribe((_state, events) => {
      if (events.some((event) => event.type === 'create_attempted')) desk.engine.pause(batch.id);
    });
    expect(await clock.complete(desk.engine.send(batch.id))).toMatchObject({ state: 'paused' });
    unsubscribe();
    const { idempotencyKey, body } = onlyDocument(desk, batch).send.create!;
    // A proxy between the desk and the service sends the desk's attempt twice: one copy makes
    // the request, the other is answered 409 (its key still in use), and only that answer
    // reaches the desk.
    const copy = await clock.complete(desk.client.createSigningRequest(body, idempotencyKey));
    expect(copy.ok).toBe(true);
    sim.faults.enqueue({ kind: 'reject', pathPattern: CREATE, status: 409, code: 'idempotency_key_in_use' });

    const summary = await clock.complete(desk.engine.send(batch.id));
    // The 409 said the key may hold a request: the replay is taken as this document's own.
    const document = onlyDocument(desk, batch);
    expect(document.send.check?.reason).toBeUndefined();
    expect(summary).toMatchObject({ prepared: 1, needsCheck: 0 });
    expect(document.send.requestId).toBe(sim.state.requests()[0]!.id);
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
    // The proxy's copy, the desk's 409 and the replay that told the id.
    expect(creations(sim)).toBe(3);
  });
});

describe('a participant_conflict', () => {
  it('counts as "already there" only for the participant whose own answer was lost, not for the next one', async () => {
    const { sim, files, desk } = await setUp();
    const batch = await makeBatch(desk, files, 1);
    const draft = onlyDocument(desk, batch).draft;
    await desk.store.record(batch.id, [
      {
        type: 'document_edited',
        document: {
          ...draft,
          extraParticipants: [
            observer(1),
            { ...observer(2), name: 'Second observer', email: 'second@example.com', signing_order: 2 },
          ],
        },
      },
    ]);
    // The first observer is added and the answer lost: the next attempt meets the service's
    // conflict (already a participant), which is "already there". The second observer is
    // refused with a conflict of its own (the spec uses the code for ordering conflicts too).
    sim.faults.enqueue({ kind: 'dropAfter', pathPattern: PARTICIPANTS });
    desk.store.subscribe((_state, events) => {
      if (events.some((event) => event.type === 'participant_added' && event.index === 0))
        sim.faults.enqueue({
          kind: 'reject',
          pathPattern: PARTICIPANTS,
          status: 409,
          code: 'participant_conflict',
        });
    });
    const summary = await clock.complete(desk.engine.send(batch.id));

    // Never prepared without its second observer, and the person is told why it stopped.
    const [request] = sim.state.requests();
    expect(request).toMatchObject({ status: 'draft' });
    expect(summary).toMatchObject({ prepared: 0, failed: 1 });
    const document = onlyDocument(desk, batch);
    expect(phaseOf(document)).toBe('failed');
    expect(document.send.error?.code).toBe('participant_conflict');
    expect(document.send.participants[0]?.done).toBe('already_there');
    expect(document.send.participants[1]?.done).toBeUndefined();
    expect(request!.participants.map((participant) => participant.email).sort()).toEqual([
      'observer1@example.com',
      'signer1@example.com',
    ]);
  });
});
