import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../simulator/simulator';
import { bundleCli, killAllCli, parseJsonLines, runCli, startCli } from '../../support/cli-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import {
  expectExactlyOnePreparedRequestEach,
  readLocalDocuments,
  writeContractManifest,
  type ContractManifest,
} from './cli-fixtures';

const OFFLINE_REASON = 'The signing service cannot be reached. Sending resumes by itself.';
const HOUR = 3_600_000;

let files: TempFolder;
let cliPath: string;
let sim: Simulator | undefined;
let work: TempFolder | undefined;

beforeAll(async () => {
  files = makeTempFolder('desk-cli-storm-');
  cliPath = await bundleCli(files.path);
}, 60_000);

afterEach(async () => {
  await killAllCli();
  await sim?.close();
  sim = undefined;
  work?.remove();
  work = undefined;
});

afterAll(() => files?.remove());

function sendArgs(
  manifest: ContractManifest,
  dataDir: string,
  baseUrl: string,
  concurrency: number,
): string[] {
  return [
    'send',
    manifest.path,
    '--base-url',
    baseUrl,
    '--data-dir',
    dataDir,
    '--json',
    '--concurrency',
    String(concurrency),
  ];
}

describe('send through unreliable conditions', () => {
  it('rides out 503s, 429s, dropped connections, expiring tokens and an outage, then exits 0 with one prepared request per document', async () => {
    work = makeTempFolder('desk-cli-storm-batch-');
    const manifest = await writeContractManifest(work, { count: 30, pages: 0, seed: 5 });
    // Tokens live 3 s by the service's clock: several renewals during the run.
    const service = await startSimulator({ seed: 5, tokenTtlSeconds: 3 });
    sim = service;
    service.faults.set({
      rate503: 0.2,
      rate429: 0.05,
      retryAfterSeconds: 1,
      dropBeforeRate: 0.05,
      dropAfterRate: 0.05,
      latencyMs: 10,
      latencySpikeRate: 0.1,
      latencySpikeMs: 400,
    });
    const dataDir = work.file('data');
    const cli = startCli(cliPath, sendArgs(manifest, dataDir, service.baseUrl, 4), {
      credentials: DEMO_CLIENT,
    });

    // In the middle of the batch the service goes away (connections refused) for at least 2 s,
    // and stays away until the engine says it is waiting for it (at most 30 s).
    let prepared = 0;
    let offline = false;
    let waitingWhileOffline = false;
    let outage: Promise<void> | undefined;
    cli.onStdoutLine((line) => {
      const event = JSON.parse(line) as { type: string; phase?: string; state?: string; reason?: string };
      if (event.type === 'item-progress' && event.phase === 'prepared') prepared += 1;
      if (
        offline &&
        event.type === 'engine-state' &&
        event.state === 'waiting' &&
        event.reason === OFFLINE_REASON
      )
        waitingWhileOffline = true;
      if (prepared >= 10 && !outage) {
        outage = (async () => {
          const wentOffline = Date.now();
          await service.goOffline();
          offline = true;
          await sleep(2_000);
          while (!waitingWhileOffline && Date.now() - wentOffline < 30_000) await sleep(50);
          offline = false;
          await service.goOnline();
        })();
      }
    });
    const result = await cli.done;
    await outage;

    expect(outage, 'the outage started in the middle of the batch').toBeDefined();
    expect(result.stderr).toBe('');
    const events = parseJsonLines(result.stdout);
    // No document may fail for a transient reason.
    expect(events.filter((event) => event.type === 'item-failed')).toEqual([]);
    expect(result.code, result.stdout.slice(-3_000)).toBe(0);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'engine-state', state: 'waiting', reason: OFFLINE_REASON }),
    );
    expect(waitingWhileOffline).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'summary', state: 'finished', prepared: 30, failed: 0 });

    // The storm really happened: faults of every kind and several token renewals.
    const calls = service.state.calls();
    const faults = new Set(calls.map((call) => call.fault));
    expect([...faults]).toEqual(expect.arrayContaining(['503', '429', 'dropBefore', 'dropAfter']));
    expect(calls.filter((call) => call.operation === 'token' && call.status === 200).length).toBeGreaterThan(
      1,
    );

    await expectExactlyOnePreparedRequestEach(service, manifest, dataDir);
    expect(service.state.violations()).toEqual([]);
  }, 180_000);

  it('uploads a document again when its upload expired before the request was created', async () => {
    work = makeTempFolder('desk-cli-expiry-');
    // One worker per document, so that every document is uploaded before the creates stall.
    const count = 8;
    const manifest = await writeContractManifest(work, { count, pages: 0, seed: 9 });
    const service = await startSimulator({ seed: 9 });
    sim = service;
    const dataDir = work.file('data');
    const args = sendArgs(manifest, dataDir, service.baseUrl, count);

    // First run: uploads succeed, but the service refuses every create (503) until the run is
    // killed, once every document's upload and create attempt are recorded.
    service.faults.set({ rate503: 1, pathPattern: 'signing-requests$' });
    const first = startCli(cliPath, args, { credentials: DEMO_CLIENT });
    const deadline = Date.now() + 60_000;
    for (;;) {
      const local = await readLocalDocuments(dataDir).catch(() => []);
      if (local.length === count && local.every((document) => document.uploadId && document.createAttempted))
        break;
      if (!first.running()) throw new Error(`the first run ended by itself:\n${first.stdout()}`);
      if (Date.now() > deadline) throw new Error('the uploads were not recorded within 60 s');
      await sleep(50);
    }
    await first.kill();
    expect(service.state.requests()).toEqual([]);
    expect(service.state.uploads()).toHaveLength(count);

    // A day and more later (the service's clock), the uploads have expired.
    service.faults.reset();
    service.clock.advance(25 * HOUR);
    expect(service.state.uploads().every((upload) => upload.expired)).toBe(true);

    const second = await runCli(cliPath, args, { credentials: DEMO_CLIENT });
    expect(second.stderr).toBe('');
    expect(second.code, second.stdout.slice(-3_000)).toBe(0);
    expect(parseJsonLines(second.stdout).at(-1)).toMatchObject({
      type: 'summary',
      state: 'finished',
      prepared: count,
      failed: 0,
    });

    const uploads = service.state.uploads();
    for (const document of manifest.documents) {
      const mine = uploads.filter((upload) => upload.filename === document.filename);
      expect(mine.length, document.filename).toBeGreaterThanOrEqual(2);
      const request = service.state.requests().find((r) => r.externalReference === document.reference);
      // The request is made from a fresh upload, not from the expired one.
      const used = mine.find((upload) => upload.uploadId === request?.uploadId);
      expect(used?.expired, document.reference).toBe(false);
    }
    await expectExactlyOnePreparedRequestEach(service, manifest, dataDir);
    expect(service.state.violations()).toEqual([]);
  }, 120_000);

  it('counts a prepare whose answer was lost as prepared, even when reading the request meets 503s for a while', async () => {
    work = makeTempFolder('desk-cli-prepare-');
    const manifest = await writeContractManifest(work, { count: 1, pages: 0, seed: 13 });
    const service = await startSimulator({ seed: 13 });
    sim = service;
    // The service prepares the request but the answer is lost; the client's retry meets
    // prepare_conflict and reads the request to see whether it is prepared, and that read
    // meets a run of 503s (more than one call retries) before the service answers again.
    service.faults.enqueue({ kind: 'dropAfter', pathPattern: '/prepare$' });
    for (let index = 0; index < 10; index += 1) {
      service.faults.enqueue({
        kind: '503',
        pathPattern: '^/api/v1/signing-requests/[^/]+$',
        retryAfterSeconds: 0,
      });
    }
    const dataDir = work.file('data');
    const result = await runCli(cliPath, sendArgs(manifest, dataDir, service.baseUrl, 1), {
      credentials: DEMO_CLIENT,
    });
    const events = parseJsonLines(result.stdout);
    // A transient failure must not turn into a failed document.
    expect(events.filter((event) => event.type === 'item-failed')).toEqual([]);
    expect(result.code).toBe(0);
    expect(events.at(-1)).toMatchObject({ type: 'summary', state: 'finished', prepared: 1, failed: 0 });
    await expectExactlyOnePreparedRequestEach(service, manifest, dataDir);
  }, 60_000);
});
