import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLocked, phaseOf } from '../../../main/domain/batch-state';
import type { SendEngineEvent } from '../../../main/engine/send-events';
import { engineReasonText, type EngineReason } from '../../../main/domain/send-messages';
import { createTranslator } from '../../../shared/i18n/translator';
import type { Desk } from '../../../main/app/desk-core';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { startSimulator, type Simulator } from '../../../simulator/simulator';
import { makeBatch, observer, openTestDesk } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

/** The engine against the simulator, both on one virtual clock: its waits take no real time. */
let sim: Simulator;
let clock: VirtualClock;
let files: TempFolder;
let desk: Desk;

beforeEach(async () => {
  ({ sim, clock } = await startVirtualSimulator({ seed: 11 }));
  files = makeTempFolder();
  desk = await openVirtualDesk(sim, clock, files.file('data'));
});
afterEach(async () => {
  await clock.complete(desk.close());
  await sim.close();
  files.remove();
});

/** Why the engine said its queue stopped, as a code a view words in its language. */
function stopCause(states: readonly SendEngineEvent[]): EngineReason | undefined {
  const stopped = states.find((event) => event.type === 'engine-state' && event.state === 'stopped');
  return stopped?.type === 'engine-state' ? stopped.cause : undefined;
}

/** Every external reference has exactly one request at the service, prepared, and the store agrees. */
function expectExactlyOncePrepared(batchId: string, count: number): void {
  const batch = desk.store.get(batchId);
  expect(batch?.documents.map(phaseOf)).toEqual(Array(count).fill('prepared'));
  const perReference = sim.state.countByExternalReference();
  expect(perReference).toEqual(
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`REF-${i + 1}`, 1])),
  );
  for (const document of batch?.documents ?? []) {
    const remote = sim.state
      .requests()
      .find((request) => request.externalReference === document.draft.externalReference);
    expect(remote?.id).toBe(document.send.requestId);
    expect(remote?.status).toBe('prepared');
    expect(remote?.participants.map((participant) => participant.email).sort()).toEqual(
      [...document.draft.recipients, ...document.draft.extraParticipants].map((p) => p.email).sort(),
    );
  }
}

