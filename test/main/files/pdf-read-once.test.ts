import { linkSync, mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addPdfDocuments } from '../../../main/engine/batch-preparation';
import { checkPdfFile } from '../../../main/files/pdf-check';
import { checkManifest } from '../../../main/manifest/manifest';
import { createUserFiles, type UserFiles } from '../../../main/files/user-files';
import { BatchStore } from '../../../main/store/batch-store';
import { BlobStore } from '../../../main/store/blob-store';
import { MAX_PDF_BYTES } from '../../../shared/service/limits';
import { createTranslator } from '../../../shared/i18n/translator';
import { CrashFileSystem } from '../../support/crash-fs';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';

/**
 * A PDF is refused by what costs nothing first: its size as the system gives it, then its first
 * bytes; only a file that passes both is read whole, and one file is read once whatever names lead
 * to it (README, "What is read, and the limits"). The bytes read are counted through the person's
 * real files, so a check that reads first and judges after fails here.
 */
const english = createTranslator('en').t;
const HEADER = 'document,external_reference,participant_type,role,name,email';
const MIB = 1024 * 1024;

let folder: TempFolder;
beforeEach(() => {
  folder = makeTempFolder('pdf-read-once-');
});
afterEach(() => folder.remove());

/** The person's real files, counting the bytes read and the files read from. */
function countingFiles(): {
  readonly files: UserFiles;
  readonly bytesRead: () => number;
  readonly filesRead: () => number;
} {
  const real = createUserFiles();
  let bytes = 0;
  const readFrom = new Set<object>();
  const files: UserFiles = {
    ...real,
    async open(path, options) {
      const file = await real.open(path, options);
      const counted = {
        ...file,
        read: async (length: number) => {
          const chunk = await file.read(length);
          bytes += chunk.length;
          if (chunk.length > 0) readFrom.add(counted);
          return chunk;
        },
      };
      return counted;
    },
  };
  return { files, bytesRead: () => bytes, filesRead: () => readFrom.size };
}

/** A sparse file of `size` bytes (no block written past `start`), as `truncate` makes it. */
function sparseFile(name: string, size: number, start = ''): string {
  const path = folder.file(name);
  writeFileSync(path, start, 'latin1');
  truncateSync(path, size);
  return path;
}

/** A data folder in memory, taking in the person's `files`; `copiesBegun` counts the copies it began. */
async function dataFolder(files: UserFiles) {
  const fs = new CrashFileSystem();
  let copies = 0;
  fs.onOperation = ({ kind, path }) => {
    if (kind === 'open' && path.startsWith('/data/blobs/incoming/')) copies += 1;
  };
  const store = await BatchStore.open('/data', { fs });
  return { store, blobs: new BlobStore('/data', { fs, originals: files }), copiesBegun: () => copies };
}

describe('a PDF is refused before it is read', () => {
  it('a file one byte over the limit, with a good header, is refused by its size without a byte read', async () => {
    const big = sparseFile('big.pdf', MAX_PDF_BYTES + 1, '%PDF-1.7\n');
    const { files, bytesRead } = countingFiles();
    const check = await checkPdfFile(big, { open: (path, options) => files.open(path, options) });
    expect(check).toMatchObject({ ok: false, error: { code: 'pdf_too_large' } });
    expect(bytesRead()).toBe(0);
  });

  it('a 49 MiB file whose first bytes are not a PDF header is refused after them, nothing hashed or copied', async () => {
    // Under the limit, zeros at offset 0; a good header further on is never reached.
    const path = sparseFile('scan.pdf', 49 * MIB);
    const laterHeader = Buffer.from('%PDF-1.7\n', 'latin1');
    writeFileSync(path, Buffer.concat([Buffer.alloc(MIB), laterHeader]), { flag: 'r+' });
    const { files, bytesRead } = countingFiles();
    const { blobs, copiesBegun, store } = await dataFolder(files);
    const intake = await blobs.intake(path);
    expect(intake).toMatchObject({ ok: false, error: { code: 'invalid_pdf' } });
    expect(bytesRead()).toBeLessThanOrEqual(8);
    expect(copiesBegun()).toBe(0);
    await store.close();
  });

  it('a manifest naming 20 such files is answered after their first bytes only, each with its reason', async () => {
    const rows = Array.from({ length: 20 }, (_, index) => {
      sparseFile(`scan-${index}.pdf`, 49 * MIB);
      return `scan-${index}.pdf,REF-${index},signer,Employee,Anne,anne@example.com`;
    });
    sparseFile('big.pdf', MAX_PDF_BYTES + 1, '%PDF-1.7\n');
    rows.push('big.pdf,REF-BIG,signer,Employee,Anne,anne@example.com');
    writeFileSync(folder.file('manifest.csv'), [HEADER, ...rows].join('\n'));
    const { files, bytesRead } = countingFiles();
    const check = await checkManifest(folder.file('manifest.csv'), english, files);
    expect(check.issues).toHaveLength(21);
    expect(check.issues.at(-1)?.message).toContain('larger than 50 MiB');
    expect(bytesRead()).toBeLessThanOrEqual(20 * 8);
  });
});

describe('one file, whatever names lead to it, is read once', () => {
  it('two hard links in a manifest: one read, two documents with the same digest', async () => {
    const original = await writePdf(folder, 'offer.pdf', 'Offer');
    linkSync(original, folder.file('offer-copy.pdf'));
    writeFileSync(
      folder.file('manifest.csv'),
      [
        HEADER,
        'offer.pdf,REF-1,signer,Employee,Anne,anne@example.com',
        'offer-copy.pdf,REF-2,signer,Employee,Anne,anne@example.com',
      ].join('\n'),
    );
    const { files, filesRead } = countingFiles();
    const check = await checkManifest(folder.file('manifest.csv'), english, files);
    expect(check.issues).toEqual([]);
    expect(check.documents.map((document) => document.externalReference)).toEqual(['REF-1', 'REF-2']);
    const [first, second] = check.documents.map((document) => document.pdf?.sha256);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(second).toBe(first);
    expect(filesRead()).toBe(1);
  });

  it('added by hand: two links under two names are two documents, read once; under one name, the second is the same contract', async () => {
    mkdirSync(folder.file('one'));
    mkdirSync(folder.file('two'));
    const offer = await writePdf(folder, 'one/offer.pdf', 'Offer');
    linkSync(offer, folder.file('two/offer.pdf'));
    linkSync(offer, folder.file('one/lease.pdf'));
    const { files, filesRead } = countingFiles();
    const { blobs, store } = await dataFolder(files);
    const batch = await store.create('Contracts', { defaultRecipients: [] });
    const outcome = await addPdfDocuments(store, blobs, batch.id, [
      offer,
      folder.file('one/lease.pdf'),
      folder.file('two/offer.pdf'),
    ]);
    expect(filesRead()).toBe(1);
    // Another name is another reference: two documents, as two copies of one file would be.
    expect(outcome.added.map((document) => document.externalReference)).toEqual(['offer', 'lease']);
    // The same name is the same contract, said as for `offer.pdf` and `./offer.pdf`.
    expect(outcome.rejected.map((file) => [file.code, file.message])).toEqual([
      [
        'already_in_batch',
        'offer.pdf is already in this batch as offer.pdf: the same PDF under the same reference is one contract, so it was not added again.',
      ],
    ]);
    await store.close();
  });
});
