import { describe, expect, it } from 'vitest';
import { BatchStore } from '../../../main/store/batch-store';
import { CrashFileSystem } from '../../support/crash-fs';
import { createSeededRandom } from '../../../simulator/seeded-random';

const DATA = '/data';
const DELETED = '.deleted';

async function storeWithTwoBatches(
  fs: CrashFileSystem,
): Promise<{ store: BatchStore; keep: string; drop: string }> {
  const store = await BatchStore.open(DATA, { fs, compactAfterEntries: 2 });
  const keep = (await store.create('Keep', { defaultRecipients: [] })).id;
  const drop = (await store.create('Drop', { defaultRecipients: [] })).id;
  // A snapshot and a journal: removed one by one, a crash could leave the older of the two.
  for (const name of ['Drop 1', 'Drop 2', 'Drop 3'])
    await store.record(drop, [{ type: 'batch_renamed', name }]);
  return { store, keep, drop };
}

describe('deleting a batch', () => {
  it('is durable once it resolves: no power cut brings the batch back', async () => {
    for (let seed = 1; seed <= 30; seed += 1) {
      const fs = new CrashFileSystem();
      const { store, keep, drop } = await storeWithTwoBatches(fs);
      await store.delete(drop);
      const reopened = await BatchStore.open(DATA, {
        fs: new CrashFileSystem({ image: fs.powerCut(createSeededRandom(seed)) }),
      });
      expect(reopened.outlines().map((batch) => batch.id)).toEqual([keep]);
      await reopened.close();
    }
  });

  it('leaves the batch whole or gone when the power is cut midway, and removes what is left', async () => {
    const outcomes = new Set<string>();
    for (let cutAt = 1; cutAt <= 12; cutAt += 1) {
      const fs = new CrashFileSystem();
      const { store, drop } = await storeWithTwoBatches(fs);
      fs.cutAfterOperations(cutAt, createSeededRandom(cutAt));
      await store.delete(drop).catch(() => undefined);
      const image = fs.cutImage ?? fs.powerCut(createSeededRandom(cutAt));
      const restarted = new CrashFileSystem({ image });
      const reopened = await BatchStore.open(DATA, { fs: restarted });
      const name = reopened.get(drop)?.name;
      expect([undefined, 'Drop 3']).toContain(name);
      outcomes.add(name ?? 'gone');
      expect((await restarted.readdir(`${DATA}/batches`)).map((entry) => entry.name)).not.toContain(
        `${drop}.deleted`,
      );
      await reopened.close();
    }
    expect(outcomes).toEqual(new Set(['Drop 3', 'gone']));
  });

  it('stays finished through a power cut once the next start finished it (the rename was not yet synced when the app died)', async () => {
    for (let seed = 1; seed <= 40; seed += 1) {
      const fs = new CrashFileSystem();
      const store = await BatchStore.open(DATA, { fs });
      const drop = (await store.create('Drop', { defaultRecipients: [] })).id;
      await store.close();
      // delete() renamed the folder, and the process was killed before the rename was synced.
      await fs.rename(`${DATA}/batches/${drop}`, `${DATA}/batches/${drop}${DELETED}`);
      const restarted = fs.crashProcess();
      const reopened = await BatchStore.open(DATA, { fs: restarted });
      expect(reopened.get(drop)).toBeUndefined();
      const machine = new CrashFileSystem({ image: restarted.powerCut(createSeededRandom(seed)) });
      // Neither the batch nor what is left of it (a folder without its journal) comes back.
      const folders = (await machine.readdir(`${DATA}/batches`)).map((entry) => entry.name);
      expect(
        folders.filter((name) => name === drop),
        `seed ${seed}`,
      ).toEqual([]);
      const afterCut = await BatchStore.open(DATA, { fs: machine });
      expect(afterCut.outlines(), `seed ${seed}`).toEqual([]);
      expect(afterCut.loadReport.damaged).toEqual([]);
      await afterCut.close();
    }
  });

  it('is finished by a read-write open, and left alone by a read-only one', async () => {
    const fs = new CrashFileSystem();
    const { store, drop } = await storeWithTwoBatches(fs);
    await store.close();
    await fs.rename(`${DATA}/batches/${drop}`, `${DATA}/batches/${drop}.deleted`);
    const readOnly = await BatchStore.open(DATA, { fs, readOnly: true });
    expect(readOnly.get(drop)).toBeUndefined();
    expect((await fs.readdir(`${DATA}/batches`)).map((entry) => entry.name)).toContain(`${drop}.deleted`);
    const writable = await BatchStore.open(DATA, { fs });
    expect((await fs.readdir(`${DATA}/batches`)).map((entry) => entry.name)).not.toContain(`${drop}.deleted`);
    await writable.close();
  });
});
