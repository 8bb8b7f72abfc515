import { afterEach, describe, expect, it } from 'vitest';
import { phaseOf, type BatchState } from '../../../main/domain/batch-state';
import type { Desk } from '../../../main/app/desk-core';
import { Secret } from '../../../main/base/secret';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator, type SimulatorOptions } from '../../../simulator/simulator';
import { describeVariant, keyRetentionMs, variantNamed, variantsForSuite } from '../../../simulator/variants';
import { batchOfPdfs, makeBatch } from '../../support/batch-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';
import { serviceErrorCode } from '../../../shared/service/error-codes';

/**
 * One contract, one request (README "Sending exactly once"): what an outside test found one step
 * beyond the cases of one batch. Each test stages the case through the real engine against the
 * simulator over HTTP and checks what a user would: how many requests the service holds per
 * reference, and what each document says. The service and every desk run on one virtual clock:
 * retries, spacing and "a day later" take no real time.
 */
let sim: Simulator | undefined;
let clock: VirtualClock;
const folders: TempFolder[] = [];
const desks: Desk[] = [];

afterEach(async () => {
  for (const desk of desks.splice(0)) await clock.complete(desk.close()).catch(() => undefined);
  await sim?.close();
  sim = undefined;
  for (const folder of folders.splice(0)) folder.remove();
});

const CREATE = '^/api/v1/signing-requests$';

async function start(options: SimulatorOptions = {}): Promise<{ sim: Simulator; files: TempFolder }> {
  ({ sim, clock } = await startVirtualSimulator({ seed: 21, ...options }));
  const files = makeTempFolder('desk-one-contract-');
  folders.push(files);
  return { sim, files };
}

async function deskOn(
  service: Simulator,
  files: TempFolder,
  name: string,
  overrides: Parameters<typeof openVirtualDesk>[3] = {},
): Promise<Desk> {
  const desk = await openVirtualDesk(service, clock, files.file(name), {
    reuploadBackoffMs: 20,
    ...overrides,
  });
  desks.push(desk);
  return desk;
}

/** Runs `desk`'s send of `batchId` to its end, virtual time passing as its waits ask. */
function sent(desk: Desk, batchId: string, documentIds?: string[]) {
  return clock.complete(desk.engine.send(batchId, documentIds));
}

/** `ms` later on the wall clocks of the service and of every desk (a restart a day later). */
function later(ms: number): void {
  clock.setWallClock(clock.now() + ms);
}

async function pdfs(files: TempFolder, count: number, prefix = 'contract'): Promise<string[]> {
  const paths: string[] = [];
  for (let index = 1; index <= count; index += 1)
    paths.push(await writePdf(files, `${prefix} ${index}.pdf`, `${prefix} ${index}`));
  return paths;
}

const documentsOf = (desk: Desk, batch: BatchState) => desk.store.get(batch.id)!.documents;

