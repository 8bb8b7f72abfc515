import { afterEach, describe, expect, it } from 'vitest';
import { phaseOf, type BatchState } from '../../../main/domain/batch-state';
import type { Desk } from '../../../main/app/desk-core';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../simulator/simulator';
import { variantNamed } from '../../../simulator/variants';
import { batchOfPdfs, openTestDesk } from '../../support/batch-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';

/**
 * The two answers to "needs your check" (main/domain/check-resolution.ts), each rule staged
 * through the real engine against the simulator over HTTP: what the person is told, what the
 * document says afterwards, and how many requests the service holds per reference.
 */
let sim: Simulator | undefined;
const folders: TempFolder[] = [];
const desks: Desk[] = [];

afterEach(async () => {
  for (const desk of desks.splice(0)) await desk.close().catch(() => undefined);
  await sim?.close();
  sim = undefined;
  for (const folder of folders.splice(0)) folder.remove();
});

const CREATE = '^/api/v1/signing-requests$';

async function start(variant: SimulatorOptions['variant']) {
  sim = await startSimulator({ seed: 2323, variant });
  const files = makeTempFolder('hollow-check-');
  folders.push(files);
  return { sim, files };
}

async function deskOn(service: Simulator, files: TempFolder, name: string): Promise<Desk> {
  const desk = await openTestDesk(service, files.file(name), { replayForIdMs: 10 });
  desks.push(desk);
  return desk;
}

const onlyDocument = (desk: Desk, batch: BatchState) => desk.store.get(batch.id)!.documents[0]!;
const reads = (service: Simulator) =>
  service.state.calls().filter((call) => call.operation === 'readSigningRequest').length;

describe('linking: an id another document of the data folder is asked about', () => {
  it("is refused, confirmed or not, when another document's check names it as the request the service answered for it", async () => {
    // A service that replays a key whatever the body (no "key reused" refusal).
    const { sim, files } = await start({
      ...variantNamed('reference'),
      name: 'replays-keys',
      keyReuse: 'replay',
    });
    const path = await writePdf(files, 'offer.pdf', 'offer');
    // Another computer sent this contract first: the service holds HR-1's request under its key.
    const elsewhere = await deskOn(sim, files, 'desk-elsewhere');
    expect(
      await elsewhere.engine.send((await batchOfPdfs(elsewhere, [path], 'Monday', 'HR')).id),
    ).toMatchObject({
      prepared: 1,
    });
    const [request] = sim.state.requests();

    // Here, the same contract: the service replays that request, so the document asks the person.
    const desk = await deskOn(sim, files, 'desk-here');
    const monday = await batchOfPdfs(desk, [path], 'Monday', 'HR');
    expect(await desk.engine.send(monday.id)).toMatchObject({ prepared: 0, needsCheck: 1 });
    expect(onlyDocument(desk, monday).send.check).toMatchObject({
      reason: 'held_at_service',
      newRequestId: request!.id,
    });
    // A copy of the batch in the same data folder: held back, the Monday document may hold HR-1.
    const copy = await batchOfPdfs(desk, [path], 'Monday (copy)', 'HR');
    expect(await desk.engine.send(copy.id)).toMatchObject({ prepared: 0, needsCheck: 1 });
    const copied = onlyDocument(desk, copy);
    expect(copied.send.check?.reason).toBe('held_elsewhere');

    // The person pastes, on the copy, the id the Monday document's question names.
    const readsBefore = reads(sim);
    const refusal = {
      ok: false,
      error: {
        refusal: 'refused',
        message: `${request!.id} already belongs to HR-1 in Monday: one request cannot serve two documents. It was not linked.`,
      },
    };
    expect(await desk.engine.linkRequest(copy.id, copied.draft.id, request!.id)).toEqual(refusal);
    expect(await desk.engine.linkRequest(copy.id, copied.draft.id, request!.id, { confirmed: true })).toEqual(
      refusal,
    );
    // Refused before any read, and nothing changed: the copy still asks, and follows no request.
    expect(reads(sim)).toBe(readsBefore);
    expect(phaseOf(onlyDocument(desk, copy))).toBe('needs_check');
    expect(onlyDocument(desk, copy).send.requestId).toBeUndefined();

    // The document the question is about links it (confirmed: the copy carries HR-1 too).
    const mondayId = onlyDocument(desk, monday).draft.id;
    const linked = await desk.engine.linkRequest(monday.id, mondayId, request!.id, { confirmed: true });
    expect(linked).toEqual({ ok: true });
    expect(onlyDocument(desk, monday).send.requestId).toBe(request!.id);
    expect(sim.state.countByExternalReference()).toEqual({ 'HR-1': 1 });
  });
});

describe('"send as a new request" after a creation the service accepted without saying its id', () => {
  it('is refused with the words to find and link it; sending again makes no second request, and linking it goes on', async () => {
    // Creations answered 202 without a body; a replay of the key tells the id. The upload is
    // checked before the key, so a replay after the upload was purged is refused for the upload.
    const { sim, files } = await start({
      ...variantNamed('reference'),
      name: 'bare-upload-first',
      createAnswer: 'bare-then-replay',
      checkOrder: 'upload-first',
    });
    const desk = await deskOn(sim, files, 'data');
    const batch = await batchOfPdfs(desk, [await writePdf(files, 'offer.pdf', 'offer')], 'Contracts', 'HR');
    // The replay that would tell the id meets an upload the service no longer takes.
    desk.store.subscribe((_state, events) => {
      if (events.some((event) => event.type === 'create_answered_without_id'))
        sim.faults.enqueue({ kind: 'reject', pathPattern: CREATE, status: 422, code: 'upload_expired' });
    });
    expect(await desk.engine.send(batch.id)).toMatchObject({ prepared: 0, needsCheck: 1 });
    const document = onlyDocument(desk, batch);
    expect(document.send.check?.reason).toBe('created_without_id');
    expect(sim.state.countByExternalReference()).toEqual({ 'HR-1': 1 });

    // The person chooses "send as a new request", then presses Send again.
    const outcome = await desk.engine.sendAsNew(batch.id, document.draft.id);
    const again = await desk.engine.send(batch.id);
    // Still one request at the service, and the document still asks, with words saying why.
    expect(sim.state.countByExternalReference()).toEqual({ 'HR-1': 1 });
    expect(again).toMatchObject({ prepared: 0, needsCheck: 1 });
    expect(onlyDocument(desk, batch).send.check?.reason).toBe('created_without_id');
    expect(outcome).toEqual({
      ok: false,
      error: {
        refusal: 'refused',
        message:
          'The service said it created a request for HR-1: find it and link it. Sending another would make a second one.',
      },
    });

    // The person finds it at the service and links it: prepared, still one request.
    const [request] = sim.state.requests();
    expect(await desk.engine.linkRequest(batch.id, document.draft.id, request!.id)).toEqual({ ok: true });
    expect(await desk.engine.send(batch.id)).toMatchObject({ prepared: 1, needsCheck: 0 });
    expect(sim.state.countByExternalReference()).toEqual({ 'HR-1': 1 });
  });
});
