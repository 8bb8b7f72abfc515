import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BatchEvent } from '../../../main/domain/batch-events';
import type { BatchState } from '../../../main/domain/batch-state';
import { BatchStore } from '../../../main/store/batch-store';
import { writeFileAtomic } from '../../../main/store/durable-fs';
import { JournalWriter, loadJournal } from '../../../main/store/journal';
import { CrashFileSystem } from '../../support/crash-fs';
import { draft, preparedBatch, sent, signed } from './fold-fixtures';

/**
 * Batches at rest (every document signed, ended, gone or failed, and bound to a connection) are
 * kept as their outlines and contract digests, taken at a start from their rest file: the store
 * answers for them without reading their snapshots, and reads one only when it is opened.
 */

const DATA = '/home/user/data';
const SERVICE = { baseUrl: 'https://signing.example.com', clientId: 'desk' };

/** A batch bound to SERVICE whose first document is signed and second gone: at rest. */
async function finishedBatch(store: BatchStore, name: string): Promise<string> {
  const batch = await store.create(name, { defaultRecipients: [] });
  const events: BatchEvent[] = [
    { type: 'connection_bound', ...SERVICE },
    { type: 'document_added', document: draft(1) },
    { type: 'document_added', document: draft(2) },
    { type: 'send_requested', documentIds: ['doc-1', 'doc-2'] },
    ...sent('doc-1'),
    ...sent('doc-2'),
  ];
  await store.record(batch.id, events);
  await store.record(batch.id, [{ type: 'status_read', documentId: 'doc-1', status: signed }]);
  await store.record(batch.id, [{ type: 'request_gone', documentId: 'doc-2' }]);
  return batch.id;
}

/** A store over `fs`'s disk as a new process opens it, with every file it reads listed in `reads`. */
async function reopened(
  fs: CrashFileSystem,
  options: { readonly keptAtRest?: number } = {},
): Promise<{ store: BatchStore; fs: CrashFileSystem; reads: string[] }> {
  const next = fs.crashProcess();
  const reads: string[] = [];
  next.onOperation = (operation) => {
    if (operation.kind === 'readFile') reads.push(operation.path);
  };
  return { store: await BatchStore.open(DATA, { fs: next, ...options }), fs: next, reads };
}

const snapshotOf = (batchId: string) => join(DATA, 'batches', batchId, 'snapshot.json');

describe('a batch at rest', () => {
  it('is listed, counted and asked about from what it keeps, and read only when opened', async () => {
    const fs = new CrashFileSystem();
    const first = await BatchStore.open(DATA, { fs });
    const finished = await finishedBatch(first, 'Last spring');
    const waiting = await preparedBatch(first, 1);
    await first.record(waiting, [{ type: 'connection_bound', ...SERVICE }]);
    const before = first.get(finished);
    await first.close();

    const { store, reads } = await reopened(fs);
    // The batch still sending or tracked is read whole; the one at rest is not read at all.
    expect(reads).not.toContain(snapshotOf(finished));
    expect(store.get(finished)).toBeUndefined();
    expect(store.loaded().map((batch) => batch.id)).toEqual([waiting]);
    expect(store.outlines().map((batch) => batch.name)).toEqual(['Last spring', 'Contracts']);
    expect(store.outline(finished)).toMatchObject({
      documentCount: 2,
      connection: SERVICE,
      counts: { completed: 1, gone: 1, waiting: 0, not_sent: 0, sending: 0 },
    });
    expect(store.outline(finished)?.completedAt).toEqual(
      Float64Array.of(Date.parse(signed.finalizedAt ?? '')),
    );
    // Who holds which request: what keeps a contract from being sent twice, from the digests.
    expect(store.contracts(finished)).toEqual([
      expect.objectContaining({
        documentId: 'doc-1',
        reference: 'REF-1',
        requestId: 'r-doc-1',
        mayHold: true,
      }),
      expect.objectContaining({
        documentId: 'doc-2',
        reference: 'REF-2',
        requestId: 'r-doc-2',
        mayHold: true,
      }),
    ]);
    expect(reads).not.toContain(snapshotOf(finished));

    // Opened: read from its snapshot once, whole and as it was; opened again, not read again.
    expect(await store.open(finished)).toEqual(before);
    expect(reads.filter((path) => path === snapshotOf(finished))).toHaveLength(1);
    expect(store.get(finished)).toEqual(before);
    await store.open(finished);
    expect(reads.filter((path) => path === snapshotOf(finished))).toHaveLength(1);
    await store.close();
  });

  it('is read whole when its rest file no longer says what its snapshot and journal hold', async () => {
    const fs = new CrashFileSystem();
    const first = await BatchStore.open(DATA, { fs });
    const batchId = await finishedBatch(first, 'Before');
    await first.close();
    const folder = join(DATA, 'batches', batchId);
    const restFile = join(folder, 'rest.json');
    const oldRest = await fs.readFile(restFile);

    // Renamed since (the batch read back, the event recorded, folded again), then an older
    // rest file put back, as a backup restored over the folder would.
    const second = await reopened(fs);
    await second.store.record(batchId, [{ type: 'batch_renamed', name: 'After' }]);
    await second.store.close();
    await writeFileAtomic(restFile, oldRest, second.fs);
    const third = await reopened(second.fs);
    expect(third.store.outline(batchId)?.name).toBe('After');
    expect(third.reads).toContain(snapshotOf(batchId));
    await third.store.close();

    // An entry appended to its journal after its rest file was written (as an earlier version
    // that knows no rest file would): the snapshot is the same, the journal is not empty.
    const loaded = await loadJournal<BatchState, BatchEvent>(folder, third.fs);
    if (!loaded.ok) throw new Error(loaded.error.problem);
    const writer = await JournalWriter.open<BatchState, BatchEvent>(folder, loaded.value, { fs: third.fs });
    await writer.append([{ type: 'batch_renamed', name: 'Later' }]);
    await writer.close();
    const fourth = await reopened(third.fs);
    expect(fourth.store.outline(batchId)?.name).toBe('Later');
    await fourth.store.close();
  });

  it('stays in memory among the last ones opened, and goes back to rest after', async () => {
    const fs = new CrashFileSystem();
    const first = await BatchStore.open(DATA, { fs });
    const january = await finishedBatch(first, 'January');
    const february = await finishedBatch(first, 'February');
    await first.close();

    const { store, reads } = await reopened(fs, { keptAtRest: 1 });
    await store.open(january);
    expect(store.get(january)?.name).toBe('January');
    await store.open(february);
    await store.close(); // Every fold and rest under way has settled.
    expect(store.get(february)?.name).toBe('February');
    expect(store.get(january)).toBeUndefined();
    expect(store.outline(january)?.name).toBe('January');
    expect(reads.filter((path) => path === snapshotOf(january))).toHaveLength(1);
  });

  it('stays in memory while retained (a send run holds its batch), and rests once released', async () => {
    const fs = new CrashFileSystem();
    const first = await BatchStore.open(DATA, { fs });
    const batchId = await finishedBatch(first, 'Sent again');
    await first.close();

    // No batch at rest is kept after its use: only a holder keeps it in memory.
    const { store } = await reopened(fs, { keptAtRest: 0 });
    const release = store.retain(batchId);
    await store.open(batchId);
    await store.record(batchId, []); // Its turn has come and gone: anything pending settled.
    expect(store.get(batchId)?.name).toBe('Sent again');
    release();
    expect(store.get(batchId)).toBeUndefined();
    await store.close();
  });

  it('is remembered by its contracts when deleted, without being read', async () => {
    const fs = new CrashFileSystem();
    const first = await BatchStore.open(DATA, { fs });
    const batchId = await finishedBatch(first, 'Old batch');
    await first.close();

    const { store, reads } = await reopened(fs);
    await store.delete(batchId);
    expect(reads).not.toContain(snapshotOf(batchId));
    expect(
      store.deletedContracts().map(({ reference, requestId, batchName, connection }) => ({
        reference,
        requestId,
        batchName,
        connection,
      })),
    ).toEqual([
      { reference: 'REF-1', requestId: 'r-doc-1', batchName: 'Old batch', connection: SERVICE },
      { reference: 'REF-2', requestId: 'r-doc-2', batchName: 'Old batch', connection: SERVICE },
    ]);
    await store.close();
  });
});

