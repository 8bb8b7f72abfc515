import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import { openDataDir, type DataDir } from '../../../main/app/desk-core';
import {
  createMemoryCredentialStore,
  type CredentialStore,
} from '../../../main/credentials/credential-store';
import { nodeFileSystem, type FileSystem } from '../../../main/store/file-system';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import type { DeskHandlers } from '../../../shared/ipc/contract';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import {
  createTestDeskService,
  draftOneDocumentBatch,
  outcome,
  sendAsReviewed,
  sendOneDocumentBatch,
} from '../../support/desk-service-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';

/**
 * A year of finished batches costs the memory of their outlines: a batch at rest (every request
 * signed, ended, gone or failed) is not read when the desk starts, lists, counts or checks a
 * contract, only when the person opens it. What is not at rest stays in memory, so its requests
 * are tracked and its documents sent whether anyone opened it or not, and nothing is sent twice.
 */

let files: TempFolder;
let sim: Simulator;
let clock: VirtualClock;
let credentials: CredentialStore;
let dataDir: DataDir;
let service: DeskService;
let handlers: DeskHandlers;
/** Every file the desk read since it last started, in order. */
let reads: string[];
/** The batches of the completions the desk announced since it last started. */
let completedEvents: string[];

/** The real disk, with every file read listed in `reads`. */
const countingFileSystem: FileSystem = {
  mkdir: (path, options) => nodeFileSystem.mkdir(path, options),
  readFile: ((path: string, encoding?: 'utf8') => {
    reads.push(path);
    return encoding === undefined ? nodeFileSystem.readFile(path) : nodeFileSystem.readFile(path, encoding);
  }) as FileSystem['readFile'],
  readdir: (path) => nodeFileSystem.readdir(path),
  stat: (path) => nodeFileSystem.stat(path),
  open: (path, flags, mode) => nodeFileSystem.open(path, flags, mode),
  rename: (from, to) => nodeFileSystem.rename(from, to),
  rm: (path, options) => nodeFileSystem.rm(path, options),
  syncDirectory: (path) => nodeFileSystem.syncDirectory(path),
  createReadStream: (path, options) => nodeFileSystem.createReadStream(path, options),
};

/** Opens the data folder and its desk, as a start of the app does. */
async function startDesk(): Promise<void> {
  reads = [];
  completedEvents = [];
  const opened = await openDataDir(files.file('data'), { clock, fs: countingFileSystem });
  if (!opened.ok) throw new Error(opened.error);
  dataDir = opened.value;
  service = createTestDeskService(dataDir, credentials, {
    clock,
    emit: (event, payload) => {
      if (event === 'tracking.completed') completedEvents.push((payload as { batchId: string }).batchId);
    },
  });
  handlers = service.handlers;
  await clock.complete(service.start());
}

async function restartDesk(): Promise<void> {
  await clock.complete(service.close());
  await dataDir.close();
  await startDesk();
}

const snapshotReads = (batchId: string) =>
  reads.filter((path) => path === join(files.file('data'), 'batches', batchId, 'snapshot.json')).length;

/** Signs the request of `reference` at the service, and waits until the desk shows it completed. */
async function signAndSee(batchId: string, reference: string): Promise<void> {
  const request = sim.state.requests().find((candidate) => candidate.externalReference === reference);
  sim.complete(request!.id);
  await outcome(clock, `${reference} completed in the list`, async () => {
    const row = (await handlers['batches.list']()).find((batch) => batch.id === batchId);
    return row?.counts.completed === 1 ? true : undefined;
  });
}

beforeEach(async () => {
  files = makeTempFolder('desk-at-rest-');
  ({ sim, clock } = await startVirtualSimulator({ seed: 13 }));
  credentials = createMemoryCredentialStore();
  await startDesk();
  await handlers['profiles.save']({
    name: 'Office',
    baseUrl: sim.baseUrl,
    clientId: DEMO_CLIENT.clientId,
    secret: DEMO_CLIENT.clientSecret,
  });
});

