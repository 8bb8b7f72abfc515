import { describe, expect, it } from 'vitest';
import { BatchStore } from '../../../main/store/batch-store';
import { CrashFileSystem } from '../../support/crash-fs';
import { createSeededRandom } from '../../../simulator/seeded-random';

import { preparedBatch, signed } from './fold-fixtures';

const DATA = '/home/user/data';

async function setup(fs: CrashFileSystem) {
  const store = await BatchStore.open(DATA, { fs });
  return { store, id: await preparedBatch(store, 1) };
}

describe('a fold at rest racing delete() and close()', () => {
  it('delete: the batch never comes back, nothing damaged', async () => {
    const bad: string[] = [];
    for (let seed = 1; seed <= 300; seed++) {
      const fs = new CrashFileSystem({ scheduling: createSeededRandom(seed) });
      const { store, id } = await setup(fs);
      const recorded = store
        .record(id, [{ type: 'status_read', documentId: 'doc-1', status: signed }])
        .catch((e) => e);
      for (let i = 0; i < seed % 7; i++) await Promise.resolve();
      const deleted = store
        .delete(id)
        .catch((e: unknown) => bad.push(`seed ${seed}: delete rejected ${String(e)}`));
      await recorded;
      await deleted;
      await store.close();
      for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
      const again = await BatchStore.open(DATA, { fs: new CrashFileSystem({}, fs.disk) });
      if (again.get(id)) bad.push(`seed ${seed}: deleted batch came back`);
      if (again.loadReport.damaged.length)
        bad.push(`seed ${seed}: damaged ${JSON.stringify(again.loadReport.damaged)}`);
      await again.close();
    }
    expect(bad.slice(0, 5)).toEqual([]);
  });
  it('close: the final status is kept, nothing damaged, no write after close', async () => {
    const bad: string[] = [];
    let snapshotRenames = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const fs = new CrashFileSystem({ scheduling: createSeededRandom(seed) });
      const { store, id } = await setup(fs);
      let closed = false;
      fs.onOperation = (op) => {
        if (op.kind === 'rename' && op.path.includes('snapshot')) snapshotRenames += 1;
        if (closed && op.kind !== 'readFile')
          bad.push(`seed ${seed}: ${op.kind} ${op.path} after close resolved`);
      };
      const recorded = store.record(id, [{ type: 'status_read', documentId: 'doc-1', status: signed }]);
      for (let i = 0; i < seed % 7; i++) await Promise.resolve();
      await store.close().then(() => (closed = true));
      await recorded;
      for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
      fs.onOperation = undefined;
      const again = await BatchStore.open(DATA, { fs: new CrashFileSystem({}, fs.disk), readOnly: true });
      if (!again.get(id)?.documents[0]?.tracking?.final) bad.push(`seed ${seed}: final lost`);
      if (again.loadReport.damaged.length) bad.push(`seed ${seed}: damaged`);
    }
    expect(bad.slice(0, 5)).toEqual([]);
    // The races were real: the folds did write their snapshots.
    expect(snapshotRenames).toBeGreaterThan(0);
  });
});

describe('a fold of a finished batch racing the records that follow it', () => {
  it('never covers an entry that is stored but not applied yet: every acknowledged record survives', async () => {
    const fs = new CrashFileSystem();
    const store = await BatchStore.open(DATA, { fs });
    const id = await preparedBatch(store, 1);
    await store.record(id, [
      { type: 'connection_bound', baseUrl: 'https://signing.example.com', clientId: 'desk' },
    ]);
    // Signed: the batch is finished, so every record into it is followed by a fold.
    await store.record(id, [{ type: 'status_read', documentId: 'doc-1', status: signed }]);
    await store.record(id, []);
    // A listener records as it hears of the first rename (the desk does: announce, then act).
    let third: Promise<unknown> | undefined;
    store.subscribe((_state, events) => {
      if (events.some((event) => event.type === 'batch_renamed' && event.name === 'First'))
        third = store.record(id, [{ type: 'batch_renamed', name: 'Third' }]);
    });
    // The second record is stored while the first one's fsync runs, so it is written together
    // with the third: both are on disk before the fold queued after the first is applied.
    const held = fs.holdSyncs();
    const first = store.record(id, [{ type: 'batch_renamed', name: 'First' }]);
    await held.called(1);
    const second = store.record(id, [{ type: 'batch_renamed', name: 'Second' }]);
    held.release();
    await Promise.all([first, second]);
    await third;
    await store.close();
    expect(store.outline(id)?.name).toBe('Third');

    // What a restart finds: each of the three records was acknowledged, so the last name stands.
    const again = await BatchStore.open(DATA, { fs: fs.crashProcess(), readOnly: true });
    expect(again.get(id)?.name).toBe('Third');
  });
});
