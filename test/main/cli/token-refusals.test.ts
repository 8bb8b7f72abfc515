import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_REFUSAL_BACKOFF_MS } from '../../../main/client/token-manager';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../../simulator/simulator';
import { bundleCli, killAllCli, startCli } from '../../support/cli-process';
import { runCliHere } from '../../support/cli-in-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { until } from '../../support/desk-service-harness';
import { startVirtualSimulator } from '../../support/virtual-world';
import { parseJsonLines } from '../../support/cli-process';
import { expectExactlyOnePreparedRequestEach, writeContractManifest } from './cli-fixtures';

/**
 * A service refuses token requests for a moment during a key rotation. `send` as a user runs it
 * rides that out in one run; only credentials that never got a token in this process are rejected
 * at the first refusal (the check before anything is sent).
 *
 * The runs whose point is the waits go in the test's process on the simulator's virtual clock
 * (cli-in-process.ts): a token's backoff and a token's lifetime take no real time, and each wait
 * said is checked exactly against that clock. The one whose uploads are held on the line (real
 * time, uplink.ts) runs as a process.
 */
let files: TempFolder;
let cliPath: string;
let sim: Simulator | undefined;
let work: TempFolder | undefined;

beforeAll(async () => {
  files = makeTempFolder('desk-cli-token-');
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

function sendArgs(manifestPath: string, dataDir: string, baseUrl: string): string[] {
  return ['send', manifestPath, '--base-url', baseUrl, '--data-dir', dataDir, '--json'];
}

function tokenStatuses(service: Simulator): (number | null)[] {
  return service.state
    .calls()
    .filter((call) => call.operation === 'token')
    .map((call) => call.status);
}

describe('send while the service refuses some token requests', () => {
  it('prepares 12 documents in one run at 20 % token refusals, tokens living 1 s: exit 0, one request per reference, no violation', async () => {
    const count = 12;
    work = makeTempFolder('desk-cli-token-batch-');
    const manifest = await writeContractManifest(work, { count, pages: 20, seed: 3 });
    // Tokens live 1 s by the service's clock (and it says so), and every answer takes 400 ms of
    // it: a run of some seconds of that clock that asks for a token again and again (seed 3
    // refuses two of them).
    const { sim: service, clock } = await startVirtualSimulator({ seed: 3, tokenTtlSeconds: 1 });
    sim = service;
    service.faults.set({ latencyMs: 400 });
    const dataDir = work.file('data');
    const startedAt = clock.monotonic();
    // How long each wait for a refused token lasts: from when it is said to when it ends.
    const tokenWaitsMs: number[] = [];
    // The first token (the check before anything is sent) is granted: these credentials work.
    // From then on, one token request in five is refused, as during a key rotation.
    let refusing = false;
    const result = await runCliHere(sendArgs(manifest.path, dataDir, service.baseUrl), {
      clock,
      credentials: DEMO_CLIENT,
      onStdoutLine: (line) => {
        const event = JSON.parse(line) as { state?: string; resumesAt?: number; cause?: { code?: string } };
        if (event.state === 'waiting' && event.cause?.code === 'token_refused' && event.resumesAt)
          tokenWaitsMs.push(event.resumesAt - clock.now());
      },
      beforeClockMoves: () => {
        if (refusing || !tokenStatuses(service).includes(200)) return;
        refusing = true;
        service.faults.set({ tokenRefusalRate: 0.2 });
      },
    });

    const events = parseJsonLines(result.stdout);
    expect(result.stderr).toBe('');
    expect(result.code, result.stdout.slice(-3_000)).toBe(0);
    expect(events.at(-1)).toMatchObject({
      type: 'summary',
      state: 'finished',
      prepared: count,
      failed: 0,
      needsCheck: 0,
    });
    // The refusals happened, and each was waited out with the service's code said.
    const refusals = tokenStatuses(service).filter((status) => status === 400).length;
    expect(refusals).toBeGreaterThanOrEqual(1);
    const waits = events.filter((event) => event.type === 'engine-state' && event.state === 'waiting');
    expect(waits).toContainEqual(
      expect.objectContaining({
        cause: expect.objectContaining({ code: 'token_refused', serviceCode: 'invalid_grant' }),
      }),
    );
    expect(events.filter((event) => event.type === 'engine-state' && event.state === 'stopped')).toEqual([]);
    // The run waits as long as the token's backoff asks, no more (refusals that last are judged
    // after about 30 s, not minutes). Each refusal here is the first of its streak (a token is
    // granted between two), whose backoff is 2 s and its jitter.
    expect(tokenStatuses(service).join()).not.toContain('400,400');
    expect(tokenWaitsMs.length).toBeGreaterThan(0);
    expect(Math.max(...tokenWaitsMs)).toBeLessThanOrEqual(TOKEN_REFUSAL_BACKOFF_MS.first * 1.5);
    // Tokens were asked for again and again: the run outlived many of them.
    expect(tokenStatuses(service).length).toBeGreaterThanOrEqual(6);
    await expectExactlyOnePreparedRequestEach(service, manifest, dataDir);
    expect(service.state.violations()).toEqual([]);
    console.log(
      `12 documents at 20 % token refusals: ${((clock.monotonic() - startedAt) / 1000).toFixed(1)} s of the service's clock, token requests ${JSON.stringify(tokenStatuses(service))}, ${waits.length} waiting events, the longest ${Math.max(...tokenWaitsMs)} ms`,
    );
  }, 120_000);

  it('says a refused token once per wait, not once per document that met it', async () => {
    work = makeTempFolder('desk-cli-token-words-');
    const manifest = await writeContractManifest(work, { count: 8, pages: 0, seed: 23 });
    const service = await startSimulator({ seed: 23 });
    sim = service;
    const args = sendArgs(manifest.path, work.file('data'), service.baseUrl).filter(
      (arg) => arg !== '--json',
    );
    // Uploads are held on the line until at least two documents are in progress, with the token
    // the run got; then the service forgets every token and refuses the next token request, and
    // the line carries again: every document in progress meets that one refusal.
    service.uplink.stall(10 * 60_000);
    const cli = startCli(cliPath, args, { credentials: DEMO_CLIENT, env: { DESK_LOG: 'json' } });
    await until('two uploads under way', async () =>
      service.uplink.receivedByConnection().length >= 2 ? true : undefined,
    );
    service.faults.enqueue({ kind: 'tokenRefusal' });
    service.revokeTokens();
    service.uplink.resume();
    const result = await cli.done;

    expect(result.code, result.stdout).toBe(0);
    const waits = result.stderr.split('\n').filter((line) => line.includes('"send.waiting"')).length;
    const said = result.stdout.split('\n').filter((line) => line.includes('refused a token'));
    expect(tokenStatuses(service).filter((status) => status === 400)).toHaveLength(1);
    expect(waits).toBeGreaterThan(1);
    expect(said).toEqual([
      '  … The service refused a token (invalid_grant) — often a moment during key rotation; trying again…',
    ]);
    expect(result.stdout).toContain('8 of 8 documents prepared, 0 failed.');
  }, 60_000);

  it('ends at once, credentials rejected and nothing sent, when the first token of the run is refused', async () => {
    work = makeTempFolder('desk-cli-token-first-');
    const manifest = await writeContractManifest(work, { count: 2, pages: 0, seed: 22 });
    const { sim: service, clock } = await startVirtualSimulator({ seed: 22 });
    sim = service;
    service.faults.enqueue({ kind: 'tokenRefusal' });
    const args = sendArgs(manifest.path, work.file('data'), service.baseUrl).filter(
      (arg) => arg !== '--json',
    );
    const result = await runCliHere(args, { clock, credentials: DEMO_CLIENT });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'The service rejected the connection credentials. Check SIGNING_CLIENT_ID and SIGNING_CLIENT_SECRET, then run the same command again. Nothing was sent.\n',
    );
    expect(service.state.calls().map((call) => [call.operation, call.status])).toEqual([['token', 400]]);
  }, 60_000);
});
