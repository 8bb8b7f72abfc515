import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchStore } from '../../../main/store/batch-store';
import { encodeLine, JournalWriter, loadJournal, type JournalLoad } from '../../../main/store/journal';
import { CrashFileSystem } from '../../support/crash-fs';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { createSeededRandom } from '../../../simulator/seeded-random';

/**
 * Torn writes (README "Sending exactly once"): at a power cut a disk may write the pages of an
 * unsynced append in any order, so the last record may keep its later bytes and lose earlier ones
 * (a page that never reached the disk reads as zeros beyond what was durable). Such a record was
 * never acknowledged: it is dropped whole and reported. An acknowledged record is never dropped.
 */

type CounterEvent = { add: number; note?: string };
const PAGE = 4096;
let files: TempFolder;

beforeEach(() => {
  files = makeTempFolder('desk-torn-');
});
afterEach(() => files.remove());

/** An event whose line takes about 3 KB, so a record of a few crosses pages. */
function big(add: number): CounterEvent {
  return { add, note: String(add).repeat(3_000).slice(0, 3_000) };
}

function journalPath(folder: string): string {
  return join(folder, 'journal.log');
}

/** Zeros in place of bytes `from` to `to` of the file: what a page that never reached the disk reads as. */
function lose(path: string, from: number, to: number): void {
  const bytes = readFileSync(path);
  bytes.fill(0, from, Math.min(to, bytes.length));
  writeFileSync(path, bytes);
}

function adds(loaded: JournalLoad<number, CounterEvent>): number[] {
  if (!loaded.ok) throw new Error(`${loaded.error.problem} (line ${loaded.error.line})`);
  return loaded.value.entries.map((entry) => entry.event.add);
}

/**
 * Appends `acknowledged` records, then `last` as one more record, and answers the journal's
 * length before that last record: from there on, the bytes a power cut before its fdatasync could tear.
 */
async function journalWithLastRecord(
  folder: string,
  acknowledged: readonly (readonly CounterEvent[])[],
  last: readonly CounterEvent[],
): Promise<number> {
  const writer = await JournalWriter.open<number, CounterEvent>(folder, undefined);
  for (const record of acknowledged) await writer.append(record);
  const durableLength = statSync(journalPath(folder)).size;
  await writer.append(last);
  await writer.close();
  return durableLength;
}

describe('a journal torn by a power cut in any order of pages', () => {
  it('drops the unacknowledged last record that kept its later pages but not its first, reports it, and loses nothing acknowledged', async () => {
    const folder = files.file('j');
    const durable = await journalWithLastRecord(
      folder,
      [[{ add: 1 }], [{ add: 2 }]],
      [big(3), big(4), big(5), big(6)],
    );
    // The record's first page never reached the disk; its second and third did.
    lose(journalPath(folder), durable, PAGE);
    const loaded = await loadJournal<number, CounterEvent>(folder);
    expect(adds(loaded)).toEqual([1, 2]);
    if (!loaded.ok) return;
    expect(loaded.value.recovered).toEqual([
      {
        file: journalPath(folder),
        line: 3,
        problem: 'a half-written last record (the app stopped while writing it)',
        tornTail: true,
      },
    ]);

    // The writer sets the torn record aside on disk too, and goes on after the acknowledged ones.
    const writer = await JournalWriter.open(folder, loaded.value);
    await writer.append([{ add: 30 }]);
    await writer.close();
    const again = await loadJournal<number, CounterEvent>(folder);
    expect(adds(again)).toEqual([1, 2, 30]);
    if (again.ok) expect(again.value.recovered).toEqual([]);
  });

  it('drops the last record whose middle page was lost, even when the page after it holds whole lines', async () => {
    const folder = files.file('j');
    const durable = await journalWithLastRecord(folder, [[{ add: 1 }]], [big(2), big(3), big(4), big(5)]);
    expect(durable).toBeLessThan(PAGE);
    lose(journalPath(folder), PAGE, 2 * PAGE);
    const loaded = await loadJournal<number, CounterEvent>(folder);
    expect(adds(loaded)).toEqual([1]);
    if (loaded.ok)
      expect(loaded.value.recovered).toEqual([expect.objectContaining({ line: 2, tornTail: true })]);
  });

  it('drops a record of several events whose write was cut after its first lines: all or nothing', async () => {
    const folder = files.file('j');
    const durable = await journalWithLastRecord(folder, [[{ add: 1 }]], [{ add: 2 }, { add: 3 }, { add: 4 }]);
    const path = journalPath(folder);
    // A prefix of the record reached the disk: its first two lines whole, the third without its newline.
    writeFileSync(path, readFileSync(path).subarray(0, statSync(path).size - 1));
    expect(readFileSync(path).length).toBeGreaterThan(durable);
    const loaded = await loadJournal<number, CounterEvent>(folder);
    expect(adds(loaded)).toEqual([1]);
    if (loaded.ok)
      expect(loaded.value.recovered).toEqual([expect.objectContaining({ line: 2, tornTail: true })]);
  });

  it('drops a record of several events whose last page was lost, and keeps the records before it', async () => {
    const folder = files.file('j');
    const durable = await journalWithLastRecord(
      folder,
      [[{ add: 1 }], [{ add: 2 }, { add: 3 }]],
      [big(4), big(5), { add: 6 }],
    );
    const end = statSync(journalPath(folder)).size;
    expect(end).toBeGreaterThan(PAGE);
    lose(journalPath(folder), Math.max(durable, PAGE), end);
    expect(adds(await loadJournal<number, CounterEvent>(folder))).toEqual([1, 2, 3]);
  });
});

