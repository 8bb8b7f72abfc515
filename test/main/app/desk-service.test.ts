import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionTester } from '../../../main/app/connection-tester';
import { createDeskService, type DeskService } from '../../../main/app/desk-service';
import type { CeremonyOpener, CeremonyRequest } from '../../../main/app/ports';
import { profileRegistry } from '../../../main/browser-host/launch';
import { createMemoryCredentialStore } from '../../../main/credentials/credential-store';
import { openDataDir, type DataDir } from '../../../main/app/desk-core';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { dispatchInvoke } from '../../../main/app/ipc-dispatch';
import { PREVIEW_DOCUMENTS } from '../../../main/manifest/manifest';
import { silentLogger } from '../../../main/base/log';
import { ADD_PATHS_MAX, type DeskHandlers } from '../../../shared/ipc/contract';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import { createTestDeskService, outcome, sendAsReviewed } from '../../support/desk-service-harness';
import { startVirtualSimulator } from '../../support/virtual-world';

/** A ceremony opener that keeps its windows in a map and can be told to fail. */
class RecordingCeremonies implements CeremonyOpener {
  readonly open = async (request: CeremonyRequest): Promise<void> => {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('the window could not be created');
    }
    this.windows.set(request.key, request);
  };
  readonly focus = (key: string): boolean => this.windows.has(key);
  readonly windows = new Map<string, CeremonyRequest>();
  failNext = false;
}

let files: TempFolder;
let dataDir: DataDir;
let sims: Simulator[];
/** The services', the data folder's and the desk's one clock. */
let clock: VirtualClock;
let service: DeskService;
let handlers: DeskHandlers;
let ceremonies: RecordingCeremonies;
let nextReportPath: string | undefined;
let events: { event: string; payload: unknown }[];

beforeEach(async () => {
  files = makeTempFolder('desk-service-');
  const first = await startVirtualSimulator({ seed: 1 });
  clock = first.clock;
  sims = [first.sim, (await startVirtualSimulator({ seed: 2 }, clock)).sim];
  const opened = await openDataDir(files.file('data'), { clock });
  if (!opened.ok) throw new Error(opened.error);
  dataDir = opened.value;
  ceremonies = new RecordingCeremonies();
  events = [];
  nextReportPath = undefined;
  service = createTestDeskService(dataDir, createMemoryCredentialStore(), {
    clock,
    dialogs: { pickReportPath: async () => nextReportPath },
    ceremony: ceremonies,
    emit: (event, payload) => events.push({ event, payload }),
  });
  handlers = service.handlers;
});

afterEach(async () => {
  await clock.complete(service.close());
  await dataDir.close();
  for (const sim of sims) await sim.close();
  files.remove();
});

/** A batch of one real PDF with one signer, sent and prepared with the active connection. */
async function sendOneDocument(name: string): Promise<{ batchId: string; documentId: string }> {
  const batch = await handlers['batches.create'](name);
  const pdf = await writePdf(files, `${name}.pdf`, name);
  await handlers['documents.addPaths'](batch.id, [pdf]);
  const [document] = (await handlers['batches.get'](batch.id)).documents;
  if (!document) throw new Error('no document');
  await handlers['documents.update'](batch.id, document.id, {
    externalReference: name,
    recipients: [
      { participant_type: 'signer', role: 'Employee', name: 'Anne Dupré', email: 'anne@example.com' },
    ],
  });
  await sendAsReviewed(handlers, batch.id);
  const [sent] = await outcome(clock, `${name} prepared or failed`, async () => {
    const { documents } = await handlers['batches.get'](batch.id);
    return ['prepared', 'failed'].includes(documents[0]?.phase ?? '') ? documents : undefined;
  });
  if (sent?.phase === 'failed') throw new Error(sent.error?.message);
  return { batchId: batch.id, documentId: document.id };
}