describe('send engine', () => {
  it('sends a batch: upload, create, extra participant, prepare, with progress per document and for the batch', async () => {
    const batch = await makeBatch(desk, files, 6);
    const events: SendEngineEvent[] = [];
    desk.engine.subscribe((event) => events.push(event));
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary).toMatchObject({ state: 'finished', prepared: 6, failed: 0 });
    expectExactlyOncePrepared(batch.id, 6);

    const phases = new Set(events.flatMap((event) => (event.type === 'item-progress' ? [event.phase] : [])));
    expect([...phases]).toEqual(
      expect.arrayContaining(['uploading', 'creating', 'adding_participants', 'preparing', 'prepared']),
    );
    const bytes = events.filter((event) => event.type === 'item-progress' && event.sentBytes !== undefined);
    expect(bytes.length).toBeGreaterThan(0);
    const last = events.filter((event) => event.type === 'batch-progress').at(-1);
    expect(last).toMatchObject({ total: 6, counts: { prepared: 6 } });
    // The service stored the name the app predicted.
    for (const document of desk.store.get(batch.id)?.documents ?? []) {
      expect(document.send.upload?.filename).toBe(document.draft.pdf.storedFilename);
    }
  });

  it('uploads again when the upload expired before the request was created', async () => {
    const batch = await makeBatch(desk, files, 1);
    let expired = false;
    desk.engine.subscribe((event) => {
      if (!expired && event.type === 'item-progress' && event.phase === 'creating') {
        expired = true;
        sim.clock.advance(25 * 3_600_000);
      }
    });
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary.prepared).toBe(1);
    expect(expired).toBe(true);
    expect(sim.state.uploads()).toHaveLength(2);
    expectExactlyOncePrepared(batch.id, 1);
  });

  it('pauses while the service is unreachable, says why, and resumes by itself', async () => {
    // Going offline is real (the simulator's listener stops, connections close): this test runs
    // on real time, and waits only for the send's outcome.
    await clock.complete(desk.close());
    await sim.close();
    sim = await startSimulator({ seed: 11 });
    desk = await openTestDesk(sim, files.file('data'));
    clock = new VirtualClock(); // nothing on it: the afterEach close runs as on real time
    const batch = await makeBatch(desk, files, 16);
    sim.faults.set({ latencyMs: 10 });
    const states: SendEngineEvent[] = [];
    let prepared = 0;
    desk.engine.subscribe((event) => {
      if (event.type === 'engine-state') states.push(event);
      if (event.type === 'item-progress' && event.phase === 'prepared' && (prepared += 1) === 2) {
        // An outage of a second and a half, as the service's own script (not a wait of the test).
        void sim.goOffline().then(() => setTimeout(() => void sim.goOnline(), 1_500));
      }
    });
    const summary = await desk.engine.send(batch.id);
    expect(summary).toMatchObject({ state: 'finished', prepared: 16 });
    const waiting = states.find((event) => event.type === 'engine-state' && event.state === 'waiting');
    expect(waiting).toMatchObject({
      reason: 'The signing service cannot be reached. Sending resumes by itself.',
    });
    expectExactlyOncePrepared(batch.id, 16);
  });

  it('pauses on request and finishes on resume, with no duplicate', async () => {
    const batch = await makeBatch(desk, files, 10);
    sim.faults.set({ latencyMs: 20 });
    let prepared = 0;
    const unsubscribe = desk.engine.subscribe((event) => {
      if (event.type === 'item-progress' && event.phase === 'prepared' && (prepared += 1) === 3)
        desk.engine.pause(batch.id);
    });
    const paused = await clock.complete(desk.engine.send(batch.id));
    unsubscribe();
    expect(paused.state).toBe('paused');
    expect(paused.prepared).toBeLessThan(10);
    const resumed = await clock.complete(desk.engine.send(batch.id));
    expect(resumed).toMatchObject({ state: 'finished', prepared: 10 });
    expectExactlyOncePrepared(batch.id, 10);
  });

  it('a pause asked while the documents are still being queued holds: the send ends paused, nothing reaches the service', async () => {
    const batch = await makeBatch(desk, files, 3);
    const sending = desk.engine.send(batch.id);
    expect(desk.engine.isRunning(batch.id)).toBe(true);
    desk.engine.pause(batch.id);
    expect((await clock.complete(sending)).state).toBe('paused');
    expect(desk.engine.isRunning(batch.id)).toBe(false);
    expect(sim.state.uploads()).toHaveLength(0);
    const resumed = await clock.complete(desk.engine.send(batch.id));
    expect(resumed).toMatchObject({ state: 'finished', prepared: 3 });
    expectExactlyOncePrepared(batch.id, 3);
  });

  it('sends a batch only with the connection it is bound to: one bound to another service stops, says so, and sends nothing', async () => {
    const batch = await makeBatch(desk, files, 2);
    await desk.store.bindConnection(batch.id, { baseUrl: 'https://sign.example.com', clientId: 'desk' });
    const states: SendEngineEvent[] = [];
    desk.engine.subscribe((event) => void states.push(event));
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary.state).toBe('stopped');
    expect(summary.reason).toContain('https://sign.example.com');
    // The page words it in the person's language.
    expect(engineReasonText(stopCause(states)!, createTranslator('fr').t)).toBe(
      'Ce lot a été envoyé avec la connexion à https://sign.example.com (client desk)\u00a0; il ne se poursuit qu’avec celle-ci, pour qu’aucun document ne parte vers deux services.',
    );
    expect(sim.state.calls()).toHaveLength(0);
    // A batch not bound yet is bound by its first send, to this engine's connection.
    const other = await makeBatch(desk, files, 1);
    expect((await clock.complete(desk.engine.send(other.id))).state).toBe('finished');
    expect(desk.store.get(other.id)?.connection?.baseUrl).toBe(sim.baseUrl);
  });

  it('closing the engine ends its runs before it resolves: nothing is recorded afterwards, and the next engine sends each document once', async () => {
    const batch = await makeBatch(desk, files, 10);
    sim.faults.set({ latencyMs: 30 });
    let prepared = 0;
    const engine = desk.engine;
    const closed = new Promise<void>((resolve) =>
      engine.subscribe((event) => {
        if (event.type === 'item-progress' && event.phase === 'prepared' && (prepared += 1) === 3)
          resolve(engine.close());
      }),
    );
    const sending = desk.engine.send(batch.id);
    await clock.complete(closed);
    expect(desk.engine.isRunning(batch.id)).toBe(false);
    let recordedAfterClose = 0;
    desk.store.subscribe(() => (recordedAfterClose += 1));
    expect((await clock.complete(sending)).state).toBe('paused');
    // A closed engine starts nothing, even when asked.
    expect((await clock.complete(desk.engine.send(batch.id))).state).toBe('paused');
    await clock.advance(5_000);
    expect(recordedAfterClose).toBe(0);
    await clock.complete(desk.close());
    desk = await openVirtualDesk(sim, clock, files.file('data'));
    expect(await clock.complete(desk.engine.send(batch.id))).toMatchObject({
      state: 'finished',
      prepared: 10,
    });
    expectExactlyOncePrepared(batch.id, 10);
  });

  it('fails loudly when the service received other bytes than the local file, and a retry succeeds', async () => {
    const batch = await makeBatch(desk, files, 2);
    const victim = batch.documents[0];
    if (!victim) throw new Error('no document');
    const blobPath = desk.blobs.pathOf(victim.draft.pdf.sha256);
    const original = readFileSync(blobPath);
    // One byte differs, the size is the same: what bit rot or a bad proxy would do.
    const tampered = Buffer.from(original);
    const flipAt = tampered.length - 10;
    tampered.writeUInt8((tampered.readUInt8(flipAt) ^ 0x01) & 0xff, flipAt);
    writeFileSync(blobPath, tampered);
    const failures: SendEngineEvent[] = [];
    desk.engine.subscribe((event) => event.type === 'item-failed' && failures.push(event));
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary).toMatchObject({ state: 'finished', prepared: 1, failed: 1 });
    expect(failures[0]).toMatchObject({
      externalReference: 'REF-1',
      error: {
        code: 'sha256_mismatch',
        message:
          'The service received different content than the file on this computer. The upload was corrupted on the way. Retry the document; if it happens again, check the network.',
      },
    });
    expect(sim.state.countByExternalReference()['REF-1']).toBeUndefined();

    writeFileSync(blobPath, original);
    await clock.complete(desk.engine.retry(batch.id, victim.draft.id));
    const retried = await clock.complete(desk.engine.send(batch.id));
    expect(retried).toMatchObject({ prepared: 2, failed: 0 });
    expectExactlyOncePrepared(batch.id, 2);
  });

  it('fails a document whose local copy vanished or changed size, without retrying forever', async () => {
    const batch = await makeBatch(desk, files, 2);
    const [first, second] = desk.store.get(batch.id)?.documents ?? [];
    if (!first || !second) throw new Error('no documents');
    rmSync(desk.blobs.pathOf(first.draft.pdf.sha256));
    writeFileSync(desk.blobs.pathOf(second.draft.pdf.sha256), '%PDF-1.7\nshorter');
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary).toMatchObject({ state: 'finished', prepared: 0, failed: 2 });
    const errors = desk.store.get(batch.id)?.documents.map((document) => document.send.error?.code);
    expect(errors).toEqual(['local_copy_missing', 'local_file_changed']);
  });

  it('stops the whole batch when the credentials are rejected, and says so', async () => {
    const batch = await makeBatch(desk, files, 3);
    sim.addClient({ clientId: 'demo-desk', clientSecret: 'rotated-secret', scopes: ['signing.read'] });
    const states: SendEngineEvent[] = [];
    desk.engine.subscribe((event) => void states.push(event));
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary.state).toBe('stopped');
    expect(summary.reason).toContain('rejected the connection credentials');
    const { t } = createTranslator('de');
    expect(stopCause(states)).toMatchObject({ code: 'credentials_rejected' });
    expect(engineReasonText(stopCause(states)!, t)).toBe(t('errors.credentials_rejected'));
    expect(desk.store.get(batch.id)?.documents.map(phaseOf)).toEqual(['uploading', 'uploading', 'uploading']);
  });

  it('releases the key of a creation refused outright: the document fails with the reason, can be edited, and a retry sends it once', async () => {
    const batch = await makeBatch(desk, files, 2);
    sim.faults.enqueue({
      kind: 'reject',
      pathPattern: '^/api/v1/signing-requests$',
      status: 422,
      code: 'invalid_signing_request',
    });
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary).toMatchObject({ state: 'finished', prepared: 1, failed: 1 });
    const failed = desk.store.get(batch.id)?.documents.find((document) => phaseOf(document) === 'failed');
    if (!failed) throw new Error('no failed document');
    expect(failed.send.error).toMatchObject({
      code: 'invalid_signing_request',
      retryable: false,
      message: expect.stringMatching(/^The service refused to create the signing request/),
    });
    // Nothing exists under the refused key: the document is editable again, its upload is kept.
    expect(isLocked(failed)).toBe(false);
    expect(failed.send.create).toBeUndefined();
    expect(failed.send.upload).toBeDefined();

    await clock.complete(desk.engine.retry(batch.id, failed.draft.id));
    const retried = await clock.complete(desk.engine.send(batch.id));
    expect(retried).toMatchObject({ prepared: 2, failed: 0 });
    expectExactlyOncePrepared(batch.id, 2);
    expect(sim.state.uploads()).toHaveLength(2);
    expect(sim.state.violations()).toEqual([]);
  });

  it('sends the body stored with the key even when the batch defaults change before the creation', async () => {
    const batch = await makeBatch(desk, files, 1);
    const unsubscribe = desk.engine.subscribe((event) => {
      if (event.type === 'item-progress' && event.phase === 'creating') desk.engine.pause(batch.id);
    });
    expect((await clock.complete(desk.engine.send(batch.id))).state).toBe('paused');
    unsubscribe();
    const [document] = desk.store.get(batch.id)?.documents ?? [];
    expect(document?.send.create?.body.locale).toBe('fr-FR');
    await desk.store.record(batch.id, [
      { type: 'defaults_changed', defaults: { ...batch.defaults, locale: 'de-DE' } },
    ]);
    const resumed = await clock.complete(desk.engine.send(batch.id));
    expect(resumed).toMatchObject({ state: 'finished', prepared: 1 });
    expectExactlyOncePrepared(batch.id, 1);
    // Same key, same body: no "key reused with another body" at the service.
    expect(sim.state.violations()).toEqual([]);
    expect(sim.state.requests()[0]?.locale).toBe('fr-FR');
  });

  it('records a participant the service already had after a lost answer as such, and adds it once', async () => {
    const batch = await makeBatch(desk, files, 1);
    sim.faults.enqueue({ kind: 'dropAfter', pathPattern: '/participants$' });
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary).toMatchObject({ state: 'finished', prepared: 1 });
    expectExactlyOncePrepared(batch.id, 1);
    expect(desk.store.get(batch.id)?.documents[0]?.send.participants[0]?.done).toBe('already_there');
  });

  it('adds several extra participants in order, each exactly once, across a pause', async () => {
    const batch = await makeBatch(desk, files, 3);
    for (const document of batch.documents) {
      const index = Number(document.draft.externalReference.slice(4));
      await desk.store.record(batch.id, [
        {
          type: 'document_edited',
          document: {
            ...document.draft,
            extraParticipants: [
              ...document.draft.extraParticipants,
              { ...observer(index), email: `second${index}@example.com`, name: `Second ${index}` },
              { ...observer(index), email: `third${index}@example.com`, name: `Third ${index}` },
            ],
          },
        },
      ]);
    }
    sim.faults.set({ latencyMs: 10 });
    let added = 0;
    const unsubscribe = desk.engine.subscribe((event) => {
      if (event.type === 'item-progress' && event.phase === 'adding_participants' && (added += 1) === 4)
        desk.engine.pause(batch.id);
    });
    await clock.complete(desk.engine.send(batch.id));
    unsubscribe();
    const resumed = await clock.complete(desk.engine.send(batch.id));
    expect(resumed).toMatchObject({ state: 'finished', prepared: 3 });
    expectExactlyOncePrepared(batch.id, 3);
    for (const document of desk.store.get(batch.id)?.documents ?? []) {
      expect(Object.values(document.send.participants).every((p) => p.done !== undefined)).toBe(true);
      expect(Object.keys(document.send.participants)).toHaveLength(3);
    }
  });

  it('does not send a document that has no signer, and says what is missing', async () => {
    const batch = await makeBatch(desk, files, 2);
    const [first] = batch.documents;
    if (!first) throw new Error('no document');
    await desk.store.record(batch.id, [
      { type: 'document_edited', document: { ...first.draft, recipients: [] } },
    ]);
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary.prepared).toBe(1);
    expect(phaseOf(desk.store.get(batch.id)!.documents[0]!)).toBe('draft');
  });
});
