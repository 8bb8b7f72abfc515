import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDataDir } from '../../../main/desk-core';
import { BlobStore } from '../../../main/store/blob-store';
import { CrashFileSystem } from '../../support/crash-fs';
import { createSeededRandom } from '../../../simulator/seeded-random';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';

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
      if (!intake.ok) throw new Error(intake.problem.message);
      expect(await blobs.has(intake.pdf.sha256)).toBe(true);
      const copy = await buffer(blobs.openRead(intake.pdf.sha256));
      expect(copy.length).toBe(intake.pdf.sizeBytes);
      expect(sha256(copy)).toBe(intake.pdf.sha256);
      await expect(buffer(blobs.openRead('0'.repeat(64)))).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });

  it('keeps a copy through any power cut once the intake resolved, read from the real disk', async () => {
    const source = await writePdf(files, 'Loan.pdf');
    for (let seed = 1; seed <= 20; seed += 1) {
      const fs = new CrashFileSystem();
      const intake = await new BlobStore('/data', { fs }).intake(source);
      if (!intake.ok) throw new Error(intake.problem.message);
      const restarted = new CrashFileSystem({ image: fs.powerCut(createSeededRandom(seed)) });
      const copy = await buffer(new BlobStore('/data', { fs: restarted }).openRead(intake.pdf.sha256));
      expect(sha256(copy)).toBe(intake.pdf.sha256);
    }
  });
});

describe('a data folder on another file system', () => {
  it('opens with its store and blobs on that file system, without a kernel lock', async () => {
    const fs = new CrashFileSystem();
    const opened = await openDataDir('/data', { fs });
    if (!opened.ok) throw new Error(opened.message);
    const batch = await opened.value.store.create('In memory', { defaultRecipients: [] });
    await opened.value.close();
    const again = await openDataDir('/data', { fs });
    if (!again.ok) throw new Error(again.message);
    expect(again.value.store.get(batch.id)?.name).toBe('In memory');
    await again.value.close();
    expect((await fs.readdir('/data')).map((entry) => entry.name)).toEqual(['batches']);
    expect(existsSync('/data/lock')).toBe(false);
  });
});