describe('pause and quit never make an attempt that did not leave "may have been applied"', () => {
  /** Calls `stop` the moment the document's creation is asked for, before its attempt can leave. */
  function stopAtCreation(desk: Desk, stop: () => void): void {
    const create = desk.client.createSigningRequest.bind(desk.client);
    let stopped = false;
    desk.client.createSigningRequest = (body, key, options) => {
      const call = create(body, key, options);
      if (!stopped) {
        stopped = true;
        stop();
      }
      return call;
    };
  }

  it('a pause while a creation waits for its turn and its token: resumed, it is sent once, no check', async () => {
    const { sim, files } = await start();
    const desk = await deskOn(sim, files, 'data');
    const batch = await makeBatch(desk, files, 1);
    stopAtCreation(desk, () => desk.engine.pause(batch.id));
    expect(await sent(desk, batch.id)).toMatchObject({ state: 'paused' });
    const [paused] = documentsOf(desk, batch);
    // Nothing left: the key is there, and no attempt under it may have been applied.
    expect(paused!.send.create).toMatchObject({ inFlight: false, unknown: false });
    expect(sim.state.calls().filter((call) => call.operation === 'createSigningRequest')).toHaveLength(0);
    expect(await sent(desk, batch.id)).toMatchObject({ state: 'finished', prepared: 1, needsCheck: 0 });
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
  });

  it('a quit while a creation waits to leave: after the restart it is sent once, no check, even a day later', async () => {
    const { sim, files } = await start({ variant: variantNamed('short-memory') });
    const desk = await deskOn(sim, files, 'data');
    const batch = await makeBatch(desk, files, 1);
    let quitting: Promise<void> | undefined;
    stopAtCreation(desk, () => (quitting = desk.close()));
    expect(await sent(desk, batch.id)).toMatchObject({ state: 'paused' });
    await clock.complete(quitting!);
    desks.splice(desks.indexOf(desk), 1);
    // A day later, past the hour this service keeps keys: nothing was sent, so nothing to ask.
    later(24 * 3_600_000);
    const restarted = await deskOn(sim, files, 'data');
    expect(await sent(restarted, batch.id)).toMatchObject({ prepared: 1, needsCheck: 0 });
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
  });

  it('a quit lets the calls already on their way be answered, then stops: every outcome known, nothing asked', async () => {
    const { sim, files } = await start();
    const desk = await deskOn(sim, files, 'data', { drainMs: 10_000 });
    const batch = await makeBatch(desk, files, 12);
    // Every answer takes a while: at the quit, calls are on their way.
    sim.faults.set({ latencyMs: 150 });
    let quitting: Promise<void> | undefined;
    const unsubscribe = desk.engine.subscribe((event) => {
      if (event.type === 'item-progress' && event.phase === 'adding_participants' && !quitting)
        quitting = desk.close();
    });
    const draining: number[] = [];
    desk.engine.subscribe((event) => {
      if (event.type === 'draining') draining.push(event.calls);
    });
    await sent(desk, batch.id);
    await clock.complete(quitting!);
    unsubscribe();
    desks.splice(desks.indexOf(desk), 1);
    expect(draining.length).toBe(1);
    expect(draining[0]).toBeGreaterThan(0);
    sim.faults.reset();
    const restarted = await deskOn(sim, files, 'data');
    // No attempt was left "may have been applied": each one had its answer, or never left.
    for (const document of documentsOf(restarted, batch)) {
      expect(document.send.create?.unknown ?? false, document.draft.externalReference).toBe(false);
      expect(document.send.create?.inFlight ?? false, document.draft.externalReference).toBe(false);
    }
    expect(await sent(restarted, batch.id)).toMatchObject({ prepared: 12, needsCheck: 0 });
    expect(Object.values(sim.state.countByExternalReference())).toEqual(Array.from({ length: 12 }, () => 1));
  });
});

describe.each(variantsForSuite().map((variant) => [describeVariant(variant), variant] as const))(
  'true alarms only — %s',
  (_line, variant) => {
    it('a connection reset on every first creation attempt: retried at once, answered with a new request, no check', async () => {
      const { sim, files } = await start({ variant });
      const desk = await deskOn(sim, files, 'data');
      const batch = await makeBatch(desk, files, 6);
      // The connection drops before the service acts: the client cannot know; the retry creates.
      for (let index = 0; index < 6; index += 1)
        sim.faults.enqueue({ kind: 'dropBefore', pathPattern: CREATE });
      expect(await sent(desk, batch.id)).toMatchObject({ prepared: 6, needsCheck: 0, failed: 0 });
      expect(Object.values(sim.state.countByExternalReference())).toEqual([1, 1, 1, 1, 1, 1]);
      expect(sim.state.violations()).toEqual([]);
    });

    it('beyond the time the service keeps keys, a new request after a lost answer asks the user (it may be a second one)', async () => {
      const retention = keyRetentionMs(variant);
      if (!Number.isFinite(retention)) return; // A service that never forgets replays: nothing to ask.
      const { sim, files } = await start({ variant });
      const desk = await deskOn(sim, files, 'data');
      const batch = await makeBatch(desk, files, 1);
      // Applied, and every answer lost; then the app stops.
      sim.faults.enqueue(
        ...Array.from({ length: 4 }, () => ({ kind: 'dropAfter' as const, pathPattern: CREATE })),
      );
      let stopped = false;
      desk.engine.subscribe((event) => {
        if (event.type === 'engine-state' && event.state === 'waiting' && !stopped) {
          stopped = true;
          desk.engine.pause(batch.id);
        }
      });
      await sent(desk, batch.id);
      expect(documentsOf(desk, batch)[0]!.send.create?.unknown).toBe(true);
      await clock.complete(desk.close());
      desks.splice(desks.indexOf(desk), 1);
      // Back after the service forgot the key (and the upload is still usable or not).
      later(retention + 60_000);
      const restarted = await deskOn(sim, files, 'data');
      const summary = await sent(restarted, batch.id);
      const [document] = documentsOf(restarted, batch);
      // Two may exist now: the user is asked, with the facts. Never a third.
      expect(summary.needsCheck).toBe(1);
      expect(document!.send.check?.reason).toMatch(/^(new_request_after_unknown|key_refused)$/);
      expect(sim.state.countByExternalReference()['REF-1']).toBeLessThanOrEqual(2);
    });
  },
);

