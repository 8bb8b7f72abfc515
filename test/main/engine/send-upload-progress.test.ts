import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Desk } from '../../../main/app/desk-core';
import { startSimulator, type Simulator } from '../../../simulator/simulator';
import { makePaddedPdfTemplate, writePaddedPdf } from '../../../bench/support/pdf-fixtures';
import { batchOfPdfs, openTestDesk } from '../../support/batch-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

const MIB = 1024 * 1024;

let sim: Simulator;
let files: TempFolder;
let desk: Desk;

beforeEach(async () => {
  // 8 Mbit/s: a MiB takes about a second, and the system's socket buffers hold megabytes.
  sim = await startSimulator({ seed: 5, uploadMbit: 8 });
  files = makeTempFolder();
  desk = await openTestDesk(sim, files.file('data'), { concurrency: 1 });
});

afterEach(async () => {
  await desk.close();
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
    const summary = await desk.engine.send(batch.id);
    expect(summary).toMatchObject({ state: 'finished', prepared: 3 });
    expect(order).toEqual(['SLOW-1', 'SLOW-2', 'SLOW-3']);
    const later = seen.filter((entry) => entry.reference !== 'SLOW-1' && entry.shown > 0);
    // The bar still moves along the way…
    expect(later.length).toBeGreaterThanOrEqual(4);
    // …but never more than a progress step (256 KiB) ahead of what reached the service.
    for (const entry of later) expect(entry.shown - entry.received).toBeLessThanOrEqual(256 * 1024);
  });
});
