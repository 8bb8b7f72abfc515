import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDataDir } from '../../../main/app/desk-core';
import { BlobStore } from '../../../main/store/blob-store';
import { CrashFileSystem } from '../../support/crash-fs';
import { originalsIn } from '../../support/memory-originals';
import { createSeededRandom } from '../../../simulator/seeded-random';
import { makePdfBytes, makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';

let files: TempFolder;

beforeEach(() => {
  files = makeTempFolder('desk-blobs-');
});
afterEach(() => files.remove());

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

describe('the blob store', () => {
  it('streams back the stored copy through its file system, and a missing one as ENOENT', async () => {
    const source = await writePdf(files, 'Lease.pdf');
    for (const fs of [undefined, new CrashFileSystem()]) {
      const blobs = new BlobStore(fs ? '/data' : files.file('data'), fs ? { fs } : {});
      const intake = await blobs.intake(source);
      if (!intake.ok) throw new Error(intake.error.message);
      expect(await blobs.has(intake.value.sha256)).toBe(true);
      const copy = await buffer(blobs.openRead(intake.value.sha256));
      expect(copy.length).toBe(intake.value.sizeBytes);
      expect(sha256(copy)).toBe(intake.value.sha256);
      await expect(buffer(blobs.openRead('0'.repeat(64)))).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });

  it('keeps a copy through any power cut once the intake resolved, read from the real disk', async () => {
    const source = await writePdf(files, 'Loan.pdf');
    for (let seed = 1; seed <= 20; seed += 1) {
      const fs = new CrashFileSystem();
      const intake = await new BlobStore('/data', { fs }).intake(source);
      if (!intake.ok) throw new Error(intake.error.message);
      const restarted = new CrashFileSystem({ image: fs.powerCut(createSeededRandom(seed)) });
      const copy = await buffer(new BlobStore('/data', { fs: restarted }).openRead(intake.value.sha256));
      expect(sha256(copy)).toBe(intake.value.sha256);
    }
  });
});

/** PDFs in an in-memory file system (the originals of a test), each its own digest. */
async function memoryOriginals(count: number): Promise<{ originals: CrashFileSystem; paths: string[] }> {
  const originals = new CrashFileSystem();
  const bytes = await makePdfBytes('Contract');
  const paths: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const path = `/contract-${index}.pdf`;
    const handle = await originals.open(path, 'w');
    await handle.write(bytes);
    await handle.write(`%copy ${index}\n`);
    await handle.close();
    paths.push(path);
  }
  return { originals, paths };
}

describe('the blob store taking in many PDFs at once', () => {
  it('answers each file in order, a group at a time, copies each digest once and syncs each folder once a group', async () => {
    const { originals, paths } = await memoryOriginals(5);
    const notAPdf = '/notes.pdf';
    const handle = await originals.open(notAPdf, 'w');
    await handle.write('just text');
    await handle.close();
    // Two files with one digest, one that is not a PDF, one that is missing, five new copies.
    const sources = [
      paths[0]!,
      paths[1]!,
      notAPdf,
      paths[0]!,
      '/missing.pdf',
      paths[2]!,
      paths[3]!,
      paths[4]!,
    ];
    const fs = new CrashFileSystem();
    const syncs: string[] = [];
    fs.onOperation = ({ kind, path }) => {
      if (kind === 'sync' || kind === 'syncDirectory') syncs.push(`${kind} ${path}`);
    };
    const blobs = new BlobStore('/data', { fs, originals: originalsIn(originals) });
    const groups: { first: number; codes: string[]; syncsBefore: number }[] = [];
    for await (const group of blobs.intakeMany(
      sources.map((path) => ({ path })),
      { groupFiles: 4 },
    )) {
      groups.push({
        first: group.first,
        codes: group.results.map((result) => (result.ok ? 'ok' : result.error.code)),
        syncsBefore: syncs.length,
      });
    }
    expect(groups.map(({ first, codes }) => ({ first, codes }))).toEqual([
      { first: 0, codes: ['ok', 'ok', 'invalid_pdf', 'ok'] },
      { first: 4, codes: ['unreadable_file', 'ok', 'ok', 'ok'] },
    ]);
    // Each new copy's bytes synced once; each folder a copy went into, once a group.
    const fileSyncs = syncs.filter((sync) => sync.startsWith('sync /data/blobs/incoming/'));
    expect(fileSyncs).toHaveLength(5);
    let from = 0;
    for (const { syncsBefore } of groups) {
      const folders = syncs
        .slice(from, syncsBefore)
        .filter((sync) => /^syncDirectory \/data\/blobs\/[0-9a-f]{2}$/.test(sync));
      expect(folders.length).toBeGreaterThan(0);
      expect(new Set(folders).size).toBe(folders.length);
      from = syncsBefore;
    }
    // Nothing left behind: no scratch copy, and only the five copies in place.
    expect(await fs.readdir('/data/blobs/incoming')).toEqual([]);
    for (const path of paths) {
      const original = await buffer(originals.createReadStream(path, { highWaterMark: 1024 }));
      expect(await blobs.has(sha256(original)), path).toBe(true);
    }
    const stored = await Promise.all(
      (await fs.readdir('/data/blobs'))
        .filter((entry) => entry.name !== 'incoming')
        .map(async (entry) => (await fs.readdir(`/data/blobs/${entry.name}`)).length),
    );
    expect(stored.reduce((sum, count) => sum + count, 0)).toBe(5);
  });

  it('a group answered has every copy through any power cut, wherever the cut falls after it', async () => {
    const { originals, paths } = await memoryOriginals(6);
    const sources = paths.map((path) => ({ path }));
    // Counts the operations of one whole intake, then cuts the power after each of them in turn.
    const dry = new CrashFileSystem();
    for await (const group of new BlobStore('/data', {
      fs: dry,
      originals: originalsIn(originals),
    }).intakeMany(sources, {
      groupFiles: 2,
    }))
      void group;
    for (let cutAt = 1; cutAt <= dry.operationCount; cutAt += 1) {
      const fs = new CrashFileSystem();
      fs.cutAfterOperations(cutAt, createSeededRandom(cutAt));
      const answered: string[] = [];
      try {
        for await (const group of new BlobStore('/data', {
          fs,
          originals: originalsIn(originals),
        }).intakeMany(sources, {
          groupFiles: 2,
        })) {
          for (const result of group.results) if (result.ok) answered.push(result.value.sha256);
        }
      } catch {
        // The power cut.
      }
      const restarted = new BlobStore('/data', { fs: new CrashFileSystem({ image: fs.cutImage! }) });
      for (const digest of answered) {
        const copy = await buffer(restarted.openRead(digest));
        expect(sha256(copy), `cut after operation ${cutAt}`).toBe(digest);
      }
    }
  });

  it('makes a copy found in place durable: its folder may be unsynced by a process that was killed', async () => {
    const { originals, paths } = await memoryOriginals(1);
    const source = paths[0]!;
    // The first process is killed right after it renamed the copy into place, before it synced the folder.
    const dry = new CrashFileSystem();
    let renamedAt = 0;
    dry.onOperation = ({ index, kind, path }) => {
      if (kind === 'rename' && path.includes('/incoming/')) renamedAt = index;
    };
    await new BlobStore('/data', { fs: dry, originals: originalsIn(originals) }).intake(source);
    for (let seed = 1; seed <= 20; seed += 1) {
      const first = new CrashFileSystem();
      first.crashAfterOperations(renamedAt + 1);
      await expect(
        new BlobStore('/data', { fs: first, originals: originalsIn(originals) }).intake(source),
      ).rejects.toThrow();
      // The next process finds the copy in place and answers it; then the power goes.
      const next = new CrashFileSystem({}, first.disk);
      const intake = await new BlobStore('/data', { fs: next, originals: originalsIn(originals) }).intake(
        source,
      );
      if (!intake.ok) throw new Error(intake.error.message);
      const restarted = new CrashFileSystem({ image: next.powerCut(createSeededRandom(seed)) });
      const copy = await buffer(new BlobStore('/data', { fs: restarted }).openRead(intake.value.sha256));
      expect(sha256(copy), `seed ${seed}`).toBe(intake.value.sha256);
    }
  });
});

describe('a data folder on another file system', () => {
  it('opens with its store and blobs on that file system, without a kernel lock', async () => {
    const fs = new CrashFileSystem();
    const opened = await openDataDir('/data', { fs });
    if (!opened.ok) throw new Error(opened.error);
    const batch = await opened.value.store.create('In memory', { defaultRecipients: [] });
    await opened.value.close();
    const again = await openDataDir('/data', { fs });
    if (!again.ok) throw new Error(again.error);
    expect(again.value.store.get(batch.id)?.name).toBe('In memory');
    await again.value.close();
    expect((await fs.readdir('/data')).map((entry) => entry.name)).toEqual(['batches']);
    expect(existsSync('/data/lock')).toBe(false);
  });
});
