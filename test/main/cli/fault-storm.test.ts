import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_HOLDS_FILE } from '../../../main/store/service-holds';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_CLIENT,
  describeVariant,
  startSimulator,
  variantsForSuite,
  type Simulator,
} from '../../../simulator/simulator';
import { answerChecksWithCli, describeCheckAnswers } from '../../support/cli-checks';
import { runCliHere } from '../../support/cli-in-process';
import { bundleCli, killAllCli, parseJsonLines, runCli, startCli } from '../../support/cli-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';
import {
  duplicateReferences,
  expectExactlyOnePreparedRequestEach,
  readLocalDocuments,
  variantSeed,
  writeContractManifest,
  type ContractManifest,
} from './cli-fixtures';

/**
 * `send` through a storm of transient failures, against every service the spec allows
 * (`variantsForSuite()`, printed in each test's name; replay one with SIM_VARIANTS=<name>).
 * Dropped connections and gateway errors can leave a creation's outcome unknown; the app may
 * then ask the user ("needs your check") instead of sending a document again, and the test
 * answers as the user would, with `resolve`. The promise: no document fails for a transient
 * reason, none is sent twice, none is lost.
 *
 * The command line runs in the test's process with the simulator on one virtual clock
 * (cli-in-process.ts): Retry-After waits, backoff, token lifetimes, latency and an outage's
 * probes take no real time. The test whose point is a run killed midway starts it as a process.
 */
const OFFLINE_REASON = 'The signing service cannot be reached. Sending resumes by itself.';
const HOUR = 3_600_000;
const STORM_DOCUMENTS = 8;
const VARIANTS = variantsForSuite();

let files: TempFolder;
let cliPath: string;
let sim: Simulator | undefined;
let work: TempFolder | undefined;
/** One line per variant of the storm, printed together at the end. */
const report: string[] = [];

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

afterAll(() => {
  files?.remove();
  if (report.length > 0) console.log(`fault storm:\n  ${report.join('\n  ')}`);
});

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

