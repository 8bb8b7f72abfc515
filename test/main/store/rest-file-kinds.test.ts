/**
 * A batch's rest file (main/store/rest-file.ts) is a cache the start reads before anything else:
 * whatever is found in its place — a named pipe, a file far larger than the snapshot it would
 * describe — is passed over at once and the batch read whole, as with no rest file (and given
 * its rest file again). A plain read
 * of a FIFO waits for a writer for ever: the test has a short timeout, so such a hang fails it.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BatchEvent } from '../../../main/domain/batch-events';
import { BatchStore } from '../../../main/store/batch-store';
import { writeFileAtomic } from '../../../main/store/durable-fs';
import { CrashFileSystem } from '../../support/crash-fs';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { draft, sent, signed } from './fold-fixtures';

const HANG_TIMEOUT_MS = 4000;
const SERVICE = { baseUrl: 'https://signing.example.com', clientId: 'desk' };

let files: TempFolder | undefined;
const fifos: string[] = [];

afterEach(() => {
  // A reader still blocked on a FIFO (the code under test before the fix) is set free by a writer.
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader waits: nothing to free.
    }
  }
  files?.remove();
  files = undefined;
});

/** A batch bound to SERVICE whose one document is signed: at rest, with its rest file. */
async function finishedBatch(store: BatchStore): Promise<string> {
  const batch = await store.create('Signed', { defaultRecipients: [] });
  const events: BatchEvent[] = [
    { type: 'connection_bound', ...SERVICE },
    { type: 'document_added', document: draft(1) },
    { type: 'send_requested', documentIds: ['doc-1'] },
    ...sent('doc-1'),
  ];
  await store.record(batch.id, events);
  await store.record(batch.id, [{ type: 'status_read', documentId: 'doc-1', status: signed }]);
  return batch.id;
}

describe('what is found in place of a rest file', () => {
  it(
    'a FIFO is passed over at once, and replaced by the rest file the batch is given again',
    async () => {
      files = makeTempFolder('attack-rest-kinds-');
      const dataDir = files.file('data');
      const first = await BatchStore.open(dataDir);
      const batchId = await finishedBatch(first);
      await first.close();
      const restFile = join(dataDir, 'batches', batchId, 'rest.json');
      expect(statSync(restFile).isFile()).toBe(true);
      rmSync(restFile);
      execFileSync('mkfifo', [restFile]);
      fifos.push(restFile);

      const store = await BatchStore.open(dataDir);
      expect(store.outline(batchId)?.counts).toMatchObject({ completed: 1 });
      await store.close();
      expect(statSync(restFile).isFile()).toBe(true);
    },
    HANG_TIMEOUT_MS,
  );

  it('one larger than the snapshot it would describe is not read: the batch is read whole', async () => {
    const fs = new CrashFileSystem();
    const first = await BatchStore.open('/data', { fs });
    const batchId = await finishedBatch(first);
    await first.close();
    const folder = join('/data', 'batches', batchId);
    await writeFileAtomic(join(folder, 'rest.json'), ' '.repeat(8 * 1024 * 1024), fs);

    const next = fs.crashProcess();
    const reads: string[] = [];
    next.onOperation = (operation) => {
      if (operation.kind === 'readFile') reads.push(operation.path);
    };
    const store = await BatchStore.open('/data', { fs: next });
    expect(store.outline(batchId)?.counts).toMatchObject({ completed: 1 });
    expect(reads).not.toContain(join(folder, 'rest.json'));
    expect(reads).toContain(join(folder, 'snapshot.json'));
    await store.close();
  });
});