describe('a batch at rest whose fold was cut short', () => {
  it('is taken from its rest file again from the second start on, when the fold was cut before it emptied the journal', async () => {
    // Where the fold of a batch just finished renames its snapshot into place (counted from the
    // store's opening): the process is then killed right after the rename (in the page cache),
    // before the journal is emptied.
    const probe = new CrashFileSystem();
    const operations: { kind: string; path: string }[] = [];
    const first = await BatchStore.open(DATA, { fs: probe });
    probe.onOperation = (operation) => operations.push(operation);
    await finishedBatch(first, 'Cut short');
    await first.close();
    const renamed = operations.findLastIndex(
      (operation) => operation.kind === 'rename' && operation.path.includes('snapshot.json'),
    );
    expect(operations[renamed + 1]?.kind).toBe('syncDirectory');

    const fs = new CrashFileSystem();
    const store = await BatchStore.open(DATA, { fs });
    fs.crashAfterOperations(renamed + 2); // 0-based index + 1 is the rename; the sync after it is cut
    await finishedBatch(store, 'Cut short').catch(() => undefined);
    await store.close().catch(() => undefined);

    // The next start finds the new snapshot and the journal it covers: it reads the batch whole.
    const second = await reopened(new CrashFileSystem({}, fs.disk));
    const [batch] = second.store.outlines();
    if (!batch) throw new Error('the batch is gone');
    expect(second.reads).toContain(snapshotOf(batch.id));
    await second.store.close();
    // From then on its rest file says all of it: it is not read again.
    const third = await reopened(second.fs);
    expect(third.store.outline(batch.id)?.counts).toMatchObject({ completed: 1, gone: 1 });
    expect(third.reads).not.toContain(snapshotOf(batch.id));
    await third.store.close();
  });
});

describe('a batch at rest changed while its rest file is written', () => {
  it('is given its rest file again once folded anew, so the next start does not read it whole', async () => {
    const fs = new CrashFileSystem();
    const store = await BatchStore.open(DATA, { fs });
    const batchId = await finishedBatch(store, 'Before');
    await store.record(batchId, []);
    // The rename is folded, then the rest file written: its sync is held while a second rename
    // is recorded, so the second lands while the first one's rest file is on its way.
    let held: ReturnType<CrashFileSystem['holdSyncs']> | undefined;
    fs.onOperation = (operation) => {
      if (!held && operation.kind === 'open' && operation.path.includes('rest.json')) held = fs.holdSyncs();
    };
    const first = store.record(batchId, [{ type: 'batch_renamed', name: 'First' }]);
    await first;
    while (!held) await new Promise((resolve) => setImmediate(resolve));
    await held.called(1);
    fs.onOperation = undefined;
    const second = store.record(batchId, [{ type: 'batch_renamed', name: 'Second' }]);
    held.release();
    await second;
    await store.close();

    const { store: next, reads } = await reopened(fs);
    expect(next.outline(batchId)?.name).toBe('Second');
    expect(reads).not.toContain(snapshotOf(batchId));
    await next.close();
  });
});