describe('the key retention is a setting of the connection', () => {
  /** A document whose creation's outcome became unknown (the connection dropped before the service acted), then the app stopped. */
  async function unknownThenRestart(keyRetentionHours: number | undefined) {
    const { sim, files } = await start({ variant: variantNamed('strict-24h') });
    const connection = {
      baseUrl: sim.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      clientSecret: new Secret(DEMO_CLIENT.clientSecret),
      ...(keyRetentionHours === undefined ? {} : { keyRetentionHours }),
    };
    const desk = await deskOn(sim, files, 'data', { connection });
    const batch = await makeBatch(desk, files, 1);
    sim.faults.enqueue(
      ...Array.from({ length: 4 }, () => ({ kind: 'dropBefore' as const, pathPattern: CREATE })),
    );
    let stopped = false;
    desk.engine.subscribe((event) => {
      if (event.type === 'engine-state' && event.state === 'waiting' && !stopped) {
        stopped = true;
        desk.engine.pause(batch.id);
      }
    });
    await sent(desk, batch.id);
    expect(documentsOf(desk, batch)[0]!.send.create?.unknown).toBe(true);
    await clock.complete(desk.close());
    desks.splice(desks.indexOf(desk), 1);
    // Two hours later: this service keeps keys 24 hours, but only its operator can say so.
    later(2 * 3_600_000);
    const restarted = await deskOn(sim, files, 'data', { connection });
    const summary = await sent(restarted, batch.id);
    return { summary, document: documentsOf(restarted, batch)[0]!, sim };
  }

  it('assumed to be an hour by default: two hours later a new request is not proof, the user is asked', async () => {
    const { summary, document, sim } = await unknownThenRestart(undefined);
    expect(summary.needsCheck).toBe(1);
    expect(document.send.check?.reason).toBe('new_request_after_unknown');
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
  });

  it('stated as 24 hours for this service: two hours later the new request proves the first attempt made nothing', async () => {
    const { summary, document, sim } = await unknownThenRestart(24);
    expect(summary).toMatchObject({ prepared: 1, needsCheck: 0 });
    expect(phaseOf(document)).toBe('prepared');
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
  });
});

describe('a creation answered without an id', () => {
  it.each(['accepted-202', 'purged-404'])(
    '%s: the id comes from Location (confirmed by a read) or from a replay of the key; prepared, no check',
    async (name) => {
      const { sim, files } = await start({ variant: variantNamed(name) });
      const desk = await deskOn(sim, files, 'data');
      const batch = await makeBatch(desk, files, 3);
      expect(await sent(desk, batch.id)).toMatchObject({ prepared: 3, needsCheck: 0, failed: 0 });
      expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1, 'REF-2': 1, 'REF-3': 1 });
      for (const document of documentsOf(desk, batch)) {
        const remote = sim.state
          .requests()
          .find((request) => request.externalReference === document.draft.externalReference);
        expect(document.send.requestId).toBe(remote?.id);
      }
      expect(sim.state.violations()).toEqual([]);
    },
  );

  it('a Location naming a request another document already follows is not taken for this one', async () => {
    // Answers by Location, and reads that do not show the reference (spec §4.4): only the data
    // folder can tell that the request named is another document's.
    const { sim, files } = await start({
      variant: { ...variantNamed('accepted-202'), name: 'location-spec-reads', readFields: 'spec' },
    });
    const desk = await deskOn(sim, files, 'data', { replayForIdMs: 10 });
    const batch = await makeBatch(desk, files, 2);
    const [first, second] = documentsOf(desk, batch);
    expect(await sent(desk, batch.id, [first!.draft.id])).toMatchObject({ prepared: 1 });
    const taken = documentsOf(desk, batch)[0]!.send.requestId!;
    const create = desk.client.createSigningRequest.bind(desk.client);
    // A confused proxy or service names the first document's request in the second's answers.
    desk.client.createSigningRequest = async (body, key, options) => {
      const answer = await create(body, key, options);
      return answer.ok ? { ok: true, value: { ...answer.value, locationId: taken } } : answer;
    };
    await sent(desk, batch.id, [second!.draft.id]);
    const after = documentsOf(desk, batch)[1]!;
    expect(after.send.requestId).not.toBe(taken);
    expect(after.send.check?.reason).toBe('created_without_id');
  });

  it('a Location at another origin is not taken: the key is replayed once, and then the user is asked', async () => {
    const { sim, files } = await start({ variant: variantNamed('accepted-202') });
    const desk = await deskOn(sim, files, 'data');
    const batch = await makeBatch(desk, files, 1);
    const create = desk.client.createSigningRequest.bind(desk.client);
    // As if a proxy rewrote Location to somewhere else: the answer names no request of this service.
    desk.client.createSigningRequest = async (body, key, options) => {
      const answer = await create(body, key, options);
      return answer.ok ? { ok: true, value: { ...answer.value, locationId: undefined } } : answer;
    };
    expect(await sent(desk, batch.id)).toMatchObject({ prepared: 0, needsCheck: 1 });
    expect(documentsOf(desk, batch)[0]!.send.check?.reason).toBe('created_without_id');
    expect(sim.state.calls().filter((call) => call.operation === 'createSigningRequest')).toHaveLength(2);
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
  });
});