describe.each(VARIANTS.map((variant) => [describeVariant(variant), variant] as const))(
  'send through unreliable conditions — %s',
  (_line, variant) => {
    const seed = variantSeed(5, variant);
    it(`rides out 503s, 429s, dropped connections, gateway 404s, expiring tokens and an outage; no document fails, none is sent twice (seed ${seed})`, async () => {
      work = makeTempFolder('desk-cli-storm-batch-');
      const manifest = await writeContractManifest(work, { count: STORM_DOCUMENTS, pages: 0, seed });
      // Tokens live 3 s by the service's clock: renewals during the run. A service that does not
      // report the lifetime is renewed only after a 401; its tokens must outlive the waits of one
      // attempt (a Retry-After and the 5 s between reads of one request), so they live 10 s. And
      // every token is revoked once the first document is prepared: a renewal after a 401 always.
      const tokenTtlSeconds = variant.token.reportsExpiresIn ? 3 : 10;
      const { sim: service, clock } = await startVirtualSimulator({ seed, variant, tokenTtlSeconds });
      sim = service;
      const startedAt = clock.monotonic();
      service.faults.set({
        rate503: 0.12,
        rate429: 0.04,
        retryAfterSeconds: 1,
        dropBeforeRate: 0.04,
        dropAfterRate: 0.04,
        gateway404Rate: 0.02,
        latencyMs: 10,
        latencySpikeRate: 0.1,
        latencySpikeMs: 400,
      });
      // Every variant meets every kind at least once, where it hurts most: the first creation is
      // applied and its answer lost, the next one meets a proxy's 404, an upload is rate-limited,
      // a prepare is cut off before it arrives.
      service.faults.enqueue(
        { kind: 'dropAfter', pathPattern: '^/api/v1/signing-requests$' },
        { kind: 'gateway404', pathPattern: '^/api/v1/signing-requests$' },
        { kind: '429', pathPattern: '^/api/v1/uploads$' },
        { kind: 'dropBefore', pathPattern: '/prepare$' },
        { kind: '503', pathPattern: '^/api/v1/uploads$' },
      );
      const dataDir = work.file('data');
      const connection = ['--base-url', service.baseUrl, '--data-dir', dataDir];

      // Once the first document is prepared, while most of the batch is still to do, the service
      // goes away (connections refused) for at least 2 s, and stays away until the engine says it
      // is waiting for it (at most 30 s), all by the virtual clock.
      let prepared = 0;
      let offline = false;
      let waitingWhileOffline = false;
      let sawWaitingWhileOffline: () => void = () => undefined;
      const waitingSeen = new Promise<void>((resolve) => {
        sawWaitingWhileOffline = resolve;
      });
      let outage: Promise<void> | undefined;
      const onStdoutLine = (line: string): void => {
        const event = JSON.parse(line) as { type: string; phase?: string; state?: string; reason?: string };
        if (event.type === 'item-progress' && event.phase === 'prepared') {
          prepared += 1;
          if (prepared === 1) service.revokeTokens();
        }
        if (
          offline &&
          event.type === 'engine-state' &&
          event.state === 'waiting' &&
          event.reason === OFFLINE_REASON
        ) {
          waitingWhileOffline = true;
          sawWaitingWhileOffline();
        }
        if (prepared >= 1 && !outage) {
          outage = (async () => {
            await service.goOffline();
            offline = true;
            await clock.sleep(2_000);
            const giveUp = new AbortController();
            await Promise.race([waitingSeen, clock.sleep(28_000, giveUp.signal).catch(() => undefined)]);
            giveUp.abort();
            offline = false;
            await service.goOnline();
          })();
        }
      };
      const result = await runCliHere(sendArgs(manifest, dataDir, service.baseUrl, 4), {
        clock,
        credentials: DEMO_CLIENT,
        onStdoutLine,
      });
      await clock.complete(outage ?? Promise.resolve());

      expect(result.stderr).toBe('');
      const events = parseJsonLines(result.stdout);
      // No document may fail for a transient reason.
      expect(events.filter((event) => event.type === 'item-failed')).toEqual([]);
      expect(outage, 'the outage started in the middle of the batch').toBeDefined();
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'engine-state', state: 'waiting', reason: OFFLINE_REASON }),
      );
      expect(waitingWhileOffline).toBe(true);
      // A creation whose outcome a fault left unknown may wait for the user: exit 1, one line each.
      const summary = events.at(-1);
      expect(summary, result.stdout.slice(-3_000)).toMatchObject({
        type: 'summary',
        state: 'finished',
        failed: 0,
      });
      const needsCheck = Number(summary?.needsCheck);
      expect(Number(summary?.prepared) + needsCheck).toBe(STORM_DOCUMENTS);
      expect(events.filter((event) => event.type === 'needs-check')).toHaveLength(needsCheck);
      expect(result.code, result.stdout.slice(-3_000)).toBe(needsCheck === 0 ? 0 : 1);
      expect(duplicateReferences(service)).toEqual([]);

      // The storm really happened: faults of every kind and token renewals.
      const calls = service.state.calls();
      const faultCounts: Record<string, number> = {};
      for (const call of calls) if (call.fault) faultCounts[call.fault] = (faultCounts[call.fault] ?? 0) + 1;
      expect(Object.keys(faultCounts)).toEqual(
        expect.arrayContaining(['503', '429', 'dropBefore', 'dropAfter', 'gateway404']),
      );
      const tokens = calls.filter((call) => call.operation === 'token' && call.status === 200).length;
      expect(tokens).toBeGreaterThan(1);

      // Later, in calm weather, the user answers every document that needs a check.
      service.faults.reset();
      const checks = await answerChecksWithCli(
        (args, credentials) => runCliHere(args, { clock, credentials }),
        service,
        manifest.path,
        connection,
        result.stdout,
      );
      expect(checks.answers).toHaveLength(needsCheck);
      expect((checks.lastRun ?? result).code).toBe(0);
      expect(checks.summary).toMatchObject({
        type: 'summary',
        state: 'finished',
        prepared: STORM_DOCUMENTS,
        failed: 0,
        needsCheck: 0,
      });
      const line = `${variant.name} (seed ${seed}): ${calls.length} calls, faults ${JSON.stringify(faultCounts)}, ${tokens} tokens; ${describeCheckAnswers(checks)}; duplicates ${duplicateReferences(service).length}; ${((clock.monotonic() - startedAt) / 1000).toFixed(1)} s of virtual time`;
      report.push(line);
      console.log(line);

      await expectExactlyOnePreparedRequestEach(service, manifest, dataDir);
      expect(service.state.violations()).toEqual([]);
    }, 30_000);

    it(`uploads a document again when its upload expired before the request was created (seed ${seed})`, async () => {
      work = makeTempFolder('desk-cli-expiry-');
      // One worker per document, so that every document is uploaded before the creates stall.
      const count = 8;
      const manifest = await writeContractManifest(work, { count, pages: 0, seed: 9 });
      const service = await startSimulator({ seed, variant });
      sim = service;
      const dataDir = work.file('data');
      const args = sendArgs(manifest, dataDir, service.baseUrl, count);

      // First run: uploads succeed, but the service answers every creation 503 with a Retry-After
      // of an hour. The client does not wait an hour inside a call: each attempt ends at once with
      // a definite "not applied", and the engine records it as settled. The run is killed once
      // every document's upload and key are stored, the service has refused a creation (from then
      // on the client holds every creation back for the hour), and no attempt is on its way.
      service.faults.set({ rate503: 1, retryAfterSeconds: 3_600, pathPattern: '^/api/v1/signing-requests$' });
      const first = startCli(cliPath, args, { credentials: DEMO_CLIENT });
      const deadline = Date.now() + 60_000;
      for (;;) {
        const local = await readLocalDocuments(dataDir).catch(() => []);
        const refused = service.state
          .calls()
          .some((call) => call.operation === 'createSigningRequest' && call.fault === '503');
        if (
          refused &&
          local.length === count &&
          local.every((document) => document.uploadId && document.createAttempted && !document.createInFlight)
        )
          break;
        if (!first.running()) throw new Error(`the first run ended by itself:\n${first.stdout()}`);
        if (Date.now() > deadline) throw new Error('the uploads and keys were not recorded within 60 s');
        await sleep(50);
      }
      await first.kill();
      expect(service.state.requests()).toEqual([]);
      expect(service.state.uploads()).toHaveLength(count);
      // Every creation that reached the service met the 503; none may have been applied.
      const creates = service.state.calls().filter((call) => call.operation === 'createSigningRequest');
      expect(creates.length).toBeGreaterThan(0);
      expect(creates.every((call) => call.fault === '503')).toBe(true);
      expect((await readLocalDocuments(dataDir)).filter((document) => document.createUnknown)).toEqual([]);

      // A day and more later (the service's clock), the uploads have expired, and the hour the
      // service asked for is long over (the test cannot move the app's own clock: it drops the
      // hold the first run kept in the data folder).
      service.faults.reset();
      // (The kill may come before the hold reached the disk: it is advisory.)
      rmSync(join(dataDir, SERVICE_HOLDS_FILE), { force: true });
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
        needsCheck: 0,
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
    }, 60_000);
  },
);

describe('send through unreliable conditions', () => {
  it('counts a prepare whose answer was lost as prepared, even when reading the request meets 503s for a while', async () => {
    work = makeTempFolder('desk-cli-prepare-');
    const manifest = await writeContractManifest(work, { count: 1, pages: 0, seed: 13 });
    const { sim: service, clock } = await startVirtualSimulator({ seed: 13 });
    sim = service;
    // The service prepares the request but the answer is lost; the client's retry meets
    // prepare_conflict and reads the request to see whether it is prepared, and that read
    // meets a run of 503s before the service answers again: 7, so that more than one read call
    // meets them (a call makes 6 attempts), each 5 s after the previous read of the request.
    service.faults.enqueue({ kind: 'dropAfter', pathPattern: '/prepare$' });
    for (let index = 0; index < 7; index += 1) {
      service.faults.enqueue({
        kind: '503',
        pathPattern: '^/api/v1/signing-requests/[^/]+$',
        retryAfterSeconds: 0,
      });
    }
    const dataDir = work.file('data');
    const result = await runCliHere(sendArgs(manifest, dataDir, service.baseUrl, 1), {
      clock,
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
