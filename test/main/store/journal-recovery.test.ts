import { describe, expect, it } from 'vitest';
import { BatchStore } from '../../../main/store/batch-store';
import { JournalWriter, loadJournal, type JournalEntry } from '../../../main/store/journal';
import { CrashFileSystem } from '../../support/crash-fs';
import { createSeededRandom } from '../../../simulator/seeded-random';

type CounterEvent = { add: number };
const FOLDER = '/data/journal';

async function openWriter(fs: CrashFileSystem): Promise<JournalWriter<number, CounterEvent>> {
  return JournalWriter.open<number, CounterEvent>(FOLDER, undefined, { fs });
}

/** The entries a machine restarted after a power cut loads, for a few different cuts. */
async function loadedAfterPowerCuts(fs: CrashFileSystem, seeds: readonly number[]): Promise<number[][]> {
  const results: number[][] = [];
  for (const seed of seeds) {
    const image = fs.imageAfterPowerCut(createSeededRandom(seed));
    const loaded = await loadJournal<number, CounterEvent>(FOLDER, new CrashFileSystem({ image }));
    if (!loaded.ok) throw new Error(loaded.error.problem);
    results.push(loaded.value.entries.map((entry) => entry.event.add));
  }
  return results;
}

function adds(entries: readonly JournalEntry<CounterEvent>[]): number[] {
  return entries.map((entry) => entry.event.add);
}

