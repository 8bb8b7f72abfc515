/**
 * What a year of batches leaves in the data folder: a batch whose documents are all signed,
 * gone or failed is folded into its snapshot at once, and a long journal an earlier run left
 * is folded once after the store opens, so a start reads snapshots, not a year of journals.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BatchEvent } from '../../../main/domain/batch-events';
import type { BatchState } from '../../../main/domain/batch-state';
import { BatchStore } from '../../../main/store/batch-store';
import { JournalWriter } from '../../../main/store/journal';
import { buildCreateBody } from '../../../main/domain/create-body';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

import { draft, preparedBatch, sent, signed } from './fold-fixtures';

let folder: TempFolder | undefined;
afterEach(() => folder?.remove());

function journalLines(dataDir: string, batchId: string): number {
  const text = readFileSync(join(dataDir, 'batches', batchId, 'journal.log'), 'utf8');
  return text === '' ? 0 : text.split('\n').length - 1;
}

function hasSnapshot(dataDir: string, batchId: string): boolean {
  try {
    return statSync(join(dataDir, 'batches', batchId, 'snapshot.json')).isFile();
  } catch {
    return false;
  }
}

/** A batch of two documents, sent; the first signed, the second as `second` leaves it. */
async function sentBatch(store: BatchStore): Promise<string> {
  const batchId = await preparedBatch(store, 2);
  await store.record(batchId, [{ type: 'status_read', documentId: 'doc-1', status: signed }]);
  return batchId;
}

describe('folding a year of batches', () => {
  it('folds a batch into its snapshot when its last document is signed, gone or failed', async () => {
    folder = makeTempFolder('desk-folding-');
    const dataDir = folder.path;
    const store = await BatchStore.open(dataDir);
    const batchId = await sentBatch(store);
    // One document still waits for its signer: the batch's journal goes on.
    expect(journalLines(dataDir, batchId)).toBeGreaterThan(0);
    await store.record(batchId, [{ type: 'request_gone', documentId: 'doc-2' }]);
    const before = store.get(batchId);
    // Folded right after that record (closing waits for it), not by a later start.
    await store.close();
    expect(journalLines(dataDir, batchId)).toBe(0);
    expect(hasSnapshot(dataDir, batchId)).toBe(true);

    const reopened = await BatchStore.open(dataDir);
    expect(reopened.get(batchId)).toEqual(before);
    await reopened.close();
  });

  it('appends the edits of a draft batch without rewriting its snapshot', async () => {
    folder = makeTempFolder('desk-folding-');
    const dataDir = folder.path;
    const store = await BatchStore.open(dataDir);
    const batch = await store.create('Drafts', { defaultRecipients: [] });
    for (let index = 1; index <= 5; index += 1)
      await store.record(batch.id, [{ type: 'document_added', document: draft(index) }]);
    await store.record(batch.id, [{ type: 'batch_renamed', name: 'Drafts of May' }]);
    await store.close();
    expect(journalLines(dataDir, batch.id)).toBe(7);
    expect(hasSnapshot(dataDir, batch.id)).toBe(false);
  });

  it('folds a long journal an earlier run left, once, after the store opened', async () => {
    folder = makeTempFolder('desk-folding-');
    const dataDir = folder.path;
    const earlier = await BatchStore.open(dataDir);
    const batch = await earlier.create('Tracked for weeks', { defaultRecipients: [] });
    await earlier.record(batch.id, [{ type: 'document_added', document: draft(1) }]);
    // A status read each time the signer's page changed: 250 entries, never 2,000.
    for (let index = 0; index < 250; index += 1)
      await earlier.record(batch.id, [{ type: 'batch_renamed', name: `Tracked ${index}` }]);
    await earlier.close();
    expect(journalLines(dataDir, batch.id)).toBe(252);

    const store = await BatchStore.open(dataDir);
    expect(store.get(batch.id)?.name).toBe('Tracked 249');
    await store.close();
    expect(journalLines(dataDir, batch.id)).toBe(0);
    const next = await BatchStore.open(dataDir, { readOnly: true });
    expect(next.get(batch.id)?.name).toBe('Tracked 249');
    await next.close();
  });

  it('folds, after opening, a finished batch an earlier version left with a journal', async () => {
    folder = makeTempFolder('desk-folding-');
    const dataDir = folder.path;
    // Written as an earlier version did: every event appended, nothing folded before 2,000.
    const batchId = 'a-finished-batch';
    const writer = await JournalWriter.open<BatchState, BatchEvent>(
      join(dataDir, 'batches', batchId),
      undefined,
    );
    await writer.append([
      { type: 'batch_created', batchId, name: 'Last spring', defaults: { defaultRecipients: [] } },
      { type: 'document_added', document: draft(1) },
      { type: 'send_requested', documentIds: ['doc-1'] },
      ...sent('doc-1'),
      { type: 'status_read', documentId: 'doc-1', status: signed },
    ]);
    await writer.close();
    expect(journalLines(dataDir, batchId)).toBe(7);

    const store = await BatchStore.open(dataDir);
    const state = store.get(batchId);
    await store.close();
    expect(journalLines(dataDir, batchId)).toBe(0);
    const reopened = await BatchStore.open(dataDir, { readOnly: true });
    expect(reopened.get(batchId)).toEqual(state);
    await reopened.close();
  });

  it('never folds in a read-only store', async () => {
    folder = makeTempFolder('desk-folding-');
    const dataDir = folder.path;
    const earlier = await BatchStore.open(dataDir);
    const batch = await earlier.create('Tracked for weeks', { defaultRecipients: [] });
    for (let index = 0; index < 250; index += 1)
      await earlier.record(batch.id, [{ type: 'batch_renamed', name: `Tracked ${index}` }]);
    await earlier.close();
    const readOnly = await BatchStore.open(dataDir, { readOnly: true });
    await readOnly.close();
    expect(journalLines(dataDir, batch.id)).toBe(251);
  });
});

