import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { unreachableCause } from '../../../main/credentials/connection-test';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { runCliHere, type CliHereOptions } from '../../support/cli-in-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';
import { writeContractManifest } from './cli-fixtures';

/**
 * `send` and `resolve` check the service before anything is sent: a wrong address or rejected
 * credentials end the command at once with one line saying what to do; an outage met later is
 * waited out, said once (not at every try) with the address. The command line runs in the
 * test's process on the simulator's virtual clock: its retries and waits take no real time.
 */
const SAMPLE_MANIFEST = fileURLToPath(new URL('../../../samples/manifest.csv', import.meta.url));

let work: TempFolder;
let sim: Simulator | undefined;
let clock: VirtualClock;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
  work?.remove();
});

/** Starts the simulator on a new virtual clock, the test's. */
async function startSimulator(options: { seed: number }): Promise<Simulator> {
  ({ sim, clock } = await startVirtualSimulator(options));
  return sim;
}

function runCli(args: readonly string[], options: Omit<CliHereOptions, 'clock'>) {
  return runCliHere(args, { clock, ...options });
}

/** A loopback port where nothing listens: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The batches written in a data folder (none when the folder or its batches do not exist). */
function batchesIn(dataDir: string): string[] {
  const folder = `${dataDir}/batches`;
  return existsSync(folder) ? readdirSync(folder) : [];
}

describe('send checks the service before sending', () => {
  it('an address where nothing listens: exit 2 within seconds, one line naming it and the cause; no batch written', async () => {
    work = makeTempFolder('desk-cli-check-');
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    const dataDir = work.file('data');
    clock = new VirtualClock({ startAt: Date.now() });
    const result = await runCli(['send', SAMPLE_MANIFEST, '--base-url', baseUrl, '--data-dir', dataDir], {
      credentials: DEMO_CLIENT,
    });
    // The command's own waits (its retries of a refused connection), by its clock.
    const seconds = clock.monotonic() / 1000;
    expect(result.stderr).toBe(
      `The signing service cannot be reached at ${baseUrl}: nothing answers at that address (connection refused). Check --base-url and the network, then run the same command again. Nothing was sent.\n`,
    );
    expect(result.code).toBe(2);
    expect(seconds).toBeLessThan(5);
    expect(result.stdout).not.toContain('Sending');
    expect(batchesIn(dataDir)).toEqual([]);
    const status = await runCli(['status', '--data-dir', dataDir, '--json'], { credentials: null });
    expect(status.stdout).not.toContain('RH-2026-0142');
  }, 30_000);

  it('rejected credentials: exit 2, what to check on the command line, nothing uploaded', async () => {
    work = makeTempFolder('desk-cli-check-');
    sim = await startSimulator({ seed: 12 });
    const dataDir = work.file('data');
    const result = await runCli(['send', SAMPLE_MANIFEST, '--base-url', sim.baseUrl, '--data-dir', dataDir], {
      credentials: { clientId: DEMO_CLIENT.clientId, clientSecret: 'not-the-secret' },
    });
    expect(result.stderr).toBe(
      'The service rejected the connection credentials. Check SIGNING_CLIENT_ID and SIGNING_CLIENT_SECRET, then run the same command again. Nothing was sent.\n',
    );
    expect(result.stderr).not.toContain('test the connection');
    expect(result.code).toBe(2);
    expect(sim.state.calls().filter((call) => call.operation !== 'token')).toEqual([]);
    expect(batchesIn(dataDir)).toEqual([]);
  }, 30_000);

  it('resolve when the service it sent the batch to is away: exit 1, the same line, nothing sent', async () => {
    work = makeTempFolder('desk-cli-check-');
    const service = await startSimulator({ seed: 12 });
    const dataDir = work.file('data');
    const connection = ['--base-url', service.baseUrl, '--data-dir', dataDir];
    const sent = await runCli(['send', SAMPLE_MANIFEST, ...connection], {
      credentials: DEMO_CLIENT,
    });
    expect(sent.code).toBe(0);
    await service.goOffline();
    const resolved = await runCli(
      ['resolve', SAMPLE_MANIFEST, ...connection, '--reference', 'RH-2026-0142', '--link', 'sr_1'],
      { credentials: DEMO_CLIENT },
    );
    await service.goOnline();
    expect(resolved.stderr).toBe(
      `The signing service cannot be reached at ${service.baseUrl}: nothing answers at that address (connection refused). Check --base-url and the network, then run the same command again. Nothing was sent.\n`,
    );
    expect(resolved.code).toBe(1);
  }, 30_000);

  it('an outage after the first document: one line with the address, not one per try; finishes when the service is back', async () => {
    work = makeTempFolder('desk-cli-check-');
    const service = await startSimulator({ seed: 12 });
    service.faults.set({ latencyMs: 20 });
    const manifest = await writeContractManifest(work, { count: 10, pages: 0, seed: 12 });
    const dataDir = work.file('data');
    let outage: Promise<void> | undefined;
    const result = await runCli(
      ['send', manifest.path, '--base-url', service.baseUrl, '--data-dir', dataDir, '--concurrency', '2'],
      {
        credentials: DEMO_CLIENT,
        env: { DESK_LOG: 'json' },
        onStdoutLine: (line) => {
          if (!outage && line.endsWith(': prepared'))
            outage = (async () => {
              await service.goOffline();
              // 9 s of the command's clock: several tries, each within the 30 s between two lines.
              await clock.sleep(9_000);
              await service.goOnline();
            })();
        },
      },
    );
    await clock.complete(outage ?? Promise.resolve());

    const waits = result.stderr.split('\n').filter((line) => line.includes('"send.waiting"')).length;
    const lines = result.stdout.split('\n');
    const said = lines.filter((line) => line.includes('cannot be reached'));
    console.log(`outage: the engine waited ${waits} times, the command line said it ${said.length} time(s)`);
    expect(outage, 'the outage started').toBeDefined();
    expect(waits).toBeGreaterThan(1);
    expect(said).toEqual([
      `  … The signing service cannot be reached at ${service.baseUrl}. Sending resumes by itself when it answers again (Ctrl+C pauses; run the same command again later).`,
    ]);
    expect(lines).toContain(
      `  … The signing service at ${service.baseUrl} answers again. Sending continues.`,
    );
    expect(lines).toContain('10 of 10 documents prepared, 0 failed.');
    expect(result.code).toBe(0);
  }, 30_000);
});

describe('the cause of an unreachable service, in plain words', () => {
  it.each([
    ['ENOTFOUND', 'there is no such host (its name is not found)'],
    ['ECONNREFUSED', 'nothing answers at that address (connection refused)'],
    ['TIMEOUT', 'nothing answered in time'],
    [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'its secure connection (TLS) failed: the certificate is not trusted or does not match the name (DEPTH_ZERO_SELF_SIGNED_CERT)',
    ],
    ['EWHATEVER', 'the connection failed (EWHATEVER)'],
  ])('%s: %s', (code, words) => {
    expect(unreachableCause(code)).toBe(words);
  });
});
