import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { addPdfDocuments, importManifest } from '../../../main/engine/batch-preparation';
import { checkManifest } from '../../../main/manifest/manifest';
import { BatchStore } from '../../../main/store/batch-store';
import { BlobStore } from '../../../main/store/blob-store';
import { CrashFileSystem } from '../../support/crash-fs';
import { makePdfBytes, makeTempFolder, type TempFolder } from '../../support/pdf-files';

let files: TempFolder;

beforeEach(() => {
  files = makeTempFolder('desk-preparation-');
});
afterEach(() => files.remove());

/** `count` distinct real PDFs named contract-000.pdf…, each its own digest. */
async function writeContracts(count: number): Promise<string[]> {
  const bytes = Buffer.from(await makePdfBytes('Contract'));
  return Array.from({ length: count }, (_, index) => {
    const path = files.file(`contract-${String(index).padStart(3, '0')}.pdf`);
    writeFileSync(path, Buffer.concat([bytes, Buffer.from(`%copy ${index}\n`)]));
    return path;
  });
}

/** A data folder in memory (the person's files stay on the real disk). */
async function openDataFolder(): Promise<{ store: BatchStore; blobs: BlobStore; records: () => number }> {
  const fs = new CrashFileSystem();
  const store = await BatchStore.open('/data', { fs });
  const record = vi.spyOn(store, 'record');
  return { store, blobs: new BlobStore('/data', { fs }), records: () => record.mock.calls.length };
}

describe('preparing a batch of many documents', () => {
  it('adds 250 PDFs in order with two journal records (a group of 200, then the rest), and reports the rejected in order', async () => {
    const paths = await writeContracts(250);
    const notAPdf = files.file('notes.pdf');
    writeFileSync(notAPdf, 'just text');
    const picked = [...paths.slice(0, 100), notAPdf, ...paths.slice(100), files.file('gone.pdf')];
    const { store, blobs, records } = await openDataFolder();
    const batch = await store.create('Scans', { defaultRecipients: [] });
    const before = records();

    const { added, rejected } = await addPdfDocuments(store, blobs, batch.id, picked);

    expect(records() - before).toBe(2);
    expect(added.map((draft) => draft.pdf.originalName)).toEqual(paths.map((path) => path.split('/').pop()));
    expect(store.get(batch.id)?.documents.map((document) => document.draft.id)).toEqual(
      added.map((draft) => draft.id),
    );
    expect(rejected.map((file) => [file.path, file.code])).toEqual([
      [notAPdf, 'invalid_pdf'],
      [files.file('gone.pdf'), 'unreadable_file'],
    ]);
    for (const draft of added) expect(await blobs.has(draft.pdf.sha256)).toBe(true);
    await store.close();
  });

  it('imports a manifest of 205 documents in two records; the same manifest again adds nothing and records nothing', async () => {
    const paths = await writeContracts(205);
    const rows = paths.map(
      (path, index) =>
        `${path.split('/').pop()},REF-${index},signer,Employee,Person ${index},p${index}@example.com,1`,
    );
    const manifest = files.file('manifest.csv');
    writeFileSync(
      manifest,
      `document,external_reference,participant_type,role,name,email,signing_order\n${rows.join('\n')}\n`,
    );
    const check = await checkManifest(manifest);
    expect(check.issues).toEqual([]);
    const { store, blobs, records } = await openDataFolder();
    const batch = await store.create('Contracts', { defaultRecipients: [] });
    const before = records();

    const first = await importManifest(store, blobs, batch.id, check.documents);
    expect(first).toMatchObject({ added: 205, updated: 0, unchanged: 0, lockedChanges: [], rejected: [] });
    expect(records() - before).toBe(2);
    expect(store.get(batch.id)?.documents.map((document) => document.draft.externalReference)).toEqual(
      paths.map((_, index) => `REF-${index}`),
    );

    const again = await importManifest(store, blobs, batch.id, check.documents);
    expect(again).toMatchObject({ added: 0, updated: 0, unchanged: 205, rejected: [] });
    expect(records() - before).toBe(2);
    expect(store.get(batch.id)?.documents).toHaveLength(205);
    await store.close();
  });
});