describe('a year of batches in memory', () => {
  it('holds the parts a loaded document repeats once: its recipients, its participants’ progress', async () => {
    folder = makeTempFolder('desk-folding-');
    const dataDir = folder.path;
    const defaults = {
      defaultRecipients: [
        {
          participant_type: 'observer' as const,
          role: 'HR',
          name: 'Human Resources',
          email: 'hr@example.com',
        },
      ],
    };
    const store = await BatchStore.open(dataDir);
    const batch = await store.create('Contracts', defaults);
    const drafts = [draft(1), draft(2)].map((each) => ({
      ...each,
      extraParticipants: [
        { participant_type: 'signer' as const, role: 'Manager', name: 'Manager', email: 'm@example.com' },
      ],
    }));
    for (const each of drafts) await store.record(batch.id, [{ type: 'document_added', document: each }]);
    await store.record(batch.id, [{ type: 'send_requested', documentIds: ['doc-1', 'doc-2'] }]);
    for (const each of drafts)
      await store.record(batch.id, [
        {
          type: 'upload_completed',
          documentId: each.id,
          uploadId: `u-${each.id}`,
          filename: 'c.pdf',
          sha256: each.pdf.sha256,
          sizeBytes: 1000,
        },
        {
          type: 'create_attempted',
          documentId: each.id,
          idempotencyKey: `k-${each.id}`,
          uploadId: `u-${each.id}`,
          body: buildCreateBody(defaults, each, `u-${each.id}`),
          attemptsMarked: true,
        },
        { type: 'request_created', documentId: each.id, requestId: `r-${each.id}`, replayed: false },
        { type: 'participant_attempted', documentId: each.id, index: 0 },
        { type: 'participant_added', documentId: each.id, index: 0, participantId: 'p' },
      ]);
    const before = store.get(batch.id);
    await store.close();

    const reopened = await BatchStore.open(dataDir, { readOnly: true });
    const loaded = reopened.get(batch.id);
    expect(loaded).toEqual(before);
    const [first, second] = loaded?.documents ?? [];
    const body = first?.send.create?.body;
    expect(body?.recipients[0]).toBe(first?.draft.recipients[0]);
    expect(body?.recipients[1]).toBe(loaded?.defaults.defaultRecipients[0]);
    expect(first?.send.participants[0]).toBe(second?.send.participants[0]);
    await reopened.close();
  });

  it('lists batches created in the same millisecond in one order, whichever process opens the folder', async () => {
    folder = makeTempFolder('desk-folding-');
    const sameMoment = () => Date.parse('2026-12-06T09:00:00.000Z');
    const store = await BatchStore.open(folder.path, { now: sameMoment });
    for (let index = 0; index < 8; index += 1)
      await store.create(`Batch ${index}`, { defaultRecipients: [] });
    const listed = store.outlines().map((batch) => batch.id);
    expect(store.loaded().map((batch) => batch.id)).toEqual(listed);
    await store.close();
    const again = await BatchStore.open(folder.path, { readOnly: true });
    expect(again.outlines().map((batch) => batch.id)).toEqual(listed);
    expect(again.loaded().map((batch) => batch.id)).toEqual(listed);
    await again.close();
  });

  it('reads every batch one after another for a command that visits each once, keeping none', async () => {
    folder = makeTempFolder('desk-folding-');
    const dataDir = folder.path;
    const store = await BatchStore.open(dataDir);
    const names = ['January', 'February', 'March'];
    for (const name of names) await store.create(name, { defaultRecipients: [] });
    const all = store.loaded();
    await store.close();

    const visited: string[] = [];
    const report = await BatchStore.readEach(dataDir, (batch) => visited.push(batch.name));
    expect(visited.sort()).toEqual([...names].sort());
    expect(report).toEqual({ damaged: [], recovered: [] });
    // Nothing was written: the folder is as the store left it.
    const again = await BatchStore.open(dataDir, { readOnly: true });
    expect(again.loaded()).toEqual(all);
    await again.close();
  });
});