describe('a journal whose acknowledged records are damaged', () => {
  it('refuses an acknowledged record lost to zeros when a record written after it was durable follows, with the file and line', async () => {
    const folder = files.file('j');
    const writer = await JournalWriter.open<number, CounterEvent>(folder, undefined);
    await writer.append([{ add: 1 }]);
    const second = statSync(journalPath(folder)).size;
    await writer.append([big(2)]);
    await writer.append([{ add: 3 }]);
    await writer.close();
    // Zeros, as a torn page would leave, but inside a record acknowledged before the next was written.
    lose(journalPath(folder), second + 100, second + 200);
    expect(await loadJournal<number, CounterEvent>(folder)).toEqual({
      ok: false,
      error: { file: journalPath(folder), line: 2, problem: 'the line fails its checksum', tornTail: false },
    });
  });

  it('refuses a last record changed in a way no power cut changes a file (no zeros, its newline there)', async () => {
    const folder = files.file('j');
    await journalWithLastRecord(folder, [[{ add: 1 }]], [{ add: 2 }]);
    const path = journalPath(folder);
    writeFileSync(path, readFileSync(path, 'utf8').replace('"add":2', '"add":7'));
    expect(await loadJournal<number, CounterEvent>(folder)).toEqual({
      ok: false,
      error: { file: path, line: 2, problem: 'the line fails its checksum', tornTail: false },
    });
  });
});

describe('a journal written by an earlier version (lines without records)', () => {
  /** Lines as the earlier version wrote them: an entry and its checksum, nothing else. */
  function earlierLines(from: number, to: number): string {
    let text = '';
    for (let seq = from; seq <= to; seq += 1)
      text += encodeLine({ seq, at: '2026-11-20T09:00:00.000Z', event: { add: seq } });
    return text;
  }

  it('loads as before: whole lines kept, a half-written last line set aside, damage before the last refused', async () => {
    const folder = files.file('j');
    const writer = await JournalWriter.open(folder, undefined);
    await writer.close();
    const path = journalPath(folder);
    writeFileSync(path, earlierLines(1, 4));
    expect(adds(await loadJournal<number, CounterEvent>(folder))).toEqual([1, 2, 3, 4]);

    appendFileSync(path, earlierLines(5, 5).slice(0, 30));
    const torn = await loadJournal<number, CounterEvent>(folder);
    expect(adds(torn)).toEqual([1, 2, 3, 4]);
    if (torn.ok)
      expect(torn.value.recovered).toEqual([
        expect.objectContaining({
          line: 5,
          tornTail: true,
          problem: 'a half-written last line (the app stopped while writing it)',
        }),
      ]);

    writeFileSync(path, earlierLines(1, 4).replace('"add":2', '"add":9'));
    expect(await loadJournal<number, CounterEvent>(folder)).toMatchObject({
      ok: false,
      error: { line: 2, problem: 'the line fails its checksum' },
    });
    // Zeros then lines of the earlier version, which says nothing of what was durable: refused as before.
    const zeroed = Buffer.from(earlierLines(1, 4));
    zeroed.fill(0, 100, 120);
    writeFileSync(path, zeroed);
    expect(await loadJournal<number, CounterEvent>(folder)).toMatchObject({
      ok: false,
      error: { line: 2, problem: 'the line fails its checksum' },
    });
  });

  it('loads when this version appended after it, and drops this version’s torn record there', async () => {
    const folder = files.file('j');
    const first = await JournalWriter.open(folder, undefined);
    await first.close();
    writeFileSync(journalPath(folder), earlierLines(1, 3));
    const loaded = await loadJournal<number, CounterEvent>(folder);
    if (!loaded.ok) throw new Error(loaded.error.problem);
    const writer = await JournalWriter.open<number, CounterEvent>(folder, loaded.value);
    await writer.append([{ add: 4 }]);
    const durable = statSync(journalPath(folder)).size;
    await writer.append([big(5), big(6), big(7)]);
    await writer.close();
    expect(adds(await loadJournal<number, CounterEvent>(folder))).toEqual([1, 2, 3, 4, 5, 6, 7]);

    lose(journalPath(folder), durable, PAGE);
    const torn = await loadJournal<number, CounterEvent>(folder);
    expect(adds(torn)).toEqual([1, 2, 3, 4]);
    if (torn.ok) expect(torn.value.recovered).toEqual([expect.objectContaining({ line: 5, tornTail: true })]);
  });
});

