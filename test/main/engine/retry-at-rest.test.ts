import { describe, expect, it } from 'vitest';
import { connect } from '../../../main/app/desk-core';
import { Secret } from '../../../main/base/secret';
import type { BatchEvent } from '../../../main/domain/batch-events';
import { BatchStore } from '../../../main/store/batch-store';
import { BlobStore } from '../../../main/store/blob-store';
import { CrashFileSystem } from '../../support/crash-fs';
import { draft } from '../store/fold-fixtures';

/**
 * A failed document leaves its batch at rest (main/domain/batch-rest.ts) when every other one is
 * final: "Retry" reads the batch back and puts the document back in the queue, whatever else
 * is opened meanwhile and however few batches the store keeps in memory after their use.
 */
const DATA = '/data';
const SERVICE = { baseUrl: 'http://127.0.0.1:9', clientId: 'desk' };

describe('retrying a failed document of a batch at rest', () => {
  it('queues it again though its batch rests again as soon as it is read back', async () => {
    const fs = new CrashFileSystem();
    const first = await BatchStore.open(DATA, { fs });
    const batch = await first.create('Failed once', { defaultRecipients: [] });
    const events: BatchEvent[] = [
      { type: 'connection_bound', ...SERVICE },
      { type: 'document_added', document: draft(1) },
      { type: 'send_requested', documentIds: ['doc-1'] },
      {
        type: 'item_failed',
        documentId: 'doc-1',
        error: { code: 'invalid_pdf', message: 'refused', retryable: false, at: '2026-01-05T09:00:00.000Z' },
      },
    ];
    await first.record(batch.id, events);
    await first.close();

    // No batch at rest is kept in memory after its use: it rests again the moment it is read.
    const store = await BatchStore.open(DATA, { fs: fs.crashProcess(), keptAtRest: 0 });
    expect(store.get(batch.id)).toBeUndefined();
    const dataDir = { path: DATA, store, blobs: new BlobStore(DATA, { fs }), close: () => store.close() };
    const connected = connect(dataDir, { ...SERVICE, clientSecret: new Secret('secret') });
    try {
      await connected.engine.retry(batch.id, 'doc-1');
      const after = await store.open(batch.id);
      expect(after?.documents[0]?.send.error).toBeUndefined();
      expect(after?.documents[0]?.send.queued).toBe(true);
    } finally {
      await connected.close();
      await store.close();
    }
  });
});
