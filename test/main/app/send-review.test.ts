import { readFileSync, rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import { createMemoryCredentialStore } from '../../../main/credentials/credential-store';
import { openDataDir, type DataDir } from '../../../main/app/desk-core';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import type { DeskHandlers } from '../../../shared/ipc/contract';
import type { ReviewedSend } from '../../../shared/ipc/views';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { createTestDeskService, outcome, sendAsReviewed } from '../../support/desk-service-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';
import { serviceErrorCode } from '../../../shared/service/error-codes';

let files: TempFolder;
let dataDir: DataDir;
let sim: Simulator;
/** The service's, the data folder's and the desk's one clock. */
let clock: VirtualClock;
let service: DeskService;
let handlers: DeskHandlers;

beforeEach(async () => {
  files = makeTempFolder('send-review-');
  ({ sim, clock } = await startVirtualSimulator({ seed: 7 }));
  const opened = await openDataDir(files.file('data'), { clock });
  if (!opened.ok) throw new Error(opened.error);
  dataDir = opened.value;
  service = createTestDeskService(dataDir, createMemoryCredentialStore(), { clock });
  handlers = service.handlers;
});

afterEach(async () => {
  await clock.complete(service.close());
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
    await sendAsReviewed(handlers, batchId);
    await outcome(clock, 'C-1 prepared', async () =>
      (await handlers['batches.get'](batchId)).documents[0]?.class === 'waiting' ? true : undefined,
    );

    const review = await handlers['sending.review'](batchId);

    expect(review.documentIds).toEqual([]);
    expect(review.people).toBe(0);
    expect(review.connection).toMatchObject({ name: 'Office', bound: true });
    expect(ids['C-1']).toBeDefined();
  });
});

/** Confirming `reviewed` is refused as outdated: the person is told to review again, and nothing is sent. */
async function expectOutdated(batchId: string, reviewed: ReviewedSend): Promise<void> {
  await expect(handlers['sending.start'](batchId, reviewed)).rejects.toMatchObject({
    code: 'review_outdated',
    message: expect.stringContaining('The batch changed since you reviewed it'),
  });
  await clock.advance(60_000); // anything wrongly started would have called by now
  expect(sim.state.uploads()).toHaveLength(0);
  expect(sim.state.requests()).toHaveLength(0);
  expect((await handlers['batches.get'](batchId)).connection).toBeUndefined(); // not even bound
}

async function allWaiting(batchId: string, count: number): Promise<void> {
  await outcome(clock, `${count} waiting for signatures`, async () =>
    (await handlers['batches.get'](batchId)).documents.filter((document) => document.class === 'waiting')
      .length === count
      ? true
      : undefined,
  );
}