describe('a journal through power cuts of the crash-test disk, which writes pages in any order', () => {
  it('keeps every acknowledged record, and each record in flight whole or not at all', async () => {
    const folder = '/data/journal';
    let outOfOrder = 0;
    let recovered = 0;
    for (let seed = 1; seed <= 150; seed += 1) {
      const random = createSeededRandom(seed);
      const fs = new CrashFileSystem();
      const writer = await JournalWriter.open<number, CounterEvent>(folder, undefined, { fs });
      let next = 1;
      /** A record of one to four events, some of them big, so records cross pages. */
      const record = (): CounterEvent[] =>
        Array.from({ length: 1 + Math.floor(random() * 4) }, () => {
          next += 1;
          return random() < 0.4 ? big(next) : { add: next };
        });
      const acknowledged: CounterEvent[][] = [];
      for (let count = Math.floor(random() * 4); count > 0; count -= 1) {
        const events = record();
        await writer.append(events);
        acknowledged.push(events);
      }
      // Records appended together share one write and one fdatasync, which the power cut interrupts.
      const inFlight = Array.from({ length: 1 + Math.floor(random() * 3) }, record);
      fs.cutAfterOperations(2, random);
      const settled = await Promise.allSettled(inFlight.map((events) => writer.append(events)));
      expect(settled.every((result) => result.status === 'rejected')).toBe(true);
      const image = fs.cutImage!;
      if (image.tornOutOfOrder?.some((path) => path.endsWith('/journal.log'))) outOfOrder += 1;

      const loaded = await loadJournal<number, CounterEvent>(folder, new CrashFileSystem({ image }));
      if (!loaded.ok) throw new Error(`seed ${seed}: ${loaded.error.problem} (line ${loaded.error.line})`);
      recovered += loaded.value.recovered.length;
      const records = [...acknowledged, ...inFlight].map((events) => events.map((event) => event.add));
      const kept = adds(loaded);
      const whole = records.findIndex((_, count) => records.slice(0, count + 1).flat().length > kept.length);
      const keptRecords = whole === -1 ? records.length : whole;
      expect(records.slice(0, keptRecords).flat(), `seed ${seed}: whole records only`).toEqual(kept);
      expect(keptRecords, `seed ${seed}: every acknowledged record`).toBeGreaterThanOrEqual(
        acknowledged.length,
      );
    }
    console.log(
      `journal power cuts: 150, torn out of order ${outOfOrder}, torn records set aside ${recovered}`,
    );
    expect(outOfOrder).toBeGreaterThan(0);
    expect(recovered).toBeGreaterThan(0);
  });
});

describe('a batch store over a torn journal', () => {
  it('opens the batch without its torn record of several events, and reports it', async () => {
    const dataDir = files.file('data');
    const store = await BatchStore.open(dataDir);
    const batch = await store.create('Monday contracts', { defaultRecipients: [] });
    const path = journalPath(join(dataDir, 'batches', batch.id));
    const durable = statSync(path).size;
    // One record, two events: both are kept, or neither.
    const longName = (n: number) => `Monday contracts ${n} ${'·'.repeat(1_500)}`;
    await store.record(batch.id, [
      { type: 'batch_renamed', name: longName(1) },
      { type: 'batch_renamed', name: longName(2) },
    ]);
    await store.close();
    lose(path, durable, PAGE);

    const reopened = await BatchStore.open(dataDir);
    expect(reopened.get(batch.id)?.name).toBe('Monday contracts');
    expect(reopened.loadReport).toEqual({
      damaged: [],
      recovered: [
        {
          batchId: batch.id,
          file: path,
          line: 2,
          problem: 'a half-written last record (the app stopped while writing it)',
          tornTail: true,
        },
      ],
    });
    await reopened.close();
  });
});
