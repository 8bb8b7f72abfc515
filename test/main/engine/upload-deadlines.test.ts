import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import type { SendEngineEvent, UploadStage } from '../../../main/engine/send-events';
import type { Desk, DeskOptions } from '../../../main/app/desk-core';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../simulator/simulator';
import { makePaddedPdfTemplate, writePaddedPdf } from '../../../bench/support/pdf-fixtures';
import { batchOfPdfs, openTestDesk } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

/**
 * README "Sending at the pace of the line": an upload is given up on what it does, not on its size
 * — only when its bytes stop moving; the line decides how many uploads share it; the bar says where
 * each attempt is. The stall window is shortened where a test needs it, everything else is the
 * app's own. Tests of the line itself (a connection gone silent mid-body, the simulator's shaped
 * uplink) run in real time, as the line does; the others on a virtual clock.
 */
const MIB = 1024 * 1024;
const STALL_MS = 1_500;

let sim: Simulator | undefined;
let files: TempFolder | undefined;
let desk: Desk | undefined;
/** The virtual clock of a test that runs on one. */
let clock: VirtualClock | undefined;

afterEach(async () => {
  for (const stop of watching.splice(0)) stop();
  if (desk) await (clock ? clock.complete(desk.close()) : desk.close());
  await sim?.close();
  files?.remove();
  desk = undefined;
  sim = undefined;
  files = undefined;
  clock = undefined;
});

async function setUp(
  count: number,
  sizeBytes: number,
  options: SimulatorOptions,
  concurrency = 4,
  tuning: Partial<DeskOptions> = {},
  onVirtualClock = false,
) {
  if (onVirtualClock) ({ sim, clock } = await startVirtualSimulator({ seed: 22, ...options }));
  else sim = await startSimulator({ seed: 22, ...options });
  files = makeTempFolder('desk-upload-deadlines-');
  desk = clock
    ? await openVirtualDesk(sim, clock, files.file('data'), { concurrency, ...tuning })
    : await openTestDesk(sim, files.file('data'), { concurrency, ...tuning });
  const template = await makePaddedPdfTemplate(sizeBytes, 'Upload deadline contract');
  const paths: string[] = [];
  for (let index = 1; index <= count; index += 1) {
    const path = files.file(`contract-${index}.pdf`);
    await writePaddedPdf(path, template);
    paths.push(path);
  }
  const batch = await batchOfPdfs(desk, paths, 'Uploads', 'UP');
  return { sim, desk, batch };
}

/** Uploads on their way at once at most, as the client puts them on the wire (undici's diagnostics channels). */
function watchWire() {
  const onTheirWay = new Set<object>();
  let most = 0;
  const requestOf = (message: unknown) => (message as { request: { path: string; method: string } }).request;
  const created = (message: unknown) => {
    const request = requestOf(message);
    if (request.method !== 'POST' || request.path !== '/api/v1/uploads') return;
    onTheirWay.add(request);
    most = Math.max(most, onTheirWay.size);
  };
  const ended = (message: unknown) => onTheirWay.delete(requestOf(message));
  subscribe('undici:request:create', created);
  subscribe('undici:request:headers', ended);
  subscribe('undici:request:error', ended);
  watching.push(() => {
    unsubscribe('undici:request:create', created);
    unsubscribe('undici:request:headers', ended);
    unsubscribe('undici:request:error', ended);
  });
  return { most: () => most };
}
const watching: (() => void)[] = [];

/** Every upload stage the bars said, per document, and whether the batch was said to be slow. */
function watchUploads(subject: Desk) {
  const stages = new Map<string, UploadStage[]>();
  const slow: boolean[] = [];
  const events: SendEngineEvent[] = [];
  subject.engine.subscribe((event) => {
    events.push(event);
    if (event.type === 'service-slow') slow.push(event.slow);
    if (event.type !== 'item-progress' || event.phase !== 'uploading' || event.upload === undefined) return;
    const said = stages.get(event.externalReference) ?? [];
    if (said.at(-1) !== event.upload) said.push(event.upload);
    stages.set(event.externalReference, said);
  });
  return { stages, slow, events, wire: watchWire() };
}

