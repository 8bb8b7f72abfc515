import { describe, expect, it } from 'vitest';
import { BatchStore } from '../../../main/store/batch-store';
import { CrashFileSystem, type DiskImage } from '../../support/crash-fs';
import { createSeededRandom } from '../../../simulator/seeded-random';

import { preparedBatch, trackedStatus } from './fold-fixtures';

const DATA = '/home/user/data';

/** A disk with one batch: doc-1 signed, doc-2 waiting, `reads` status reads in its journal (no snapshot fold). */
async function prepared(reads: number): Promise<{ image: DiskImage; batchId: string }> {
  const fs = new CrashFileSystem();
  const store = await BatchStore.open(DATA, { fs, compactAfterEntries: 100_000 });
  const batchId = await preparedBatch(store, 2);
  await store.record(batchId, [{ type: 'status_read', documentId: 'doc-1', status: trackedStatus(0, true) }]);
  for (let n = 1; n <= reads; n++)
    await store.record(batchId, [
      { type: 'status_read', documentId: 'doc-2', status: trackedStatus(n, false) },
    ]);
  await store.close();
  return { image: fs.imageAfterPowerCut(createSeededRandom(1)), batchId };
}

/**
 * Power cut at every operation of: open (a fold of the long journal queued in the background),
 * then at once renames and the final status (a fold at rest) racing it, then close.
 */
describe('folds through power cuts', () => {
  it('keeps every acknowledged record whatever operation the power cut interrupts', async () => {
    const { image, batchId } = await prepared(205);
    const failures: string[] = [];
    let folds = 0;
    for (let cutAt = 1; cutAt < 400; cutAt++) {
      for (const seed of [1, 2, 3]) {
        const fs = new CrashFileSystem({ image, scheduling: createSeededRandom(seed * 1000 + cutAt) });
        fs.cutAfterOperations(cutAt, createSeededRandom(seed + cutAt));
        let snapshots = 0;
        fs.onOperation = (op) => {
          if (op.kind === 'rename' && op.path.includes('snapshot.json')) snapshots += 1;
        };
        const acked: string[] = [];
        let finalAcked = false;
        try {
          const store = await BatchStore.open(DATA, { fs });
          for (let t = 0; t < Number(process.env.DELAY ?? 0); t++) await Promise.resolve();
          const work = [
            store.record(batchId, [{ type: 'batch_renamed', name: 'one' }]).then(() => acked.push('one')),
            store
              .record(batchId, [
                { type: 'status_read', documentId: 'doc-2', status: trackedStatus(999, true) },
              ])
              .then(() => {
                finalAcked = true;
              }),
            store.record(batchId, [{ type: 'batch_renamed', name: 'two' }]).then(() => acked.push('two')),
          ];
          await Promise.allSettled(work);
          await store
            .record(batchId, [{ type: 'batch_renamed', name: 'three' }])
            .then(() => acked.push('three'));
          await store.close();
        } catch {
          // the cut
        }
        const after = fs.cutImage ?? fs.imageAfterPowerCut(createSeededRandom(cutAt));
        if (!fs.cutImage && seed === 1) {
          if (cutAt > 1) folds = cutAt;
          // The uncut run did fold: the cuts below land inside real folds.
          expect(snapshots).toBeGreaterThan(0);
          break;
        }
        const reopened = await BatchStore.open(DATA, {
          fs: new CrashFileSystem({ image: after }),
          readOnly: true,
        });
        const state = reopened.get(batchId);
        const label = `cut at ${cutAt} seed ${seed}`;
        if (reopened.loadReport.damaged.length > 0)
          failures.push(`${label}: damaged ${JSON.stringify(reopened.loadReport.damaged)}`);
        if (!state) {
          failures.push(`${label}: batch missing`);
          continue;
        }
        const last = acked.at(-1);
        if (
          last &&
          state.name !== last &&
          !(
            acked.length < 3 &&
            ['one', 'two', 'three'].indexOf(state.name) >= ['one', 'two', 'three'].indexOf(last)
          )
        )
          failures.push(`${label}: name ${state.name}, acknowledged ${acked.join(',')}`);
        if (finalAcked && !state.documents[1]?.tracking?.final) failures.push(`${label}: final status lost`);
        const readsKept = state.documents[1]?.tracking?.openedAt;
        if (!readsKept) failures.push(`${label}: status reads lost`);
      }
      if (folds) break;
    }
    expect(folds).toBeGreaterThan(0);
    expect(failures).toEqual([]);
  }, 240_000);
});