describe('the desk service', () => {
  it('uses a saved profile’s new address at once, with the secret typed again', async () => {
    const [first, second] = sims as [Simulator, Simulator];
    await handlers['profiles.save']({
      name: 'Office',
      baseUrl: first.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      secret: DEMO_CLIENT.clientSecret,
    });
    await sendOneDocument('FIRST-1');
    expect(first.state.countByExternalReference()).toEqual({ 'FIRST-1': 1 });

    // Without the secret, moving the profile is refused; with it, the next batch goes there.
    await expect(
      handlers['profiles.save']({ name: 'office', baseUrl: second.baseUrl, clientId: DEMO_CLIENT.clientId }),
    ).rejects.toThrow('Enter the client secret again');
    await handlers['profiles.save']({
      name: 'office',
      baseUrl: second.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      secret: DEMO_CLIENT.clientSecret,
    });
    await sendOneDocument('SECOND-1');
    expect(second.state.countByExternalReference()).toEqual({ 'SECOND-1': 1 });
    expect(first.state.countByExternalReference()).toEqual({ 'FIRST-1': 1 });
  });

  it('brings an open ceremony forward instead of opening a second session, and reports a window that failed', async () => {
    const [sim] = sims as [Simulator];
    await handlers['profiles.save']({
      name: 'Office',
      baseUrl: sim.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      secret: DEMO_CLIENT.clientSecret,
    });
    const { batchId, documentId } = await sendOneDocument('CEREMONY-1');
    const sessions = () =>
      sim.state.calls().filter((call) => call.operation === 'createWidgetSession').length;

    expect(await clock.complete(handlers['ceremony.open'](batchId, documentId))).toEqual({
      alreadyOpen: false,
      expiresInSeconds: 900,
    });
    expect(await handlers['ceremony.open'](batchId, documentId)).toEqual({ alreadyOpen: true });
    expect(sessions()).toBe(1);

    ceremonies.windows.clear();
    ceremonies.failNext = true;
    await expect(handlers['ceremony.open'](batchId, documentId)).rejects.toThrow(
      'the window could not be created',
    );
    expect(ceremonies.windows.size).toBe(0);
  });

  it('announces a pause of tracking, so the window and the tray follow', async () => {
    service.setTrackingPaused(true);
    expect((await handlers['app.info']()).trackingPaused).toBe(true);
    service.setTrackingPaused(false);
    expect(events.filter((event) => event.event === 'tracking.paused').map((event) => event.payload)).toEqual(
      [{ paused: true }, { paused: false }],
    );
  });

  // The PDFs are copied a group of 200 at a time, made durable together and recorded in one
  // journal append a group: 1.6 s here on a busy machine (15–30 s when each copy was made durable
  // alone); the limit leaves room for a slow disk.
  it('adds a folder of 2,001 PDFs (more than calls once took) in one call, through the contract every window calls', async () => {
    const batch = await handlers['batches.create']('Folder of scans');
    const folder = files.file('scans');
    mkdirSync(folder);
    const original = await writePdf(files, 'scan.pdf', 'Scan');
    const paths = Array.from({ length: 2001 }, (_, index) => {
      const path = join(folder, `scan-${String(index + 1).padStart(4, '0')}.pdf`);
      copyFileSync(original, path);
      return path;
    });
    const answer = await dispatchInvoke(
      handlers,
      'documents.addPaths',
      [batch.id, paths, folder],
      silentLogger,
    );
    expect(answer).toEqual({ ok: true, value: { added: 2001, rejected: [] } });
    expect((await handlers['batches.get'](batch.id)).documents).toHaveLength(2001);

    // Above the product's goal of 10,000 documents a call, the contract still says no.
    const tooMany = Array.from({ length: ADD_PATHS_MAX + 1 }, () => paths[0] ?? '');
    expect(
      await dispatchInvoke(handlers, 'documents.addPaths', [batch.id, tooMany], silentLogger),
    ).toMatchObject({
      ok: false,
      error: { code: 'invalid_arguments' },
    });
  }, 30_000);

  it('previews a manifest of 1,000 documents with the first 200 and the totals, and imports all of them', async () => {
    await writePdf(files, 'contract.pdf', 'Contract');
    const rows = Array.from(
      { length: 1_000 },
      (_, index) => `contract.pdf,REF-${index},signer,Employee,Anne,anne${index}@example.com`,
    );
    const manifest = files.file('big.csv');
    writeFileSync(
      manifest,
      ['document,external_reference,participant_type,role,name,email', ...rows].join('\n'),
    );
    const preview = await handlers['manifest.preview'](manifest);
    expect(preview.issues).toEqual([]);
    expect([preview.documentCount, preview.recipientCount]).toEqual([1_000, 1_000]);
    expect(preview.documents.map((document) => document.externalReference)).toEqual(
      Array.from({ length: PREVIEW_DOCUMENTS }, (_, index) => `REF-${index}`),
    );
    const batch = await handlers['batches.create']('A thousand');
    expect((await handlers['manifest.import'](batch.id, manifest)).added).toBe(1_000);
  }, 60_000);

  it('refuses to read a manifest that is not a CSV file, before reading it', async () => {
    const secretFile = files.file('id_rsa');
    writeFileSync(secretFile, 'document,external_reference\nPRIVATE KEY,x\n');
    await expect(handlers['manifest.preview'](secretFile)).rejects.toThrow(
      'A manifest is a CSV file (.csv, or .txt): choose the CSV exported from your spreadsheet.',
    );
    const batch = await handlers['batches.create']('Manifest batch');
    await expect(handlers['manifest.import'](batch.id, secretFile)).rejects.toThrow(
      'A manifest is a CSV file',
    );
  });

  it('lists the batches of the data folder it could not read, and leaves them alone', async () => {
    const batch = await handlers['batches.create']('Will be damaged');
    await service.close();
    await dataDir.close();
    const journal = join(files.file('data'), 'batches', batch.id, 'journal.log');
    writeFileSync(journal, readFileSync(journal, 'utf8').replace('Will be damaged', 'Will be damagee'));
    const reopened = await openDataDir(files.file('data'));
    if (!reopened.ok) throw new Error(reopened.error);
    dataDir = reopened.value;
    service = createDeskService({
      host: 'browser',
      version: 'test',
      dataDir,
      profiles: profileRegistry(dataDir.path, createMemoryCredentialStore()),
      dialogs: {
        pickPdfs: async () => [],
        pickFolder: async () => undefined,
        pickManifest: async () => undefined,
        pickReportPath: async () => undefined,
      },
      ceremony: ceremonies,
      notifier: { notify: () => undefined },
      emit: () => undefined,
      testConnection: connectionTester(silentLogger),
    });
    expect((await service.handlers['app.info']()).damagedBatches).toEqual([
      { batchId: batch.id, problem: `the line fails its checksum (${journal}, line 1)` },
    ]);
    expect(await service.handlers['batches.list']()).toEqual([]);
  });

  it('exports the report where the save dialog says, and nowhere when it is cancelled', async () => {
    const batch = await handlers['batches.create']('Report batch');
    nextReportPath = files.file('status.csv');
    expect(await handlers['report.export'](batch.id)).toBe(nextReportPath);
    expect(readFileSync(nextReportPath, 'utf8')).toMatch(/^\uFEFF"Batch","External reference",/);
    // In the person's language, with their spreadsheet's list separator.
    await handlers['app.setLanguage']('fr');
    expect(await handlers['report.export'](batch.id)).toBe(nextReportPath);
    expect(readFileSync(nextReportPath, 'utf8')).toMatch(/^\uFEFF"Lot";"Référence externe";/);
    await handlers['app.setLanguage']('system');

    nextReportPath = undefined;
    expect(await handlers['report.export'](batch.id)).toBeNull();

    nextReportPath = files.file('no such folder/status.csv');
    await expect(handlers['report.export'](batch.id)).rejects.toThrow(
      /could not be saved at .*no such folder\/status\.csv \(ENOENT\)\. Choose another folder\./,
    );
  });
});
