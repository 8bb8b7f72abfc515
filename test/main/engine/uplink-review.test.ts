import { describe, expect, it, onTestFinished } from 'vitest';
import type { SendEngineEvent, SendSummary, UploadStage } from '../../../main/engine/send-events';
import type { Desk, DeskOptions } from '../../../main/app/desk-core';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../simulator/simulator';
import { makePaddedPdfTemplate, writePaddedPdf } from '../../../bench/support/pdf-fixtures';
import { batchOfPdfs, openTestDesk } from '../../support/batch-harness';
import { makeTempFolder } from '../../support/pdf-files';

/**
 * A review of README "Sending at the pace of the line": what a strict operator sees on slow, shared
 * and changing lines. The deadlines are scaled down (`callTimeoutMs`, `uploadStallMs`); the lines,
 * the system's socket buffers and the app's own paces are real.
 */
const KIB = 1024;
const MIB = 1024 * KIB;

async function setUp(
  count: number,
  sizeBytes: number,
  options: SimulatorOptions,
  tuning: Partial<DeskOptions> = {},
) {
  const sim = await startSimulator({ seed: 2222, ...options });
  const files = makeTempFolder('desk-uplink-review-');
  const desk = await openTestDesk(sim, files.file('data'), { concurrency: 4, ...tuning });
  // Each test cleans up its own: the tests run side by side (each on a line of its own).
  onTestFinished(async () => {
    await desk.close();
    await sim.close();
    files.remove();
  });
  const template = await makePaddedPdfTemplate(sizeBytes, 'Uplink review contract');
  const paths: string[] = [];
  for (let index = 1; index <= count; index += 1) {
    const path = files.file(`contract-${index}.pdf`);
    await writePaddedPdf(path, template);
    paths.push(path);
  }
  const batch = await batchOfPdfs(desk, paths, 'Uplink', 'UL');
  return { sim, desk, batch };
}

/**
 * The run's summary; or 'sent again' as soon as an upload attempt was given up and started over
 * (with `untilSentAgain`), or 'still running' when it has not ended within `ms` (afterEach stops it).
 */
async function sendWithin(
  subject: Desk,
  batchId: string,
  ms: number,
  untilSentAgain = false,
): Promise<SendSummary | 'still running' | 'sent again'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sentAgain: () => void = () => undefined;
  const late = new Promise<'still running'>((resolve) => {
    timer = setTimeout(() => resolve('still running'), ms);
  });
  const again = new Promise<'sent again'>((resolve) => (sentAgain = () => resolve('sent again')));
  const unsubscribe = subject.engine.subscribe((event) => {
    if (untilSentAgain && event.type === 'item-progress' && event.upload === 'sending_again') sentAgain();
  });
  try {
    return await Promise.race([subject.engine.send(batchId), late, again]);
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
}

function uploadCalls(service: Simulator) {
  return service.state.calls().filter((call) => call.operation === 'upload');
}

/** Every upload stage the bars said, per document, and whether the batch was said to be slow. */
function watchUploads(subject: Desk) {
  const stages = new Map<string, UploadStage[]>();
  const slow: boolean[] = [];
  subject.engine.subscribe((event: SendEngineEvent) => {
    if (event.type === 'service-slow') slow.push(event.slow);
    if (event.type !== 'item-progress' || event.phase !== 'uploading' || event.upload === undefined) return;
    const said = stages.get(event.externalReference) ?? [];
    if (said.at(-1) !== event.upload) said.push(event.upload);
    stages.set(event.externalReference, said);
  });
  return { stages, slow };
}