describe('a journal on a full disk', () => {
  it('rejects the append that did not fit, leaves nothing partial, and goes on once space is freed', async () => {
    const fs = new CrashFileSystem();
    const writer = await openWriter(fs);
    await writer.append([{ add: 1 }]);
    await writer.append([{ add: 2 }]);
    // Room for half a line: the write is short, then ENOSPC.
    fs.setCapacity(fs.usedBytes + 30);
    await expect(writer.append([{ add: 3 }])).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(writer.lastSeq).toBe(2);

    // A process started now finds the half line and sets it aside: it was never acknowledged.
    const meanwhile = await loadJournal<number, CounterEvent>(FOLDER, fs);
    if (!meanwhile.ok) throw new Error(meanwhile.error.problem);
    expect(adds(meanwhile.value.entries)).toEqual([1, 2]);
    expect(meanwhile.value.recovered).toEqual([expect.objectContaining({ tornTail: true })]);

    // Still full: the next append repairs the file (truncating frees the half line), then fails.
    await expect(writer.append([{ add: 4 }, { add: 5 }])).rejects.toMatchObject({ code: 'ENOSPC' });
    fs.setCapacity(undefined);
    const [entry] = await writer.append([{ add: 6 }]);
    expect(entry?.seq).toBe(3);
    await writer.append([{ add: 7 }]);
    await writer.close();

    const loaded = await loadJournal<number, CounterEvent>(FOLDER, fs);
    if (!loaded.ok) throw new Error(loaded.error.problem);
    expect(loaded.value.entries.map((item) => [item.seq, item.event.add])).toEqual([
      [1, 1],
      [2, 2],
      [3, 6],
      [4, 7],
    ]);
    expect(loaded.value.recovered).toEqual([]);
    expect(new Set((await loadedAfterPowerCuts(fs, [1, 2, 3, 4, 5])).map(String))).toEqual(
      new Set(['1,2,6,7']),
    );
  });

  it('rejects every append queued behind a failed write, and reuses none of their numbers', async () => {
    const fs = new CrashFileSystem();
    const writer = await openWriter(fs);
    await writer.append([{ add: 1 }]);
    fs.failWith('ENOSPC', { afterBytes: 10 });
    const queued = [writer.append([{ add: 2 }]), writer.append([{ add: 3 }]), writer.append([{ add: 4 }])];
    const settled = await Promise.allSettled(queued);
    expect(settled.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    fs.clearFailure();
    const [entry] = await writer.append([{ add: 5 }]);
    expect(entry?.seq).toBe(2);
    expect(writer.entriesSinceSnapshot).toBe(2);
    await writer.close();
    expect(await loadedAfterPowerCuts(fs, [11, 12, 13])).toEqual([
      [1, 5],
      [1, 5],
      [1, 5],
    ]);
  });

  it('drops a whole line whose fsync failed before the next append', async () => {
    const fs = new CrashFileSystem();
    const writer = await openWriter(fs);
    await writer.append([{ add: 1 }]);
    fs.failWith('EIO', { operations: ['datasync'] });
    await expect(writer.append([{ add: 2 }])).rejects.toMatchObject({ code: 'EIO' });
    fs.clearFailure();
    await writer.append([{ add: 3 }]);
    const loaded = await loadJournal<number, CounterEvent>(FOLDER, fs);
    if (!loaded.ok) throw new Error(loaded.error.problem);
    expect(loaded.value.entries.map((item) => [item.seq, item.event.add])).toEqual([
      [1, 1],
      [2, 3],
    ]);
    await writer.close();
  });

  it('rejects with the repair’s own error while the file cannot be repaired, and recovers later', async () => {
    const fs = new CrashFileSystem();
    const writer = await openWriter(fs);
    await writer.append([{ add: 1 }]);
    fs.failWith('EIO', { operations: ['write', 'datasync', 'sync', 'truncate'] });
    await expect(writer.append([{ add: 2 }])).rejects.toMatchObject({ code: 'EIO', syscall: 'write' });
    await expect(writer.append([{ add: 3 }])).rejects.toMatchObject({ code: 'EIO', syscall: 'truncate' });
    fs.clearFailure();
    const [entry] = await writer.append([{ add: 4 }]);
    expect(entry?.seq).toBe(2);
    await writer.close();
    expect(await loadedAfterPowerCuts(fs, [21, 22])).toEqual([
      [1, 4],
      [1, 4],
    ]);
  });

  it('makes its repair durable: a rejected line never comes back at a power cut once the next append ran', async () => {
    for (let seed = 1; seed <= 40; seed += 1) {
      const fs = new CrashFileSystem();
      const writer = await openWriter(fs);
      await writer.append([{ add: 1 }]);
      // The whole line reaches the page cache, then its fsync fails.
      fs.failWith('EIO', { operations: ['datasync'] });
      await expect(writer.append([{ add: 2 }])).rejects.toMatchObject({ code: 'EIO' });
      // The next append repairs the file, then cannot write: nothing new covers the repair.
      fs.failWith('ENOSPC');
      await expect(writer.append([{ add: 3 }])).rejects.toMatchObject({ code: 'ENOSPC' });
      const image = fs.powerCut(createSeededRandom(seed));
      const loaded = await loadJournal<number, CounterEvent>(FOLDER, new CrashFileSystem({ image }));
      if (!loaded.ok) throw new Error(loaded.error.problem);
      expect(adds(loaded.value.entries), `seed ${seed}`).toEqual([1]);
    }
  });

  it('cuts off what a failed append left when it closes', async () => {
    const fs = new CrashFileSystem();
    const writer = await openWriter(fs);
    await writer.append([{ add: 1 }]);
    fs.failWith('EIO', { operations: ['datasync'] });
    await expect(writer.append([{ add: 2 }])).rejects.toMatchObject({ code: 'EIO' });
    fs.clearFailure();
    await writer.close();
    const loaded = await loadJournal<number, CounterEvent>(FOLDER, fs);
    if (!loaded.ok) throw new Error(loaded.error.problem);
    expect(adds(loaded.value.entries)).toEqual([1]);
  });
});

describe('a batch store on a full disk', () => {
  it('refuses a record while the disk is full, keeps its state, and records again once space is freed', async () => {
    const fs = new CrashFileSystem();
    const store = await BatchStore.open('/data', { fs });
    const heard: string[] = [];
    store.subscribe((state) => heard.push(state.name));
    const batch = await store.create('Before', { defaultRecipients: [] });
    fs.setCapacity(fs.usedBytes + 20);
    await expect(store.record(batch.id, [{ type: 'batch_renamed', name: 'Lost' }])).rejects.toMatchObject({
      code: 'ENOSPC',
    });
    await expect(
      store.record(batch.id, [{ type: 'batch_renamed', name: 'Also lost' }]),
    ).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(store.get(batch.id)?.name).toBe('Before');
    fs.setCapacity(undefined);
    expect((await store.record(batch.id, [{ type: 'batch_renamed', name: 'After' }])).name).toBe('After');
    expect(heard).toEqual(['Before', 'After']);
    await store.close();

    const image = fs.powerCut(createSeededRandom(5));
    const reopened = await BatchStore.open('/data', { fs: new CrashFileSystem({ image }) });
    expect(reopened.get(batch.id)?.name).toBe('After');
    expect(reopened.loadReport).toEqual({ damaged: [], recovered: [] });
    await reopened.close();
  });

  it('keeps a record whose compaction failed: it is stored, and compacting is tried again later', async () => {
    const fs = new CrashFileSystem();
    const store = await BatchStore.open('/data', { fs, compactAfterEntries: 3 });
    const batch = await store.create('Batch', { defaultRecipients: [] });
    // Snapshots are written with writeFile, journal lines with write: only snapshots fail.
    fs.failWith('ENOSPC', { operations: ['writeFile'] });
    for (const name of ['One', 'Two', 'Three'])
      await store.record(batch.id, [{ type: 'batch_renamed', name }]);
    expect(store.get(batch.id)?.name).toBe('Three');
    fs.clearFailure();
    await store.record(batch.id, [{ type: 'batch_renamed', name: 'Four' }]);
    const snapshot = await fs.readFile(`/data/batches/${batch.id}/snapshot.json`, 'utf8');
    expect(snapshot).toContain('"name":"Four"');
    await store.close();
  });
});