afterEach(async () => {
  await clock.complete(service.close());
  await dataDir.close();
  await sim.close();
  files.remove();
});

describe('batches at rest', () => {
  it('are listed and counted unread after a restart, while the requests of batches nobody opened are tracked to completion', async () => {
    const spring = await sendOneDocumentBatch(handlers, files, 'SPRING-1', clock);
    const summer = await sendOneDocumentBatch(handlers, files, 'SUMMER-1', clock);
    await signAndSee(spring, 'SPRING-1');

    await restartDesk();
    // The finished batch is taken from what it keeps: its snapshot is not read, nor held.
    expect(snapshotReads(spring)).toBe(0);
    expect(dataDir.store.get(spring)).toBeUndefined();
    const listed = await handlers['batches.list']();
    const rows = listed.map((batch) => [batch.name, batch.counts.completed, batch.counts.waiting]);
    expect(rows.sort()).toEqual([
      ['SPRING-1', 1, 0],
      ['SUMMER-1', 0, 1],
    ]);
    expect(service.trayCounts()).toEqual({
      sending: 0,
      waiting: 1,
      completedToday: 1,
      endedToday: 0,
      unknownStatus: 0,
    });
    expect(snapshotReads(spring)).toBe(0);

    // Nobody opened the summer batch since the start: its request is read, and its completion
    // recorded into it, all the same.
    await signAndSee(summer, 'SUMMER-1');
    expect(completedEvents).toEqual([summer]);
    expect(service.trayCounts()).toMatchObject({ waiting: 0, completedToday: 2 });

    // Opened, the spring batch is read once, whole.
    const opened = await handlers['batches.get'](spring);
    expect(opened.documents.map((document) => [document.externalReference, document.class])).toEqual([
      ['SPRING-1', 'completed'],
    ]);
    await handlers['batches.get'](spring);
    expect(snapshotReads(spring)).toBe(1);
  });

  it('send nothing twice: a contract a batch at rest holds is held back elsewhere, and the batch opened after rest sends only what is new', async () => {
    const autumn = await sendOneDocumentBatch(handlers, files, 'AUTUMN-1', clock);
    await signAndSee(autumn, 'AUTUMN-1');
    await restartDesk();

    // The same contract in a new batch: the batch at rest holds it, though it is not in memory.
    const copy = await draftOneDocumentBatch(handlers, files, 'AUTUMN-1');
    const review = await clock.complete(handlers['sending.review'](copy));
    expect(review.documentIds).toEqual([]);
    expect(review.blocked.map((document) => document.problems.join(' '))).toEqual([
      expect.stringContaining('AUTUMN-1'),
    ]);
    expect(snapshotReads(autumn)).toBe(0);

    // The batch at rest, opened and given one more document, sends that one only.
    const pdf = await writePdf(files, 'AUTUMN-2.pdf', 'AUTUMN-2');
    await handlers['documents.addPaths'](autumn, [pdf]);
    const added = (await handlers['batches.get'](autumn)).documents.find(
      (document) => document.externalReference !== 'AUTUMN-1',
    );
    await handlers['documents.update'](autumn, added!.id, {
      externalReference: 'AUTUMN-2',
      recipients: [{ participant_type: 'signer', role: 'Employee', name: 'Ann', email: 'ann@example.com' }],
    });
    await clock.complete(sendAsReviewed(handlers, autumn));
    await outcome(clock, 'AUTUMN-2 prepared', async () => {
      const { documents } = await handlers['batches.get'](autumn);
      const second = documents.find((document) => document.externalReference === 'AUTUMN-2');
      return second?.phase === 'prepared' ? true : undefined;
    });
    expect(sim.state.countByExternalReference()).toEqual({ 'AUTUMN-1': 1, 'AUTUMN-2': 1 });
  });
});
