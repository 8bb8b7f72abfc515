import { afterEach, beforeEach, expect, it } from 'vitest';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { runCliHere, type CliHereOptions } from '../../support/cli-in-process';
import { parseJsonLines } from '../../support/cli-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';
import { writeContractManifest } from './cli-fixtures';

/**
 * The command line's contract for a request that ends at the service without completion (issue
 * 21, point 6): `watch` reads it until its final status, ends, names it with the service's
 * word, and exits 1 (not everything completed); `status` counts it apart and shows that word.
 * The command line runs in the test's process, on the simulator's virtual clock.
 */
let work: TempFolder;
let sim: Simulator;
let clock: VirtualClock;

beforeEach(async () => {
  work = makeTempFolder('desk-watch-statuses-');
  ({ sim, clock } = await startVirtualSimulator({ seed: 61 }));
});
afterEach(async () => {
  await sim.close();
  work.remove();
});

function runCli(args: readonly string[], credentials: CliHereOptions['credentials']) {
  return runCliHere(args, { clock, credentials });
}

it('a request declined at the service: watch ends with it named and exits 1; status counts it as ended', async () => {
  const manifest = await writeContractManifest(work, {
    count: 3,
    pages: 0,
    seed: 62,
    referencePrefix: 'HR-',
  });
  const dataDir = work.file('data');
  const sent = await runCli(
    ['send', manifest.path, '--base-url', sim.baseUrl, '--data-dir', dataDir],
    DEMO_CLIENT,
  );
  expect(sent.code, sent.stdout + sent.stderr).toBe(0);
  const [declined, ...signed] = sim.state.requests();
  sim.setStatus(declined!.id, { status: 'declined' });
  for (const request of signed) sim.complete(request.id);
  await clock.advance(60_000);

  const watched = await runCli(['watch', '--data-dir', dataDir, '--base-url', sim.baseUrl], DEMO_CLIENT);
  expect(watched.stderr).toBe('');
  expect(watched.code).toBe(1);
  const reference = declined!.externalReference;
  expect(watched.stdout).toContain(`✗ ${reference}: ended at the service: declined`);
  for (const request of signed)
    expect(watched.stdout).toContain(`✓ ${request.externalReference}: completed, evidence ready`);
  expect(watched.stdout).toContain(
    `Stopped on 1 request that did not complete:\n  ${reference}: ended at the service: declined\n`,
  );
  expect(watched.stdout).toContain('Every request is final. 1 ended at the service without completion.');
  // Read once each: found final at once, never read again.
  const reads = sim.state.calls().filter((call) => call.operation === 'readSigningRequest');
  expect(reads.filter((call) => call.path.endsWith(`/${declined!.id}`))).toHaveLength(1);

  // Nothing is left to watch; the same answer in JSON, with the request it stopped on.
  const again = await runCli(['watch', '--data-dir', dataDir, '--json'], DEMO_CLIENT);
  expect(again.code).toBe(1);
  const events = parseJsonLines(again.stdout);
  expect(events.filter((event) => event.type === 'stopped')).toEqual([
    {
      type: 'stopped',
      externalReference: reference,
      requestId: declined!.id,
      reason: 'ended',
      status: 'declined',
    },
  ]);
  expect(events.at(-1)).toEqual({ type: 'summary', open: 0, gone: 0, ended: 1, unknownStatus: 0 });
  expect(sim.state.calls().filter((call) => call.operation === 'readSigningRequest')).toHaveLength(
    reads.length,
  );

  const status = await runCli(['status', '--data-dir', dataDir], null);
  expect(status.code).toBe(0);
  const line = status.stdout.split('\n').find((candidate) => candidate.includes(reference));
  expect(line).toMatch(/ended at the service: declined$/);
  expect(status.stdout).toContain(
    '3 documents: 3 prepared, 2 completed, 1 ended at the service, 0 failed, 0 gone.',
  );
  const json = parseJsonLines((await runCli(['status', '--data-dir', dataDir, '--json'], null)).stdout);
  expect(
    json.find((event) => event.type === 'document' && event.externalReference === reference),
  ).toMatchObject({
    class: 'ended',
    status: 'declined',
    final: true,
  });
  expect(json.at(-1)).toMatchObject({ documents: 3, prepared: 3, completed: 2, ended: 1, unknownStatus: 0 });
  expect(sim.state.violations()).toEqual([]);
}, 30_000);