describe('the data folder is asked before a creation', () => {
  it('a second batch with the same contract is held back and says which batch holds it; sent anew only on purpose', async () => {
    const { sim, files } = await start();
    const desk = await deskOn(sim, files, 'data');
    const paths = await pdfs(files, 2);
    const first = await batchOfPdfs(desk, paths, 'Monday', 'HR');
    expect(await sent(desk, first.id)).toMatchObject({ prepared: 2 });
    const copy = await batchOfPdfs(desk, paths, 'Monday (copy)', 'HR');
    expect(await sent(desk, copy.id)).toMatchObject({ prepared: 0, needsCheck: 2 });
    const [held] = documentsOf(desk, copy);
    expect(held!.send.check).toMatchObject({
      reason: 'held_elsewhere',
      holder: { batchId: first.id, batchName: 'Monday', fileName: 'contract 1.pdf' },
    });
    // Nothing was uploaded for them either.
    expect(held!.send.upload).toBeUndefined();
    expect(sim.state.countByExternalReference()).toEqual({ 'HR-1': 1, 'HR-2': 1 });
    // The user chooses to send one anew, after the warning: a second request, on purpose.
    expect(await clock.complete(desk.engine.sendAsNew(copy.id, held!.draft.id))).toEqual({ ok: true });
    expect(await sent(desk, copy.id)).toMatchObject({ prepared: 1, needsCheck: 1 });
    expect(sim.state.countByExternalReference()).toEqual({ 'HR-1': 2, 'HR-2': 1 });
    expect(sim.state.violations()).toEqual([]);
  });

  it('two batches sent at once with the same reference (other PDFs): one request, the other held back', async () => {
    const { sim, files } = await start();
    const desk = await deskOn(sim, files, 'data');
    // Every answer takes a while: both sends have calls on the wire at once.
    sim.faults.set({ latencyMs: 20 });
    const a = await batchOfPdfs(desk, await pdfs(files, 3, 'north'), 'North', 'HR');
    const b = await batchOfPdfs(desk, await pdfs(files, 3, 'south'), 'South', 'HR');
    const [one, two] = await clock.complete(Promise.all([desk.engine.send(a.id), desk.engine.send(b.id)]));
    expect(one.prepared + two.prepared).toBe(3);
    expect(one.needsCheck + two.needsCheck).toBe(3);
    expect(sim.state.countByExternalReference()).toEqual({ 'HR-1': 1, 'HR-2': 1, 'HR-3': 1 });
  });
});

