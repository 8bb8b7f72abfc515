import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importManifest } from '../../../main/engine/batch-preparation';
import { phaseOf, type BatchState } from '../../../main/domain/batch-state';
import { checkManifest } from '../../../main/manifest/manifest';
import type { Desk } from '../../../main/app/desk-core';
import type { OpenFile, OpenFlags } from '../../../main/store/file-system';
import { encodeLine } from '../../../main/store/journal';
import { READ_SPACING_MS } from '../../../main/client/read-spacing';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { variantNamed, type Simulator, type SimulatorOptions } from '../../../simulator/simulator';
import { makeBatch } from '../../support/batch-harness';
import { CrashFileSystem } from '../../support/crash-fs';
import { makePdfBytes, makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { clockAheadOf, openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

/**
 * What outsiders found when they attacked the exactly-once engine (a strict operator, a user
 * at the keyboard, a reviewer reading the code): each case here failed on the engine before
 * the fix, or is a place the attack probed and the engine held. The service and the desk run on
 * one virtual clock: Retry-After, backoff and the read spacing pass without real waiting.
 */

const CREATE = '^/api/v1/signing-requests$';
const READ = '^/api/v1/signing-requests/[^/]+$';

let sim: Simulator | undefined;
let clock: VirtualClock;
let files: TempFolder | undefined;
let desk: Desk | undefined;
afterEach(async () => {
  if (desk) await clock.complete(desk.close());
  desk = undefined;
  await sim?.close();
  sim = undefined;
  files?.remove();
  files = undefined;
});

async function start(options: SimulatorOptions, prefix: string, deskOverrides = {}): Promise<Desk> {
  ({ sim, clock } = await startVirtualSimulator(options));
  files = makeTempFolder(prefix);
  desk = await openVirtualDesk(sim, clock, files.file('data'), deskOverrides);
  return desk;
}

/** Starts the simulator alone on a new virtual clock (the test opens its desk itself). */
async function startService(options: SimulatorOptions): Promise<Simulator> {
  ({ sim, clock } = await startVirtualSimulator(options));
  return sim;
}

/** Lets virtual time run until `condition` holds. */
function until(condition: () => boolean, what: string): Promise<void> {
  return clock.runUntil(condition, { what });
}

/** Runs `work` (a send, a link) to its end, virtual time passing as its waits ask. */
function done<T>(work: Promise<T>): Promise<T> {
  return clock.complete(work);
}

/** Four creation answers lost, then a 404 the service words itself: the document needs a check. */
async function sendIntoCheck(current: Desk, batchId: string, documentIds?: string[]) {
  sim!.faults.enqueue(
    ...Array.from({ length: 4 }, () => ({ kind: 'dropAfter' as const, pathPattern: CREATE })),
    { kind: 'reject', pathPattern: CREATE, status: 404, code: 'not_found' },
  );
  await done(current.engine.send(batchId, documentIds));
}

const only = (current: Desk, batchId: string, index = 0) => current.store.get(batchId)!.documents[index]!;

describe('needs your check: linking', () => {
  it('a service whose read shows only what §4.4 lists (no reference): linking asks for confirmation, then continues', async () => {
    const current = await start({ seed: 7, variant: variantNamed('terse-token') }, 'edge-link-spec-');
    const batch = await makeBatch(current, files!, 1);
    await sendIntoCheck(current, batch.id);
    const document = only(current, batch.id);
    expect(phaseOf(document)).toBe('needs_check');
    const [remote] = sim!.state.requests();

    const unconfirmed = await done(current.engine.linkRequest(batch.id, document.draft.id, remote!.id));
    expect(unconfirmed).toMatchObject({ ok: false, error: { refusal: 'needs_confirmation' } });
    expect(unconfirmed.ok ? '' : unconfirmed.error.message).toMatch(/does not show which reference/i);
    expect(phaseOf(only(current, batch.id))).toBe('needs_check');

    expect(
      await done(current.engine.linkRequest(batch.id, document.draft.id, remote!.id, { confirmed: true })),
    ).toEqual({
      ok: true,
    });
    expect(await done(current.engine.send(batch.id))).toMatchObject({ prepared: 1, needsCheck: 0 });
    expect(sim!.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
    expect(sim!.state.violations()).toEqual([]);
  });

  it('a request already prepared at the service is linked, but its missing participants are not taken as "already there"', async () => {
    const current = await start({ seed: 6 }, 'edge-link-prepared-');
    const batch = await makeBatch(current, files!, 1);
    await sendIntoCheck(current, batch.id);
    const [remote] = sim!.state.requests();
    // Meanwhile a colleague prepared that request at the service, without the observer.
    expect((await done(current.client.prepareSigningRequest(remote!.id))).ok).toBe(true);
    await clock.advance(READ_SPACING_MS); // the read spacing of one request
    expect(
      await done(current.engine.linkRequest(batch.id, only(current, batch.id).draft.id, remote!.id)),
    ).toEqual({ ok: true });
    await done(current.engine.send(batch.id));
    const document = only(current, batch.id);
    expect(document.send.participants[0]?.done).not.toBe('already_there');
    expect(phaseOf(document)).toBe('failed');
    expect(document.send.error?.message).toMatch(/observer1@example\.com|participant/i);
    expect(sim!.state.requests()[0]!.participants.map((p) => p.email)).toEqual(['signer1@example.com']);
  });

  it('a link whose read is slow is refused if "send as new" was chosen meanwhile: the document follows the new request', async () => {
    const current = await start({ seed: 41 }, 'edge-link-race-');
    const batch = await makeBatch(current, files!, 1);
    await sendIntoCheck(current, batch.id);
    const documentId = only(current, batch.id).draft.id;
    const [original] = sim!.state.requests();
    sim!.faults.set({ latencyMs: 2_000, pathPattern: READ });
    const linking = current.engine.linkRequest(batch.id, documentId, original!.id);
    // The read is on its way (answered 2 s later) when the user chooses "send as new".
    await until(() => sim!.state.callsUnderWay() > 0, 'the read of the link on its way');
    expect(await done(current.engine.sendAsNew(batch.id, documentId))).toEqual({ ok: true });
    sim!.faults.reset();
    const link = await done(linking);
    expect(link.ok).toBe(false);
    await done(current.engine.send(batch.id));
    const document = only(current, batch.id);
    expect(phaseOf(document)).toBe('prepared');
    // The user asked for a new request on purpose: the document follows it, not the original.
    expect(document.send.requestId).not.toBe(original!.id);
    expect(sim!.state.requests().map((request) => request.id)).toContain(document.send.requestId);
  });

  it('refuses to link the request another document of the data folder already follows, even with the same reference', async () => {
    const current = await start({ seed: 31 }, 'edge-link-sameref-');
    const batch = await makeBatch(current, files!, 1);
    // Another batch with a PDF of the same reference (two folders, one naming scheme).
    const copy = await makeBatch(current, files!, 1, 'Second batch');
    expect(await done(current.engine.send(batch.id))).toMatchObject({ prepared: 1 });
    // The data folder already holds REF-1 at this service: the second one is held back, not sent.
    expect(await done(current.engine.send(copy.id))).toMatchObject({ prepared: 0, needsCheck: 1 });
    expect(only(current, copy.id).send.check).toMatchObject({
      reason: 'held_elsewhere',
      holder: { batchId: batch.id, batchName: 'Test batch' },
    });
    const firstRequest = only(current, batch.id).send.requestId!;
    const outcome = await done(
      current.engine.linkRequest(copy.id, only(current, copy.id).draft.id, firstRequest),
    );
    expect(outcome).toMatchObject({ ok: false, error: { refusal: 'refused' } });
    expect(phaseOf(only(current, copy.id))).toBe('needs_check');
    expect(sim!.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
  });
});

describe('needs your check: a 409 that never passes', () => {
  it('after a few 409s in one run the document asks the user instead of retrying forever', async () => {
    const current = await start({ seed: 9 }, 'edge-409-');
    const batch = await makeBatch(current, files!, 1);
    // A service that answers every creation of this reference with a 409 of its own.
    sim!.faults.enqueue(
      ...Array.from({ length: 200 }, () => ({
        kind: 'reject' as const,
        pathPattern: CREATE,
        status: 409,
        code: 'duplicate_external_reference',
      })),
    );
    const summary = await done(current.engine.send(batch.id));
    expect(summary).toMatchObject({ state: 'finished', needsCheck: 1 });
    const document = only(current, batch.id);
    expect(document.send.check).toMatchObject({
      reason: 'key_refused',
      code: 'duplicate_external_reference',
    });
    const creations = sim!.state.calls().filter((call) => call.operation === 'createSigningRequest');
    expect(creations.length).toBeLessThanOrEqual(24);
    expect(current.engine.isRunning(batch.id)).toBe(false);
  });
});

describe('waiting', () => {
  it('a Pause while a creation waits out a 503 is not a lost answer: Resume sends it, no check asked', async () => {
    const current = await start({ seed: 12 }, 'edge-pause-');
    const batch = await makeBatch(current, files!, 1);
    sim!.faults.enqueue({ kind: '503', pathPattern: CREATE, retryAfterSeconds: 3 });
    const sending = current.engine.send(batch.id);
    await until(
      () =>
        sim!.state.calls().some((call) => call.operation === 'createSigningRequest' && call.status === 503),
      'the 503 to the creation',
    );
    await clock.advance(100);
    // Still waiting out the Retry-After: the creation has not been tried again.
    expect(sim!.state.calls().filter((call) => call.operation === 'createSigningRequest')).toHaveLength(1);
    current.engine.pause(batch.id);
    await done(sending);
    await clock.advance(3_000); // the Retry-After passes
    expect(await done(current.engine.send(batch.id))).toMatchObject({ prepared: 1, needsCheck: 0 });
    expect(sim!.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
  });

  it('a Retry-After of 30 days: no timer overflow, one upload call, and the wait shown is capped at a day', async () => {
    const current = await start({ seed: 2 }, 'edge-huge-ra-');
    const batch = await makeBatch(current, files!, 1);
    sim!.faults.enqueue({ kind: '503', pathPattern: '^/api/v1/uploads$', retryAfterSeconds: 30 * 86_400 });
    let overflowWarnings = 0;
    const onWarning = (warning: Error) => {
      if (warning.name === 'TimeoutOverflowWarning') overflowWarnings += 1;
    };
    process.on('warning', onWarning);
    const waitsMs: number[] = [];
    current.engine.subscribe((event) => {
      if (event.type === 'engine-state' && event.resumesAt !== undefined)
        waitsMs.push(event.resumesAt - clock.now());
    });
    try {
      const sending = current.engine.send(batch.id);
      await until(() => waitsMs.length > 0, 'the wait said');
      await clock.advance(1_000);
      current.engine.pause(batch.id);
      await done(sending);
    } finally {
      process.off('warning', onWarning);
    }
    expect(overflowWarnings).toBe(0);
    expect(sim!.state.calls().filter((call) => call.operation === 'upload')).toHaveLength(1);
    // A day at most, exactly (one clock: nothing runs ahead of another).
    expect(Math.max(...waitsMs)).toBeLessThanOrEqual(86_400_000);
    expect(Math.max(...waitsMs)).toBeGreaterThan(86_000_000);
  });

  it('the wall clock set back an hour during a wait does not stall sending', async () => {
    const service = await startService({ seed: 61 });
    files = makeTempFolder('edge-clock-');
    let offset = 0;
    const current = await openVirtualDesk(service, clock, files.file('data'), {
      clock: clockAheadOf(clock, () => offset),
    });
    desk = current;
    const batch = await makeBatch(current, files, 1);
    // More 503s than one call retries: the queue waits, and the clock steps back meanwhile.
    service.faults.enqueue(
      ...Array.from({ length: 6 }, () => ({
        kind: '503' as const,
        pathPattern: '^/api/v1/uploads$',
        retryAfterSeconds: 0,
      })),
    );
    current.engine.subscribe((event) => {
      if (event.type === 'engine-state' && event.state === 'waiting') offset -= 3_600_000; // NTP steps back
    });
    const summary = await done(current.engine.send(batch.id));
    expect(summary).toMatchObject({ prepared: 1 });
    expect(offset).toBeLessThan(0); // the clock did go back during the run
  });

  it('a Retry-After outlives a restart of the app or of `send`: no call arrives inside it', async () => {
    const service = await startService({ seed: 8 });
    files = makeTempFolder('edge-ra-restart-');
    const data = files.file('data');
    desk = await openVirtualDesk(service, clock, data);
    const batch = await makeBatch(desk, files, 1);
    service.faults.enqueue({ kind: '429', pathPattern: '^/api/v1/uploads$', retryAfterSeconds: 120 });
    const sending = desk.engine.send(batch.id);
    // The user sees "sending resumes by itself at …" (the hold is kept), then quits.
    await until(() => existsSync(join(data, 'service-holds.json')), 'the hold kept');
    await done(desk.close());
    await done(sending);
    desk = await openVirtualDesk(service, clock, data);
    const resumed = desk.engine.send(batch.id);
    // Most of the 120 s pass, in the restarted desk: still no call.
    await clock.advance(100_000);
    expect(service.state.calls().filter((call) => call.operation === 'upload')).toHaveLength(1);
    desk.engine.pause(batch.id);
    await done(resumed);
    expect(service.state.calls().filter((call) => call.operation === 'upload')).toHaveLength(1);
    expect(service.state.violations()).toEqual([]);
    expect(readFileSync(join(data, 'service-holds.json'), 'utf8')).not.toMatch(/secret/i);
  });
});

describe('blame where it belongs', () => {
  it("a token endpoint's refusal mid-batch stops the run with its own reason; no document is blamed", async () => {
    const current = await start({ seed: 21 }, 'edge-token-', { concurrency: 1 });
    const batch = await makeBatch(current, files!, 3);
    let armed = false;
    current.store.subscribe((_state, events) => {
      if (!armed && events.some((event) => event.type === 'upload_completed')) {
        armed = true;
        sim!.revokeTokens();
        sim!.faults.enqueue(
          ...Array.from({ length: 3 }, () => ({
            kind: 'reject' as const,
            pathPattern: '^/oauth/token$',
            status: 400,
            code: 'invalid_request',
          })),
        );
      }
    });
    const summary = await done(current.engine.send(batch.id));
    expect(summary.state).toBe('stopped');
    expect(current.store.get(batch.id)!.documents.filter((document) => document.send.error)).toEqual([]);
    // Once the token endpoint is well again, the batch finishes exactly once.
    sim!.faults.reset();
    expect(await done(current.engine.send(batch.id))).toMatchObject({ prepared: 3 });
    expect(sim!.state.countByExternalReference()).toEqual({ 'REF-1': 1, 'REF-2': 1, 'REF-3': 1 });
  });

  it.each([
    ['a creation', CREATE],
    ['a prepare', '^/api/v1/signing-requests/[^/]+/prepare$'],
  ])(
    'the token endpoint failing after %s whose answer was lost: the run stops, the key is kept, nothing is sent twice',
    async (_what, path) => {
      const current = await start({ seed: 3 }, 'edge-token-unknown-');
      const batch = await makeBatch(current, files!, 1);
      sim!.faults.enqueue(
        { kind: 'dropAfter', pathPattern: path }, // applied, answer lost
        { kind: 'reject', pathPattern: path, status: 401, code: 'invalid_token' },
        { kind: 'reject', pathPattern: '^/oauth/token$', status: 400, code: 'invalid_request' },
      );
      expect(await done(current.engine.send(batch.id))).toMatchObject({ state: 'stopped' });
      const document = only(current, batch.id);
      expect(document.send.check).toBeUndefined();
      expect(document.send.error).toBeUndefined();
      expect(await done(current.engine.send(batch.id))).toMatchObject({ prepared: 1, needsCheck: 0 });
      expect(sim!.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
    },
  );

  it('a corrected PDF imported after a refused creation is the one sent, not the old upload', async () => {
    sim = await startService({ seed: 5 });
    files = makeTempFolder('edge-stale-');
    desk = await openVirtualDesk(sim, clock, files.file('data'));
    const pdf = files.file('contract.pdf');
    writeFileSync(pdf, await makePdfBytes('Contract v1 (wrong salary)'));
    const manifest = files.file('manifest.csv');
    writeFileSync(
      manifest,
      'document;external_reference;participant_type;role;name;email\ncontract.pdf;HR-1;signer;Employee;Ann;ann@example.com\n',
    );
    const batch = await desk.store.create('m', { defaultRecipients: [] }, manifest);
    await importManifest(desk.store, desk.blobs, batch.id, (await checkManifest(manifest)).documents);
    sim.faults.enqueue({ kind: 'reject', pathPattern: CREATE, status: 422, code: 'invalid_signing_request' });
    expect(await done(desk.engine.send(batch.id))).toMatchObject({ failed: 1 });

    writeFileSync(pdf, await makePdfBytes('Contract v2 (corrected salary)'));
    const v2 = createHash('sha256').update(readFileSync(pdf)).digest('hex');
    await importManifest(desk.store, desk.blobs, batch.id, (await checkManifest(manifest)).documents);
    const document = only(desk, batch.id);
    expect(document.draft.pdf.sha256).toBe(v2);
    await done(desk.engine.retry(batch.id, document.draft.id));
    expect(await done(desk.engine.send(batch.id))).toMatchObject({ prepared: 1, failed: 0 });
    const [request] = sim.state.requests();
    const upload = sim.state.uploads().find((candidate) => candidate.uploadId === request!.uploadId)!;
    expect(upload.sha256).toBe(v2);
  });
});

/** Fails (EIO) the one journal write that carries `needle`. */
class FailingWrite extends CrashFileSystem {
  needle = '';
  override async open(path: string, flags: OpenFlags): Promise<OpenFile> {
    const file = await super.open(path, flags);
    return {
      ...file,
      write: (data) => {
        if (this.needle && String(data).includes(this.needle)) {
          this.needle = '';
          return Promise.reject(Object.assign(new Error('EIO'), { code: 'EIO' }));
        }
        return file.write(data);
      },
      writeFile: (data) => file.writeFile(data),
      datasync: () => file.datasync(),
      sync: () => file.sync(),
      truncate: (length) => file.truncate(length),
      stat: () => file.stat(),
      close: () => file.close(),
    };
  }
}

describe('markers and older data folders (held under attack)', () => {
  it.each(['create_attempt_started', 'participant_attempted'])(
    'the write of "%s" fails: the call never leaves, and the next send finishes exactly once',
    async (marker) => {
      sim = await startService({ seed: 3 });
      files = makeTempFolder('edge-marker-');
      const fs = new FailingWrite();
      desk = await openVirtualDesk(sim, clock, '/data', { fs });
      const batch = await makeBatch(desk, files, 1);
      fs.needle = marker;
      const stopped = await done(desk.engine.send(batch.id));
      const operation = marker === 'participant_attempted' ? 'addParticipant' : 'createSigningRequest';
      expect(stopped.state).toBe('stopped');
      expect(sim.state.calls().filter((call) => call.operation === operation)).toEqual([]);
      expect(await done(desk.engine.send(batch.id))).toMatchObject({ prepared: 1, needsCheck: 0 });
      expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
      expect(sim.state.requests()[0]!.participants).toHaveLength(2);
    },
  );

  it('a snapshot of the previous version (participant "attempted", a key without attempt facts) finishes exactly once', async () => {
    sim = await startService({ seed: 51 });
    files = makeTempFolder('edge-upgrade-');
    const data = files.file('data');
    desk = await openVirtualDesk(sim, clock, data);
    const batch = await makeBatch(desk, files, 1);
    const stop = desk.store.subscribe((_s, events) => {
      if (events.some((event) => event.type === 'request_created')) desk!.engine.pause(batch.id);
    });
    await done(desk.engine.send(batch.id));
    stop();
    const state = desk.store.get(batch.id)!;
    await done(desk.close());
    writePreviousVersionSnapshot(data, state);
    desk = await openVirtualDesk(sim, clock, data);
    expect(desk.store.loadReport.damaged).toEqual([]);
    expect(await done(desk.engine.send(batch.id))).toMatchObject({ prepared: 1, needsCheck: 0, failed: 0 });
    expect(sim.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
    expect(
      sim.state
        .requests()[0]!
        .participants.map((p) => p.email)
        .sort(),
    ).toEqual(['observer1@example.com', 'signer1@example.com']);
  });
});

/** Writes `state` as the previous version stored it: participant progress as words, a bare key. */
function writePreviousVersionSnapshot(dataDir: string, state: BatchState): void {
  const old = {
    ...state,
    documents: state.documents.map((document) => {
      const { create, participants: _progress, check: _check, ...send } = document.send;
      return {
        ...document,
        send: {
          ...send,
          create: create && {
            idempotencyKey: create.idempotencyKey,
            uploadId: create.uploadId,
            body: create.body,
          },
          participants: { 0: 'attempted' },
        },
      };
    }),
  };
  const folder = join(dataDir, 'batches', state.id);
  mkdirSync(folder, { recursive: true });
  for (const name of readdirSync(folder)) writeFileSync(join(folder, name), '');
  writeFileSync(
    join(folder, 'snapshot.json'),
    encodeLine({ seq: 999, at: new Date().toISOString(), event: old }),
  );
  writeFileSync(join(folder, 'journal.log'), '');
}
