import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findManifestBatch } from '../../../main/cli/manifest-batch';
import type { BatchEvent } from '../../../main/domain/batch-events';
import { BatchStore } from '../../../main/store/batch-store';
import { CrashFileSystem } from '../../support/crash-fs';
import { draft, sent, signed } from '../store/fold-fixtures';

/**
 * `send` of a copied manifest asks which batches hold its contracts: batches at rest
 * (main/domain/batch-rest.ts) are read back to be named, each once, however their documents
 * interleave in the manifest (the store keeps only the last few read in memory).
 */
const DATA = '/data';
const SERVICE = { baseUrl: 'https://signing.example.com', clientId: 'desk' };

/** A batch at rest holding the signed documents `indexes` (REF-i, doc-i). */
async function signedBatch(store: BatchStore, name: string, indexes: readonly number[]): Promise<string> {
  const batch = await store.create(name, { defaultRecipients: [] });
  const ids = indexes.map((index) => `doc-${index}`);
  const events: BatchEvent[] = [
    { type: 'connection_bound', ...SERVICE },
    ...indexes.map((index) => ({ type: 'document_added' as const, document: draft(index) })),
    { type: 'send_requested', documentIds: ids },
    ...ids.flatMap((id) => sent(id)),
    ...ids.map((id) => ({ type: 'status_read' as const, documentId: id, status: signed })),
  ];
  await store.record(batch.id, events);
  return batch.id;
}

describe('a copied manifest whose contracts batches at rest hold', () => {
  it('names every batch holding them, reading each once', async () => {
    const fs = new CrashFileSystem();
    const first = await BatchStore.open(DATA, { fs });
    const batches = [];
    // Five batches, documents dealt to them in turn: REF-1 in the first, REF-2 in the second…
    for (let batch = 0; batch < 5; batch += 1)
      batches.push(await signedBatch(first, `Batch ${batch}`, [batch + 1, batch + 6, batch + 11]));
    await first.close();

    const next = fs.crashProcess();
    const reads: string[] = [];
    next.onOperation = (operation) => {
      if (operation.kind === 'readFile' && operation.path.endsWith('snapshot.json'))
        reads.push(operation.path);
    };
    const store = await BatchStore.open(DATA, { fs: next });
    const documents = Array.from({ length: 15 }, (_, index) => ({
      externalReference: `REF-${index + 1}`,
      pdf: { sha256: draft(index + 1).pdf.sha256, sizeBytes: 1000 },
    }));
    const found = await findManifestBatch(store, SERVICE, '/copy/manifest.csv', documents);
    expect(found.kind).toBe('held');
    if (found.kind !== 'held') return;
    expect(found.holders.map((holder) => holder.references.length)).toEqual([3, 3, 3, 3, 3]);
    expect(found.holders.every((holder) => holder.sameContracts === 3)).toBe(true);
    expect(reads.filter((path) => path.startsWith(join(DATA, 'batches'))).sort()).toEqual(
      batches.map((id) => join(DATA, 'batches', id, 'snapshot.json')).sort(),
    );
    await store.close();
  });
});