describe('confirming sends what was reviewed, or nothing (sending.start)', () => {
  it('a document added and made ready after the review: the confirmation is refused, nothing is sent; reviewed again, both go', async () => {
    await saveOffice();
    const { batchId, ids } = await batchOf([
      { reference: 'R-1', recipients: [signer('Ann', 'ann@example.com')] },
    ]);
    const review = await handlers['sending.review'](batchId);
    expect(review.reviewed?.documentIds).toEqual([ids['R-1']]);
    // Another window (the browser host's second tab) adds a document and makes it ready.
    await handlers['documents.addPaths'](batchId, [await writePdf(files, 'R-2.pdf', 'R-2')]);
    const added = (await handlers['batches.get'](batchId)).documents.find((d) => d.id !== ids['R-1'])!;
    await handlers['documents.update'](batchId, added.id, {
      externalReference: 'R-2',
      recipients: [signer('Eve', 'eve@example.com')],
    });

    await expectOutdated(batchId, review.reviewed!);

    const again = await handlers['sending.review'](batchId);
    expect(again.reviewed?.documentIds.sort()).toEqual([ids['R-1'], added.id].sort());
    await handlers['sending.start'](batchId, again.reviewed!);
    await allWaiting(batchId, 2);
    expect(sim.state.countByExternalReference()).toEqual({ 'R-1': 1, 'R-2': 1 });
  });

  it('a reviewed document edited after the review (another recipient), or the batch’s default recipients changed: refused', async () => {
    await saveOffice();
    const { batchId, ids } = await batchOf([
      { reference: 'E-1', recipients: [signer('Ann', 'ann@example.com')] },
    ]);
    const review = await handlers['sending.review'](batchId);
    await handlers['documents.update'](batchId, ids['E-1']!, {
      recipients: [signer('Eve', 'eve@example.com')],
    });
    await expectOutdated(batchId, review.reviewed!);

    const second = await handlers['sending.review'](batchId);
    await handlers['batches.setDefaults'](batchId, {
      defaultRecipients: [signer('Mallory', 'mallory@example.com')],
    });
    await expectOutdated(batchId, second.reviewed!);
  });

  it('a reviewed document removed after the review: refused', async () => {
    await saveOffice();
    const { batchId, ids } = await batchOf([
      { reference: 'G-1', recipients: [signer('Ann', 'ann@example.com')] },
      { reference: 'G-2', recipients: [signer('Bob', 'bob@example.com')] },
    ]);
    const review = await handlers['sending.review'](batchId);
    await handlers['documents.remove'](batchId, ids['G-2']!);
    await expectOutdated(batchId, review.reviewed!);
  });

  it('another connection activated between review and confirm: refused, the batch stays unbound and neither service hears of it', async () => {
    await saveOffice();
    const { batchId } = await batchOf([{ reference: 'S-1', recipients: [signer('Ann', 'ann@example.com')] }]);
    const review = await handlers['sending.review'](batchId);
    expect(review.reviewed?.connection).toEqual({ baseUrl: sim.baseUrl, clientId: DEMO_CLIENT.clientId });
    const { sim: other } = await startVirtualSimulator({ seed: 8 }, clock);
    try {
      await handlers['profiles.save']({
        name: 'Other',
        baseUrl: other.baseUrl,
        clientId: DEMO_CLIENT.clientId,
        secret: DEMO_CLIENT.clientSecret,
      });
      await handlers['profiles.activate']('Other');

      await expectOutdated(batchId, review.reviewed!);
      expect(other.state.uploads()).toHaveLength(0);

      // Reviewed again, the review names the connection it now goes to, and it goes there.
      const again = await handlers['sending.review'](batchId);
      expect(again.connection).toMatchObject({ name: 'Other', baseUrl: other.baseUrl });
      await handlers['sending.start'](batchId, again.reviewed!);
      await allWaiting(batchId, 1);
      expect(other.state.countByExternalReference()).toEqual({ 'S-1': 1 });
      expect(sim.state.uploads()).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('a confirmation naming another connection than the one reviewed (a tampered page) is refused', async () => {
    await saveOffice();
    const { batchId } = await batchOf([{ reference: 'X-1', recipients: [signer('Ann', 'ann@example.com')] }]);
    const review = await handlers['sending.review'](batchId);
    await expectOutdated(batchId, {
      ...review.reviewed!,
      connection: { baseUrl: 'https://elsewhere.example', clientId: DEMO_CLIENT.clientId },
    });
  });

  it('a confirmation while the batch is being sent (a retry or a resume started meanwhile) is refused, not silently dropped', async () => {
    await saveOffice();
    const { batchId, ids } = await batchOf([
      { reference: 'W-1', recipients: [signer('Ann', 'ann@example.com')] },
    ]);
    sim.faults.set({ dropBeforeRate: 1 }); // W-1 stays on its way: the batch keeps sending
    await sendAsReviewed(handlers, batchId);
    await handlers['documents.addPaths'](batchId, [await writePdf(files, 'W-2.pdf', 'W-2')]);
    const added = (await handlers['batches.get'](batchId)).documents.find((d) => d.id !== ids['W-1'])!;
    await handlers['documents.update'](batchId, added.id, {
      externalReference: 'W-2',
      recipients: [signer('Bob', 'bob@example.com')],
    });
    const review = await handlers['sending.review'](batchId);
    expect(review.reviewed?.documentIds).toEqual([added.id]);

    await expect(handlers['sending.start'](batchId, review.reviewed!)).rejects.toMatchObject({
      code: 'already_sending',
      message: expect.stringContaining('This batch is being sent right now'),
    });
    await clock.complete(handlers['sending.pause'](batchId));
    expect((await handlers['batches.get'](batchId)).documents.find((d) => d.id === added.id)?.class).toBe(
      'not_sent',
    );
  });

  it('confirming the same review twice at once (two tabs) sends each document once', async () => {
    await saveOffice();
    const { batchId } = await batchOf([
      { reference: 'T-1', recipients: [signer('Ann', 'ann@example.com')] },
      { reference: 'T-2', recipients: [signer('Bob', 'bob@example.com')] },
    ]);
    const review = await handlers['sending.review'](batchId);
    await Promise.allSettled([
      handlers['sending.start'](batchId, review.reviewed!),
      handlers['sending.start'](batchId, review.reviewed!),
    ]);
    await allWaiting(batchId, 2);
    expect(sim.state.countByExternalReference()).toEqual({ 'T-1': 1, 'T-2': 1 });
  });
});

describe('only the review sends a document never queued (sending.resume, retries)', () => {
  it('"Resume sending" after a pause continues the queued document only; one made ready since stays not sent', async () => {
    await saveOffice();
    const { batchId, ids } = await batchOf([
      { reference: 'P-1', recipients: [signer('Ann', 'ann@example.com')] },
    ]);
    sim.faults.set({ dropBeforeRate: 1 }); // the service is out of reach: P-1 stays on its way
    await sendAsReviewed(handlers, batchId);
    await outcome(clock, 'waiting for the service', async () =>
      (await handlers['batches.get'](batchId)).engine.state === 'waiting' ? true : undefined,
    );
    await clock.complete(handlers['sending.pause'](batchId));
    await outcome(clock, 'paused', async () =>
      (await handlers['batches.get'](batchId)).engine.state === 'paused' ? true : undefined,
    );
    await handlers['documents.addPaths'](batchId, [await writePdf(files, 'P-2.pdf', 'P-2')]);
    const added = (await handlers['batches.get'](batchId)).documents.find((d) => d.id !== ids['P-1'])!;
    await handlers['documents.update'](batchId, added.id, {
      externalReference: 'P-2',
      recipients: [signer('Bob', 'bob@example.com')],
    });
    sim.faults.set({ dropBeforeRate: 0 });

    await handlers['sending.resume'](batchId);

    await allWaiting(batchId, 1);
    await outcome(clock, 'finished', async () =>
      (await handlers['batches.get'](batchId)).engine.state === 'finished' ? true : undefined,
    );
    const after = await handlers['batches.get'](batchId);
    expect(after.documents.find((d) => d.id === added.id)?.class).toBe('not_sent');
    expect(sim.state.countByExternalReference()).toEqual({ 'P-1': 1 });
  });

  it('"Resume sending" with nothing queued sends nothing and binds nothing', async () => {
    await saveOffice();
    const { batchId } = await batchOf([{ reference: 'N-1', recipients: [signer('Ann', 'ann@example.com')] }]);
    await handlers['sending.resume'](batchId);
    await clock.advance(60_000);
    expect(sim.state.uploads()).toHaveLength(0);
    expect((await handlers['batches.get'](batchId)).connection).toBeUndefined();
  });

  it('retrying a failed document does not send a document made ready since', async () => {
    await saveOffice();
    const { batchId, ids } = await batchOf([
      { reference: 'F-1', recipients: [signer('Ann', 'ann@example.com')] },
    ]);
    sim.faults.enqueue({
      kind: 'reject',
      pathPattern: '^/api/v1/signing-requests$',
      status: 422,
      code: 'invalid_signing_request',
    });
    await sendAsReviewed(handlers, batchId);
    await outcome(clock, 'F-1 failed', async () =>
      (await handlers['batches.get'](batchId)).documents[0]?.class === 'failed' ? true : undefined,
    );
    await handlers['documents.addPaths'](batchId, [await writePdf(files, 'F-2.pdf', 'F-2')]);
    const added = (await handlers['batches.get'](batchId)).documents.find((d) => d.id !== ids['F-1'])!;
    await handlers['documents.update'](batchId, added.id, {
      externalReference: 'F-2',
      recipients: [signer('Bob', 'bob@example.com')],
    });

    await handlers['sending.retry'](batchId, ids['F-1']!);

    await allWaiting(batchId, 1);
    await clock.advance(60_000);
    expect((await handlers['batches.get'](batchId)).documents.find((d) => d.id === added.id)?.class).toBe(
      'not_sent',
    );
    expect(Object.keys(sim.state.countByExternalReference())).toEqual(['F-1']);
  });
});

describe('what stays behind, and why, in the person’s language', () => {
  it('a failed document and one that needs the person’s check are listed with what to do', async () => {
    await saveOffice();
    const { batchId, ids } = await batchOf([
      { reference: 'K-1', recipients: [signer('Ann', 'ann@example.com')] },
      { reference: 'K-2', recipients: [signer('Bob', 'bob@example.com')] },
      { reference: 'K-3', recipients: [signer('Cid', 'cid@example.com')] },
    ]);
    const at = new Date(clock.now()).toISOString();
    await dataDir.store.record(batchId, [
      { type: 'send_requested', documentIds: [ids['K-1']!, ids['K-2']!] },
      {
        type: 'item_failed',
        documentId: ids['K-1']!,
        error: {
          code: serviceErrorCode('invalid_signing_request'),
          message: 'Refused.',
          retryable: false,
          at,
        },
      },
      { type: 'check_needed', documentId: ids['K-2']!, reason: 'created_without_id' },
    ]);

    const review = await handlers['sending.review'](batchId);

    expect(review.documentIds).toEqual([ids['K-3']]);
    expect(review.blocked).toEqual([
      { id: ids['K-1'], externalReference: 'K-1', problems: ['It failed: retry it from its row.'] },
      {
        id: ids['K-2'],
        externalReference: 'K-2',
        problems: ['It needs your check: resolve that from its row first.'],
      },
    ]);
  });

  it('in French, the review says why a document stays behind in French, as its row does', async () => {
    await clock.complete(service.close());
    service = createTestDeskService(dataDir, createMemoryCredentialStore(), {
      systemLocales: ['fr-FR'],
      clock,
    });
    handlers = service.handlers;
    await saveOffice();
    const { batchId } = await batchOf([
      { reference: 'L-1', recipients: [signer('Ann', 'ann@example.com')] },
      { reference: 'L-2', recipients: [] },
    ]);
    const row = (await handlers['batches.get'](batchId)).documents.find(
      (d) => d.externalReference === 'L-2',
    )!;

    const review = await handlers['sending.review'](batchId);

    expect(review.blocked).toHaveLength(1);
    expect(review.blocked[0]!.problems).toEqual(row.problems);
    expect(review.blocked[0]!.problems).toContain('Ajoutez au moins un destinataire.');
  });
});

describe('a draft another batch already sent', () => {
  it('is held back in the review and on its row, naming that batch; "send anew on purpose" lets it go; on a document already sent it is refused and changes nothing', async () => {
    await saveOffice();
    const first = await batchOf([{ reference: 'H-1', recipients: [signer('Ann', 'ann@example.com')] }]);
    await sendAsReviewed(handlers, first.batchId);
    await allWaiting(first.batchId, 1);
    const copy = await batchOf([{ reference: 'H-1', recipients: [signer('Ann', 'ann@example.com')] }]);
    const heldId = copy.ids['H-1']!;

    const review = await handlers['sending.review'](copy.batchId);
    expect(review.documentIds).toEqual([]);
    expect(review.blocked).toEqual([
      {
        id: heldId,
        externalReference: 'H-1',
        problems: [
          expect.stringContaining(
            'in the batch “Contracts” already has, or may have, a signing request for H-1',
          ),
        ],
      },
    ]);
    const row = (await handlers['batches.get'](copy.batchId)).documents[0]!;
    expect(row.heldBy).toMatchObject({ batchId: first.batchId, batchName: 'Contracts', fileName: 'H-1.pdf' });

    // The page asks "send anew" for the document already sent: refused, and nothing recorded for it.
    const sentId = first.ids['H-1']!;
    const journal = () => readFileSync(files.file(`data/batches/${first.batchId}/journal.log`), 'utf8');
    const before = journal();
    await expect(handlers['sending.sendAsNew'](first.batchId, sentId)).rejects.toMatchObject({
      code: 'check_answer_refused',
      message: expect.stringContaining('H-1 does not need a check'),
    });
    expect(journal()).toBe(before);

    // On purpose, for the held draft: it goes in the next review, and makes a second request.
    await handlers['sending.sendAsNew'](copy.batchId, heldId);
    const again = await handlers['sending.review'](copy.batchId);
    expect(again.documentIds).toEqual([heldId]);
    expect((await handlers['batches.get'](copy.batchId)).documents[0]!.heldBy).toBeUndefined();
    await handlers['sending.start'](copy.batchId, again.reviewed!);
    await allWaiting(copy.batchId, 1);
    expect(sim.state.countByExternalReference()).toEqual({ 'H-1': 2 });
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

describe('a draft whose contract another batch already sent', () => {
  it('is held back by the review and its row, naming the batch; sent anew on purpose it goes in the next review, a second request then', async () => {
    await saveOffice();
    const first = await batchOf([{ reference: 'HR-7', recipients: [signer('Ann', 'ann@example.com')] }]);
    await sendAsReviewed(handlers, first.batchId);
    await outcome(clock, 'HR-7 waiting', async () =>
      (await handlers['batches.get'](first.batchId)).documents[0]?.class === 'waiting' ? true : undefined,
    );
    // The same contract in a second batch (a folder imported twice).
    const second = await handlers['batches.create']('Contracts again');
    await handlers['documents.addPaths'](second.id, [files.file('HR-7.pdf')]);
    const [draft] = (await handlers['batches.get'](second.id)).documents;
    await handlers['documents.update'](second.id, draft!.id, {
      externalReference: 'HR-7',
      recipients: [signer('Ann', 'ann@example.com')],
    });

    const review = await handlers['sending.review'](second.id);
    expect(review.documentIds).toEqual([]);
    expect(review.blocked).toEqual([
      {
        id: draft!.id,
        externalReference: 'HR-7',
        problems: [
          'HR-7.pdf in the batch “Contracts” already has, or may have, a signing request for HR-7 at this service: it is not sent again. Carry on with that batch, give this document its own reference, or send it anew on purpose from its row.',
        ],
      },
    ]);
    const row = (await handlers['batches.get'](second.id)).documents[0]!;
    expect(row.heldBy).toMatchObject({
      batchId: first.batchId,
      batchName: 'Contracts',
      fileName: 'HR-7.pdf',
    });

    // On purpose, after the row's warning: it goes in the next review, under a key of its own.
    await handlers['sending.sendAsNew'](second.id, draft!.id);
    expect((await handlers['batches.get'](second.id)).documents[0]!.heldBy).toBeUndefined();
    const again = await handlers['sending.review'](second.id);
    expect(again.documentIds).toEqual([draft!.id]);
    await sendAsReviewed(handlers, second.id);
    await outcome(clock, 'the second HR-7 waiting', async () =>
      (await handlers['batches.get'](second.id)).documents[0]?.class === 'waiting' ? true : undefined,
    );
    expect(sim.state.countByExternalReference()).toEqual({ 'HR-7': 2 });
  });

  it('the same PDF added twice to a batch is one document, and the answer says so', async () => {
    const batch = await handlers['batches.create']('Offers');
    const path = await writePdf(files, 'offer.pdf', 'Offer');
    const added = await handlers['documents.addPaths'](batch.id, [path, `${files.path}/./offer.pdf`]);
    expect(added.added).toBe(1);
    expect(added.rejected).toEqual([
      {
        path: `${files.path}/./offer.pdf`,
        code: 'already_in_batch',
        message:
          'offer.pdf is already in this batch as offer.pdf: the same PDF under the same reference is one contract, so it was not added again.',
      },
    ]);
    const later = await handlers['documents.addPaths'](batch.id, [path]);
    expect(later.added).toBe(0);
    expect((await handlers['batches.get'](batch.id)).documents).toHaveLength(1);
  });
});
