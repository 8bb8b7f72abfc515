import { readFileSync, rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import { createMemoryCredentialStore } from '../../../main/credentials/credential-store';
import { openDataDir, type DataDir } from '../../../main/desk-core';
import type { DeskHandlers } from '../../../shared/ipc/contract';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../../simulator/simulator';
import { createTestDeskService, until } from '../../support/desk-service-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';

let files: TempFolder;
let dataDir: DataDir;
let sim: Simulator;
let service: DeskService;
let handlers: DeskHandlers;

beforeEach(async () => {
  files = makeTempFolder('send-review-');
  sim = await startSimulator({ seed: 7 });
  const opened = await openDataDir(files.file('data'));
  if (!opened.ok) throw new Error(opened.message);
  dataDir = opened.value;
  service = createTestDeskService(dataDir, createMemoryCredentialStore());
  handlers = service.handlers;
});

afterEach(async () => {
  await service.close();
  await dataDir.close();
  await sim.close();
  files.remove();
});

const signer = (name: string, email: string) =>
  ({ participant_type: 'signer', role: 'Employee', name, email }) as const;

/** A batch of `references`, each one PDF; recipients as given (none: no recipient). */
async function batchOf(
  documents: readonly { reference: string; recipients: ReturnType<typeof signer>[] }[],
): Promise<{ batchId: string; ids: Record<string, string> }> {
  const batch = await handlers['batches.create']('Contracts');
  const paths = await Promise.all(
    documents.map(({ reference }) => writePdf(files, `${reference}.pdf`, reference)),
  );
  await handlers['documents.addPaths'](batch.id, paths);
  const detail = await handlers['batches.get'](batch.id);
  const ids: Record<string, string> = {};
  for (const [index, { reference, recipients }] of documents.entries()) {
    const document = detail.documents[index]!;
    ids[reference] = document.id;
    await handlers['documents.update'](batch.id, document.id, { externalReference: reference, recipients });
  }
  return { batchId: batch.id, ids };
}

async function saveOffice(): Promise<void> {
  await handlers['profiles.save']({
    name: 'Office',
    baseUrl: sim.baseUrl,
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
}

describe('the review before sending (sending.review)', () => {
  it('counts the documents that go and their distinct people, names the connection, lists what stays and why, and sends nothing', async () => {
    await saveOffice();
    const { batchId, ids } = await batchOf([
      { reference: 'A-1', recipients: [signer('Ann', 'ann@example.com'), signer('Bob', 'bob@example.com')] },
      { reference: 'A-2', recipients: [signer('Ann', 'ANN@example.com')] },
      { reference: 'A-3', recipients: [] },
    ]);

    const review = await handlers['sending.review'](batchId);

    expect(review.documentIds.sort()).toEqual([ids['A-1'], ids['A-2']].sort());
    expect(review.people).toBe(2); // Ann twice (any case) is one person
    expect(review.connection).toEqual({
      name: 'Office',
      baseUrl: sim.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      bound: false,
    });
    expect(review.connectionProblem).toBeUndefined();
    expect(review.blocked).toEqual([
      {
        id: ids['A-3'],
        externalReference: 'A-3',
        problems: expect.arrayContaining(['Add at least one recipient.']),
      },
    ]);
    // Looking neither sends nor binds.
    expect(sim.state.uploads()).toHaveLength(0);
    expect((await handlers['batches.get'](batchId)).connection).toBeUndefined();
  });

  it('says so when the batch has no usable connection, and promises nothing', async () => {
    const { batchId } = await batchOf([{ reference: 'B-1', recipients: [signer('Ann', 'ann@example.com')] }]);

    const review = await handlers['sending.review'](batchId);

    expect(review.connection).toBeUndefined();
    expect(review.connectionProblem).toMatch(/connection/i);
    expect(review.documentIds).toHaveLength(1);
  });

  it('after a send, counts only what is left to send, with the batch’s own connection', async () => {
    await saveOffice();
    const { batchId, ids } = await batchOf([
      { reference: 'C-1', recipients: [signer('Ann', 'ann@example.com')] },
    ]);
    await handlers['sending.start'](batchId);
    await until('C-1 prepared', async () =>
      (await handlers['batches.get'](batchId)).documents[0]?.class === 'waiting' ? true : undefined,
    );

    const review = await handlers['sending.review'](batchId);

    expect(review.documentIds).toEqual([]);
    expect(review.people).toBe(0);
    expect(review.connection).toMatchObject({ name: 'Office', bound: true });
    expect(ids['C-1']).toBeDefined();
  });
});

describe('a document’s content for its preview (documents.content)', () => {
  it('gives the bytes of the app’s own copy, base64, with the stored name', async () => {
    const { batchId, ids } = await batchOf([{ reference: 'D-1', recipients: [] }]);
    const original = readFileSync(files.file('D-1.pdf'));

    const content = await handlers['documents.content'](batchId, ids['D-1']!);

    expect(Buffer.from(content.base64, 'base64').equals(original)).toBe(true);
    expect(content.storedFilename).toBe('D-1.pdf');
  });

  it('says so, in the person’s words, when the app’s copy is gone', async () => {
    const { batchId, ids } = await batchOf([{ reference: 'F-1', recipients: [] }]);
    const [document] = (await handlers['batches.get'](batchId)).documents;
    rmSync(dataDir.blobs.pathOf(document!.sha256));

    await expect(handlers['documents.content'](batchId, ids['F-1']!)).rejects.toThrow(
      "The app's copy of this document cannot be read",
    );
  });

  it('refuses a document that is not in the batch', async () => {
    const { batchId } = await batchOf([{ reference: 'E-1', recipients: [] }]);
    await expect(handlers['documents.content'](batchId, 'no-such-document')).rejects.toThrow(
      'no longer in the batch',
    );
  });
});
