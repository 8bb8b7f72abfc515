import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Desk } from '../../../main/app/desk-core';
import { VirtualClock } from '../../../main/time/virtual-clock';
import type { Simulator } from '../../../simulator/simulator';
import { makePaddedPdfTemplate, writePaddedPdf } from '../../../bench/support/pdf-fixtures';
import { batchOfPdfs } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { openVirtualDesk, startVirtualSimulator } from '../../support/virtual-world';

/**
 * The bar of an upload on a slow line, against what the service received. The desk, the service
 * and the shaped line run on one virtual clock (`uplinkTime`): the line carries each piece at the
 * instant its rate allows, the app's paced estimate reads the same time, and the system's socket
 * buffers still take the whole file at once, for real. A loaded machine delays both alike.
 */
const MIB = 1024 * 1024;

let sim: Simulator;
let clock: VirtualClock;
let files: TempFolder;
let desk: Desk;

beforeEach(async () => {
  // 8 Mbit/s: a MiB takes about a second, and the system's socket buffers hold megabytes.
  clock = new VirtualClock({ startAt: Date.now() });
  ({ sim } = await startVirtualSimulator({ seed: 5, uploadMbit: 8, uplinkTime: clock }, clock));
  files = makeTempFolder();
  desk = await openVirtualDesk(sim, clock, files.file('data'), { concurrency: 1 });
});

afterEach(async () => {
  await clock.complete(desk.close());
  await sim.close();
  files.remove();
});

describe('upload progress on a slow line', () => {
  it('once an upload has finished, the next ones show no more than the service received (not what the socket buffers took)', async () => {
    const template = await makePaddedPdfTemplate(MIB, 'Slow line contract');
    const paths: string[] = [];
    for (let index = 1; index <= 3; index += 1) {
      const path = files.file(`contract-${index}.pdf`);
      await writePaddedPdf(path, template);
      paths.push(path);
    }
    const batch = await batchOfPdfs(desk, paths, 'Slow line', 'SLOW');
    const order: string[] = [];
    /** Per progress event of an upload: bytes shown, and bytes of that upload the service had. */
    const seen: { reference: string; shown: number; received: number }[] = [];
    desk.engine.subscribe((event) => {
      if (event.type !== 'item-progress' || event.phase !== 'uploading' || event.sentBytes === undefined)
        return;
      if (!order.includes(event.externalReference)) order.push(event.externalReference);
      const before = order.indexOf(event.externalReference) * MIB;
      seen.push({
        reference: event.externalReference,
        shown: event.sentBytes,
        received: sim.uplink.receivedBytes() - before,
      });
    });
    const summary = await clock.complete(desk.engine.send(batch.id));
    expect(summary).toMatchObject({ state: 'finished', prepared: 3 });
    expect(order).toEqual(['SLOW-1', 'SLOW-2', 'SLOW-3']);
    const later = seen.filter((entry) => entry.reference !== 'SLOW-1' && entry.shown > 0);
    // The bar still moves along the way…
    expect(later.length).toBeGreaterThanOrEqual(4);
    // …but never more than a progress step (256 KiB) ahead of what reached the service.
    for (const entry of later) expect(entry.shown - entry.received).toBeLessThanOrEqual(256 * 1024);
  });
});
