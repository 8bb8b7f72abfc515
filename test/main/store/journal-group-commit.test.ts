import { describe, expect, it } from 'vitest';
import { BatchStore } from '../../../main/store/batch-store';
import { JournalWriter, loadJournal } from '../../../main/store/journal';
import { CrashFileSystem, type DiskImage } from '../../support/crash-fs';
import { createSeededRandom } from '../../../simulator/seeded-random';

/**
 * Group commit (README "Sending exactly once"): the journal's records of every document in flight
 * share one fdatasync; a record that arrives while a sync runs joins the next one; each record is
 * acknowledged only once a sync that covered its bytes finished; a failed sync rejects every record
 * that shared it. Syncs are counted, and held open, through the crash-test disk, whose sync makes
 * durable only what was written before it was called.
 */

type CounterEvent = { add: number };
const FOLDER = '/data/journal';
/** Power cuts tried at each instant that matters: each seed keeps, loses or tears unsynced bytes its own way. */
const CUT_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

/** What every power cut at this very instant would leave (taken at once, read later). */
function cutsNow(fs: CrashFileSystem): DiskImage[] {
  return CUT_SEEDS.map((seed) => fs.imageAfterPowerCut(createSeededRandom(seed)));
}

async function addsAfterCut(image: DiskImage): Promise<number[]> {
  const loaded = await loadJournal<number, CounterEvent>(FOLDER, new CrashFileSystem({ image }));
  if (!loaded.ok) throw new Error(`${loaded.error.problem} (line ${loaded.error.line})`);
  return loaded.value.entries.map((entry) => entry.event.add);
}

/**
 * Appends `add` and, the moment the append is acknowledged, takes what a power cut then would
 * leave; answers once it is acknowledged, with those disks.
 */
function appendWatched(
  fs: CrashFileSystem,
  writer: JournalWriter<number, CounterEvent>,
  add: number,
  acknowledged: number[],
): Promise<{ readonly add: number; readonly images: DiskImage[] }> {
  return writer.append([{ add }]).then(() => {
    acknowledged.push(add);
    return { add, images: cutsNow(fs) };
  });
}

/** Every acknowledged append survives every cut taken when it was acknowledged. */
async function expectDurableWhenAcknowledged(
  watched: readonly { readonly add: number; readonly images: DiskImage[] }[],
): Promise<void> {
  for (const { add, images } of watched) {
    for (const [index, image] of images.entries()) {
      expect(await addsAfterCut(image), `${add}, cut seed ${CUT_SEEDS[index]}`).toContain(add);
    }
  }
}

describe('group commit in the journal', () => {
  it('a record that arrives while a sync runs joins the next sync, and is acknowledged only after it', async () => {
    const fs = new CrashFileSystem();
    const writer = await JournalWriter.open<number, CounterEvent>(FOLDER, undefined, { fs });
    await writer.append([{ add: 1 }]);
    const syncsBefore = fs.syncCount;
    const acknowledged: number[] = [];

    const first = fs.holdSyncs();
    const firstRecord = appendWatched(fs, writer, 2, acknowledged);
    await first.called(1);
    // Records of three other documents arrive while that sync runs; the next sync is held too.
    const second = fs.holdSyncs();
    const arrivedMeanwhile = [3, 4, 5].map((add) => appendWatched(fs, writer, add, acknowledged));
    first.release();
    await firstRecord;
    expect(acknowledged).toEqual([2]);
    await second.called(1);
    expect(acknowledged).toEqual([2]);
    second.release();
    const watched = [await firstRecord, ...(await Promise.all(arrivedMeanwhile))];

    expect(acknowledged).toEqual([2, 3, 4, 5]);
    expect(fs.syncCount - syncsBefore).toBe(2);
    await expectDurableWhenAcknowledged(watched);
    await writer.close();
  });

  it('a failed sync rejects every record that shared it, and no later sync makes one of them durable', async () => {
    const fs = new CrashFileSystem();
    const writer = await JournalWriter.open<number, CounterEvent>(FOLDER, undefined, { fs });
    await writer.append([{ add: 1 }]);
    // The bytes reach the page cache; their one shared fdatasync fails.
    fs.failWith('EIO', { operations: ['datasync'] });
    const shared = await Promise.allSettled([2, 3, 4].map((add) => writer.append([{ add }])));
    expect(shared).toEqual([2, 3, 4].map(() => expect.objectContaining({ status: 'rejected' })));
    expect(
      shared.map((result) => result.status === 'rejected' && (result.reason as { code?: string }).code),
    ).toEqual(['EIO', 'EIO', 'EIO']);

    fs.clearFailure();
    const [entry] = await writer.append([{ add: 5 }]);
    expect(entry?.seq).toBe(2);
    // The later sync found the rejected bytes still in the page cache: they must not come back.
    for (const image of cutsNow(fs)) expect(await addsAfterCut(image)).toEqual([1, 5]);
    await writer.close();
    for (const image of cutsNow(fs)) expect(await addsAfterCut(image)).toEqual([1, 5]);
  });
});

describe('group commit in the batch store', () => {
  it('records of documents in flight made while one event is handled share one sync, and each is durable when it resolves', async () => {
    const fs = new CrashFileSystem();
    const store = await BatchStore.open('/data', { fs });
    const batch = await store.create('Monday contracts', { defaultRecipients: [] });
    const syncsBefore = fs.syncCount;
    const records: Promise<{ readonly name: string; readonly images: DiskImage[] }>[] = [];
    for (let index = 1; index <= 8; index += 1) {
      const name = `Monday contracts ${index}`;
      records.push(
        store.record(batch.id, [{ type: 'batch_renamed', name }]).then(() => ({ name, images: cutsNow(fs) })),
      );
      // As the send engine makes them: one document's answer, then a few promise hops later
      // (its call slot granted) another document's marker.
      await Promise.resolve();
      await Promise.resolve();
    }
    const resolved = await Promise.all(records);

    expect(fs.syncCount - syncsBefore).toBeLessThan(records.length);
    expect(fs.syncCount - syncsBefore).toBe(1);
    for (const { name, images } of resolved) {
      for (const image of images) {
        const reopened = await BatchStore.open('/data', {
          fs: new CrashFileSystem({ image }),
          readOnly: true,
        });
        const after = reopened.get(batch.id)?.name ?? '';
        // Records are durable in order: a cut keeps this one and every one before it.
        expect(Number(after.split(' ').at(-1)), `${name} after a cut`).toBeGreaterThanOrEqual(
          Number(name.split(' ').at(-1)),
        );
        await reopened.close();
      }
    }
    await store.close();
  });

  it('records of two batches never wait for each other’s sync', async () => {
    const fs = new CrashFileSystem();
    const store = await BatchStore.open('/data', { fs });
    const monday = await store.create('Monday', { defaultRecipients: [] });
    const tuesday = await store.create('Tuesday', { defaultRecipients: [] });
    const held = fs.holdSyncs();
    const mondayRecord = store.record(monday.id, [{ type: 'batch_renamed', name: 'Monday, sent' }]);
    await held.called(1);
    const tuesdayRecord = store.record(tuesday.id, [{ type: 'batch_renamed', name: 'Tuesday, sent' }]);
    // Tuesday's journal is synced while Monday's sync still runs: two files, two syncs at once.
    await held.called(2);
    held.release();
    expect((await mondayRecord).name).toBe('Monday, sent');
    expect((await tuesdayRecord).name).toBe('Tuesday, sent');
    await store.close();
  });
});