function uploadCalls(service: Simulator) {
  return service.state.calls().filter((call) => call.operation === 'upload');
}

describe('an upload whose connection goes silent mid-body', () => {
  it('is given up once its bytes stop moving, not at a deadline from its size, and sent again from its first byte, said so', async () => {
    // 48 MiB: more than the system's socket buffers take, so the app sees its bytes stop.
    // A stall window of 1.5 s, the system taking 64 KiB at once (scaled from 45 s and 2 MiB).
    const {
      sim: service,
      desk: subject,
      batch,
    } = await setUp(1, 48 * MIB, {}, 1, {
      uploadStallMs: STALL_MS,
      uploadTakenAtOnceBytes: 64 * 1024,
    });
    service.faults.enqueue({ kind: 'silent', pathPattern: '^/api/v1/uploads$', afterBytes: 2 * MIB });
    const watch = watchUploads(subject);
    const summary = await subject.engine.send(batch.id);
    expect(summary).toMatchObject({ state: 'finished', prepared: 1, failed: 0 });
    const uploads = uploadCalls(service);
    expect(uploads.map((call) => [call.fault, call.status])).toEqual([
      ['silent', null],
      [null, 201],
    ]);
    // The bar said it was sending, then that it sends again from the start, then that it awaits the answer.
    expect(watch.stages.get('UP-1')).toEqual(['sending', 'sending_again', 'confirming']);
    const again = watch.events.find(
      (event) => event.type === 'item-progress' && event.upload === 'sending_again',
    );
    expect(again).toMatchObject({ sentBytes: 0, totalBytes: 48 * MIB });
  }, 60_000);
});

describe('uploads on a line that is the limit', () => {
  it('go two at a time, one attempt each, the bar never ahead of the service by more than 256 KiB, never said slow while bytes move', async () => {
    // 16 Mbit/s shared: a 2 MiB document takes a second alone.
    const { sim: service, desk: subject, batch } = await setUp(6, 2 * MIB, { uploadMbit: 16 });
    const watch = watchUploads(subject);
    /** The largest lead of the bars together over the bytes the service had, per upload on its way. */
    let worstLead = 0;
    const shown = new Map<string, number>();
    const finishedBytes = new Set<string>();
    subject.engine.subscribe((event) => {
      if (event.type !== 'item-progress') return;
      if (event.phase !== 'uploading') {
        if (shown.delete(event.externalReference)) finishedBytes.add(event.externalReference);
        return;
      }
      if (event.sentBytes === undefined) return;
      shown.set(event.externalReference, event.sentBytes);
      const onTheirWay = service.uplink.receivedBytes() - finishedBytes.size * 2 * MIB;
      const lead = [...shown.values()].reduce((sum, bytes) => sum + bytes, 0) - onTheirWay;
      worstLead = Math.max(worstLead, lead / Math.max(1, shown.size));
    });
    const summary = await subject.engine.send(batch.id);
    expect(summary).toMatchObject({ state: 'finished', prepared: 6, failed: 0 });
    expect(uploadCalls(service)).toHaveLength(6);
    expect(watch.wire.most()).toBeLessThanOrEqual(2);
    expect(worstLead).toBeLessThanOrEqual(256 * 1024);
    expect(watch.slow).not.toContain(true);
    for (const reference of ['UP-1', 'UP-6']) expect(watch.stages.get(reference)?.at(-1)).toBe('confirming');
  }, 60_000);

  it('on a fast line, as many at once as the run allows once one was measured', async () => {
    // Unlimited line, each call answered after 150 ms (virtual): the latency, not the line, is the limit.
    const { sim: service, desk: subject, batch } = await setUp(10, 256 * 1024, {}, 4, {}, true);
    service.faults.set({ latencyMs: 150 });
    const watch = watchUploads(subject);
    const summary = await clock!.complete(subject.engine.send(batch.id));
    expect(summary).toMatchObject({ state: 'finished', prepared: 10 });
    expect(uploadCalls(service)).toHaveLength(10);
    expect(watch.wire.most()).toBe(4);
  });
});
