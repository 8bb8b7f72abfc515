import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeLine, JournalWriter, loadJournal } from '../../../main/store/journal';
import { BatchStore } from '../../../main/store/batch-store';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

type CounterEvent = { add: number };
let files: TempFolder;

beforeEach(() => {
  files = makeTempFolder('desk-journal-');
});
afterEach(() => files.remove());

async function writeEvents(folder: string, count: number): Promise<void> {
  const writer = await JournalWriter.open<number, CounterEvent>(folder, undefined);
  await Promise.all(Array.from({ length: count }, (_, index) => writer.append([{ add: index + 1 }])));
  await writer.close();
}

function total(entries: readonly { event: CounterEvent }[]): number {
  return entries.reduce((sum, entry) => sum + entry.event.add, 0);
}

describe('journal', () => {
  it('stores every acknowledged event, in order, across a reopen', async () => {
    const folder = files.file('j');
    await writeEvents(folder, 50);
    const loaded = await loadJournal<number, CounterEvent>(folder);
    if (!loaded.ok) throw new Error(loaded.error.problem);
    expect(loaded.value.entries.map((entry) => entry.seq)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    expect(total(loaded.value.entries)).toBe((50 * 51) / 2);
    expect(loaded.value.recovered).toEqual([]);
  });

  it('sets aside a half-written last line left by a crash, reports it, and appends cleanly after it', async () => {
    const folder = files.file('j');
    await writeEvents(folder, 3);
    appendFileSync(join(folder, 'journal.log'), '1a2b3c4d\t{"seq":4,"at":"2026-11-22T');
    const loaded = await loadJournal<number, CounterEvent>(folder);
    if (!loaded.ok) throw new Error(loaded.error.problem);
    expect(loaded.value.entries).toHaveLength(3);
    expect(loaded.value.recovered).toEqual([
      expect.objectContaining({
        line: 4,
        tornTail: true,
        problem: 'a half-written last line (the app stopped while writing it)',
      }),
    ]);
    const writer = await JournalWriter.open(folder, loaded.value);
    await writer.append([{ add: 100 }]);
    await writer.close();
    const again = await loadJournal<number, CounterEvent>(folder);
    if (!again.ok) throw new Error(again.error.problem);
    expect(again.value.entries.map((entry) => entry.seq)).toEqual([1, 2, 3, 4]);
    expect(again.value.recovered).toEqual([]);
  });

  it('sets aside a last line that lacks only its newline: it was never acknowledged, and a line after it would be damaged', async () => {
    const folder = files.file('j');
    await writeEvents(folder, 2);
    const unterminated = encodeLine({ seq: 3, at: '2026-11-22T00:00:00Z', event: { add: 3 } }).slice(0, -1);
    appendFileSync(join(folder, 'journal.log'), unterminated);
    const loaded = await loadJournal<number, CounterEvent>(folder);
    if (!loaded.ok) throw new Error(loaded.error.problem);
    expect(loaded.value.entries.map((entry) => entry.seq)).toEqual([1, 2]);
    expect(loaded.value.recovered).toEqual([expect.objectContaining({ line: 3, tornTail: true })]);
    const writer = await JournalWriter.open(folder, loaded.value);
    await writer.append([{ add: 30 }]);
    await writer.close();
    const again = await loadJournal<number, CounterEvent>(folder);
    if (!again.ok) throw new Error(again.error.problem);
    expect(again.value.entries.map((entry) => entry.event.add)).toEqual([1, 2, 30]);
  });

  it('refuses a journal damaged in the middle, naming the file and line', async () => {
    const folder = files.file('j');
    await writeEvents(folder, 5);
    const path = join(folder, 'journal.log');
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('"add":3', '"add":9');
    writeFileSync(path, lines.join('\n'));
    const loaded = await loadJournal<number, CounterEvent>(folder);
    expect(loaded).toEqual({
      ok: false,
      error: { file: path, line: 3, problem: 'the line fails its checksum', tornTail: false },
    });
  });

  it('refuses a journal with missing entries', async () => {
    const folder = files.file('j');
    await writeEvents(folder, 4);
    const path = join(folder, 'journal.log');
    const lines = readFileSync(path, 'utf8').split('\n');
    lines.splice(1, 1);
    writeFileSync(path, lines.join('\n'));
    const loaded = await loadJournal<number, CounterEvent>(folder);
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) expect(loaded.error.problem).toBe('entry 3 follows entry 1: entries are missing');
  });

  it('compacts into a snapshot, and skips entries the snapshot covers after a crash before truncation', async () => {
    const folder = files.file('j');
    const writer = await JournalWriter.open<number, CounterEvent>(folder, undefined);
    await writer.append([{ add: 1 }, { add: 2 }, { add: 3 }]);
    const beforeCompaction = readFileSync(join(folder, 'journal.log'), 'utf8');
    expect(await writer.compact(6, 3)).toBe(true);
    await writer.append([{ add: 4 }]);
    await writer.close();
    const loaded = await loadJournal<number, CounterEvent>(folder);
    if (!loaded.ok) throw new Error(loaded.error.problem);
    expect(loaded.value.snapshot).toEqual({ seq: 3, state: 6 });
    expect(loaded.value.entries.map((entry) => entry.seq)).toEqual([4]);

    // As if the app died after writing the snapshot but before emptying the journal.
    writeFileSync(
      join(folder, 'journal.log'),
      beforeCompaction + encodeLine({ seq: 4, at: '2026-11-22T00:00:00Z', event: { add: 4 } }),
    );
    const replayed = await loadJournal<number, CounterEvent>(folder);
    if (!replayed.ok) throw new Error(replayed.error.problem);
    expect(replayed.value.entries.map((entry) => entry.seq)).toEqual([4]);
  });

  it('does not compact while appends are in flight, and loses no entry', async () => {
    const folder = files.file('j');
    const writer = await JournalWriter.open<number, CounterEvent>(folder, undefined);
    await writer.append([{ add: 1 }]);
    const inFlight = writer.append([{ add: 2 }]);
    expect(await writer.compact(1, 1)).toBe(false);
    await inFlight;
    expect(await writer.compact(3, 2)).toBe(true);
    await writer.close();
    const loaded = await loadJournal<number, CounterEvent>(folder);
    if (!loaded.ok) throw new Error(loaded.error.problem);
    expect(loaded.value.snapshot).toEqual({ seq: 2, state: 3 });
    expect(loaded.value.entries).toEqual([]);
  });

  it('refuses a damaged snapshot', async () => {
    const folder = files.file('j');
    const writer = await JournalWriter.open<number, CounterEvent>(folder, undefined);
    await writer.append([{ add: 1 }]);
    await writer.compact(1, 1);
    await writer.close();
    const path = join(folder, 'snapshot.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace('"event":1', '"event":7'));
    const loaded = await loadJournal<number, CounterEvent>(folder);
    expect(loaded).toMatchObject({
      ok: false,
      error: { file: path, problem: 'the snapshot fails its checksum' },
    });
  });
});

describe('batch store', () => {
  it('reports a damaged batch and leaves its files untouched, while loading the others', async () => {
    const dataDir = files.file('data');
    const store = await BatchStore.open(dataDir);
    const good = await store.create('Good batch', { defaultRecipients: [] });
    const bad = await store.create('Bad batch', { defaultRecipients: [] });
    await store.record(bad.id, [{ type: 'batch_renamed', name: 'Renamed' }]);
    await store.close();

    const path = join(dataDir, 'batches', bad.id, 'journal.log');
    const damaged = readFileSync(path, 'utf8').replace('Bad batch', 'Bad batcX');
    writeFileSync(path, damaged);

    const reopened = await BatchStore.open(dataDir);
    expect(reopened.outlines().map((batch) => batch.id)).toEqual([good.id]);
    expect(reopened.loadReport.damaged).toEqual([
      {
        batchId: bad.id,
        damage: { file: path, line: 1, problem: 'the line fails its checksum', tornTail: false },
      },
    ]);
    await reopened.close();
    expect(readFileSync(path, 'utf8')).toBe(damaged);
  });

  it('compacts while records arrive concurrently, and a reopen finds every change', async () => {
    const dataDir = files.file('data');
    const store = await BatchStore.open(dataDir, { compactAfterEntries: 7 });
    const batch = await store.create('Busy batch', { defaultRecipients: [] });
    // Fifty renames recorded at once: appends share fsyncs while snapshots are taken between them.
    const names = Array.from({ length: 50 }, (_, index) => `Name ${index + 1}`);
    const states = await Promise.all(
      names.map((name) => store.record(batch.id, [{ type: 'batch_renamed', name }])),
    );
    expect(states.map((state) => state.name)).toEqual(names);
    expect(store.get(batch.id)?.name).toBe('Name 50');
    await store.close();

    const folder = join(dataDir, 'batches', batch.id);
    expect(readFileSync(join(folder, 'snapshot.json'), 'utf8')).toContain('"name":"Name');
    const reopened = await BatchStore.open(dataDir);
    expect(reopened.get(batch.id)?.name).toBe('Name 50');
    expect(reopened.loadReport).toEqual({ damaged: [], recovered: [] });
    await reopened.close();
  });

  it('reports a batch whose journal holds an event this version does not know', async () => {
    const dataDir = files.file('data');
    const store = await BatchStore.open(dataDir);
    const batch = await store.create('From a newer version', { defaultRecipients: [] });
    await store.close();
    const folder = join(dataDir, 'batches', batch.id);
    const loaded = await loadJournal(folder);
    if (!loaded.ok) throw new Error(loaded.error.problem);
    const writer = await JournalWriter.open(folder, loaded.value);
    await writer.append([{ type: 'something_new' }]);
    await writer.close();

    const reopened = await BatchStore.open(dataDir);
    expect(reopened.outlines()).toEqual([]);
    expect(reopened.loadReport.damaged).toEqual([
      {
        batchId: batch.id,
        damage: {
          file: join(folder, 'journal.log'),
          line: undefined,
          problem: 'entry 2 holds an event of unknown type "something_new"',
          tornTail: false,
        },
      },
    ]);
    await reopened.close();
  });

  it('keeps every change across a reopen, and a read-only store never writes', async () => {
    const dataDir = files.file('data');
    const store = await BatchStore.open(dataDir);
    const batch = await store.create('Monday contracts', { defaultRecipients: [], locale: 'fr-FR' });
    await store.record(batch.id, [{ type: 'batch_renamed', name: 'Monday contracts (HR)' }]);
    await store.close();
    const readOnly = await BatchStore.open(dataDir, { readOnly: true });
    expect(readOnly.get(batch.id)).toMatchObject({
      name: 'Monday contracts (HR)',
      defaults: { locale: 'fr-FR' },
    });
    await expect(readOnly.record(batch.id, [{ type: 'batch_renamed', name: 'x' }])).rejects.toThrow(
      'read-only',
    );
    await readOnly.close();
  });
});