// Each test on its own simulated line: they run side by side (the lines, not the cores, set their pace).
describe.concurrent('the uplink review', () => {
  describe('the first uploads of a run, on the slowest line the app is made for', () => {
    it('two sharing 0.5 Mbit/s before anything is measured are not given up while their bytes still cross', async () => {
      // Each file fits in the system's socket buffers: all of it is handed over at once, then
      // crosses at 32 KiB/s (two uploads share 64 KiB/s): 16 s. The answer deadline counted the
      // whole line for each (8 s + the call's time).
      const {
        sim: service,
        desk: subject,
        batch,
      } = await setUp(2, 512 * KIB, { uploadMbit: 0.5 }, { callTimeoutMs: 2_000, uploadStallMs: 5_000 });
      const watch = watchUploads(subject);
      const summary = await sendWithin(subject, batch.id, 45_000);
      expect(summary).toMatchObject({ state: 'finished', prepared: 2 });
      expect(uploadCalls(service).map((call) => call.status)).toEqual([201, 201]);
      // Nor is the service said to be slow while they cross.
      expect(watch.slow).not.toContain(true);
    }, 60_000);
  });

  describe('the bars of the first uploads of a run, on the slowest line', () => {
    it('two sharing 0.5 Mbit/s, their files taken whole by the buffers: never more than 256 KiB ahead of what the service received', async () => {
      // Nothing measured yet and nothing to read from the connection (it took each file at once):
      // the bars can only go at the slowest line, and two uploads each have half of it.
      const { sim: service, desk: subject, batch } = await setUp(2, MIB, { uploadMbit: 0.5 });
      /** The largest lead of the bars together over the bytes the service had, per upload on its way. */
      let worstLead = 0;
      const shown = new Map<string, number>();
      subject.engine.subscribe((event) => {
        if (event.type !== 'item-progress' || event.phase !== 'uploading' || event.sentBytes === undefined)
          return;
        shown.set(event.externalReference, event.sentBytes);
        const lead =
          [...shown.values()].reduce((sum, bytes) => sum + bytes, 0) - service.uplink.receivedBytes();
        worstLead = Math.max(worstLead, lead / shown.size);
      });
      const summary = await subject.engine.send(batch.id);
      expect(summary).toMatchObject({ state: 'finished', prepared: 2 });
      expect(uploadCalls(service)).toHaveLength(2);
      expect(worstLead).toBeLessThanOrEqual(256 * KIB);
    }, 90_000);
  });

  /*
   * The tests below showed defects this review found; each failed before its fix.
   */

  describe('an upload whose line stalls mid-body', () => {
    it('the bar stands still with the bytes: never more than 256 KiB ahead of what the service received', async () => {
      // Seen before the fix: 4,941,679 bytes ahead, when the bar went on at the connection's pace
      // over the later half of the attempt, which a stall lowers only slowly. The bar now goes at
      // the pace measured on answered uploads (or the slowest line's), which the connection's own
      // pace only ever lowers.
      const total = 12 * MIB;
      const {
        sim: service,
        desk: subject,
        batch,
      } = await setUp(1, total, { uploadMbit: 8 }, { concurrency: 1, uploadStallMs: 30_000 });
      let worstLead = 0;
      let stalled = false;
      subject.engine.subscribe((event) => {
        if (event.type !== 'item-progress' || event.phase !== 'uploading' || event.sentBytes === undefined)
          return;
        const received = service.uplink.receivedBytes();
        worstLead = Math.max(worstLead, event.sentBytes - received);
        // A line that stops for 6 s once 3 MiB crossed (the connection's buffers still hold MiBs).
        if (!stalled && received >= 3 * MIB) {
          stalled = true;
          service.uplink.stall(6_000);
        }
      });
      const summary = await subject.engine.send(batch.id);
      expect(summary).toMatchObject({ state: 'finished', prepared: 1 });
      expect(stalled).toBe(true);
      expect(uploadCalls(service)).toHaveLength(1);
      expect(worstLead).toBeLessThanOrEqual(256 * KIB);
    }, 60_000);
  });

  describe('a line that gets slower after an upload was measured on it', () => {
    it('an upload given up on the earlier fast pace is sent once more, allowing for the slowest line, and the run ends', async () => {
      // The first upload crosses an unlimited line; then the office line is busy: 0.5 Mbit/s.
      // The next file is taken whole into the buffers and crosses in 8 s; its first attempt
      // allows for half the pace measured on the fast line (2 s + a few ms) and is given up.
      // Before the fix every attempt counted that pace and the run never ended (the second upload
      // sent again within 5 s, forever). Now the next attempt allows for the slowest line, with
      // what the given-up attempt left in the buffers ahead of it, and what was measured is
      // forgotten until an upload is answered again.
      const {
        sim: service,
        desk: subject,
        batch,
      } = await setUp(3, 512 * KIB, {}, { concurrency: 1, callTimeoutMs: 2_000, uploadStallMs: 5_000 });
      subject.engine.subscribe((event) => {
        if (
          event.type === 'item-progress' &&
          event.externalReference === 'UL-1' &&
          event.phase !== 'uploading'
        )
          service.uplink.set(0.5);
      });
      const summary = await sendWithin(subject, batch.id, 45_000);
      expect(summary).toMatchObject({ state: 'finished', prepared: 3 });
      // One attempt given up at most, for the one document that met the change of line.
      const answered = uploadCalls(service).filter((call) => call.status === 201);
      expect(answered).toHaveLength(3);
      expect(uploadCalls(service).length).toBeLessThanOrEqual(4);
    }, 60_000);
  });

  describe('uploads whose bytes the system takes in bursts', () => {
    it('two 10 MiB documents sharing the slowest line are not given up between two takes (scaled 8×: 4 Mbit/s, a 5.6 s stall window)', async () => {
      // Once its buffers are full, a connection takes bytes only when the system has freed room
      // for a good part of them, 1.4 to 1.6 MiB at once here (Linux, 4 MiB send buffers): on
      // 0.5 Mbit/s shared by the two lanes of a run that measured nothing yet, 45 to 52 s between
      // two takes, against a 45 s stall window (measured at real scale: gaps of 46 to 52 s).
      // Scaled: the line 8× faster, the windows 8× shorter (seen: sent again after 12 s; with a
      // 9 s window both finish in one attempt each).
      const {
        sim: service,
        desk: subject,
        batch,
      } = await setUp(2, 10 * MIB, { uploadMbit: 4 }, { callTimeoutMs: 3_750, uploadStallMs: 5_625 });
      const summary = await sendWithin(subject, batch.id, 75_000, true);
      expect(summary).toMatchObject({ state: 'finished', prepared: 2 });
      expect(uploadCalls(service).map((call) => call.status)).toEqual([201, 201]);
    }, 90_000);
  });
});