describe.each(variantsForSuite().map((variant) => [describeVariant(variant), variant] as const))(
  'across desks — %s',
  (_line, variant) => {
    it('a second data folder sending the same contracts gets a replay or a refusal of their keys: never a second request', async () => {
      const { sim, files } = await start({ variant });
      const paths = await pdfs(files, 3);
      const first = await deskOn(sim, files, 'desk-1');
      const contracts = await batchOfPdfs(first, paths, 'Contracts', 'HR');
      expect(await sent(first, contracts.id)).toMatchObject({ prepared: 3 });
      // The second desk comes later (another computer, another day): not within the 5 s spacing
      // of the first desk's reads, which the service counts for the client id, not the desk.
      await clock.advance(60_000);
      const second = await deskOn(sim, files, 'desk-2');
      const again = await batchOfPdfs(second, paths, 'Contracts', 'HR');
      expect(await sent(second, again.id)).toMatchObject({ prepared: 0, needsCheck: 3 });
      expect(sim.state.countByExternalReference()).toEqual({ 'HR-1': 1, 'HR-2': 1, 'HR-3': 1 });
      for (const document of documentsOf(second, again)) {
        expect(document.send.check?.reason).toBe('held_at_service');
        const remote = sim.state
          .requests()
          .find((request) => request.externalReference === document.draft.externalReference);
        // A replay names the request; a refusal of the key cannot.
        if (document.send.check?.newRequestId) expect(document.send.check.newRequestId).toBe(remote?.id);
      }
      // Following the first desk's request from here: linked and tracked, nothing added twice.
      const [document] = documentsOf(second, again);
      const remote = sim.state.requests().find((request) => request.externalReference === 'HR-1')!;
      const participantsBefore = remote.participants.length;
      expect(
        await clock.complete(
          second.engine.linkRequest(again.id, document!.draft.id, remote.id, { confirmed: true }),
        ),
      ).toEqual({ ok: true });
      expect(await sent(second, again.id)).toMatchObject({ prepared: 1 });
      expect(sim.state.requests().find((request) => request.id === remote.id)!.participants).toHaveLength(
        participantsBefore,
      );
      expect(sim.state.countByExternalReference()).toEqual({ 'HR-1': 1, 'HR-2': 1, 'HR-3': 1 });
      expect(sim.state.violations()).toEqual([]);
    });
  },
);

describe('linking is safe', () => {
  it("linking Anne's document to the request of Bob's (same reference, no request yet) needs a confirmation naming both", async () => {
    const { sim, files } = await start();
    const desk = await deskOn(sim, files, 'data');
    const [anne, bob] = await pdfs(files, 2, 'offer');
    // An earlier version let two documents of one batch share a reference; both need a check.
    const batch = await batchOfPdfs(desk, [anne!, bob!], 'HR', 'HR');
    const [anneDoc, bobDoc] = documentsOf(desk, batch);
    await desk.store.record(batch.id, [
      { type: 'document_edited', document: { ...anneDoc!.draft, externalReference: 'HR-7' } },
      { type: 'document_edited', document: { ...bobDoc!.draft, externalReference: 'HR-7' } },
    ]);
    for (const document of [anneDoc!, bobDoc!])
      await desk.store.record(batch.id, [
        { type: 'send_requested', documentIds: [document.draft.id] },
        {
          type: 'check_needed',
          documentId: document.draft.id,
          reason: 'key_refused',
          code: serviceErrorCode('not_found'),
        },
      ]);
    // Bob's request, made at the service (as the lost attempt did).
    const upload = await clock.complete(
      desk.client.uploadDocument({
        open: () => desk.blobs.openRead(bobDoc!.draft.pdf.sha256),
        sizeBytes: bobDoc!.draft.pdf.sizeBytes,
        filename: bobDoc!.draft.pdf.originalName,
      }),
    );
    if (!upload.ok) throw new Error(upload.error.message);
    const made = await clock.complete(
      desk.client.createSigningRequest(
        {
          external_reference: 'HR-7',
          document: { upload_id: upload.value.upload_id },
          recipients: [
            { participant_type: 'signer', role: 'Employee', name: 'Bob', email: 'bob@example.com' },
          ],
        },
        'made-by-the-lost-attempt',
      ),
    );
    if (!made.ok || !made.value.id) throw new Error('not created');
    const refused = await clock.complete(desk.engine.linkRequest(batch.id, anneDoc!.draft.id, made.value.id));
    expect(refused).toMatchObject({ ok: false, error: { refusal: 'needs_confirmation' } });
    expect(refused.ok ? '' : refused.error.message).toContain('offer 1.pdf');
    expect(refused.ok ? '' : refused.error.message).toContain('offer 2.pdf');
    expect(phaseOf(documentsOf(desk, batch)[0]!)).toBe('needs_check');
    // Linked to Bob's document, whose request it is: no confirmation needed once the other has none.
    expect(
      await clock.complete(
        desk.engine.linkRequest(batch.id, bobDoc!.draft.id, made.value.id, { confirmed: true }),
      ),
    ).toEqual({
      ok: true,
    });
  });
});
