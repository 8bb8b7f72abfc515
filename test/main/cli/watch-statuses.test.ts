import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../../simulator/simulator';
import { bundleCli, killAllCli, parseJsonLines, runCli } from '../../support/cli-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { writeContractManifest } from './cli-fixtures';

/**
 * The command line's contract for a request that ends at the service without completion (issue
 * 21, point 6): `watch` reads it until its final status, ends, names it with the service's
 * word, and exits 1 (not everything completed); `status` counts it apart and shows that word.
 */
let bundle: TempFolder;
let work: TempFolder;
let cliPath: string;
let sim: Simulator;

beforeAll(async () => {
  bundle = makeTempFolder('desk-watch-statuses-bundle-');
  cliPath = await bundleCli(bundle.path);
}, 60_000);
beforeEach(async () => {
  work = makeTempFolder('desk-watch-statuses-');
  sim = await startSimulator({ seed: 61 });
});
afterEach(async () => {
  await killAllCli();
  await sim.close();
  work.remove();
});
afterAll(() => bundle?.remove());

it('a request declined at the service: watch ends with it named and exits 1; status counts it as ended', async () => {
  const manifest = await writeContractManifest(work, {
    count: 3,
    pages: 0,
    seed: 62,
    referencePrefix: 'HR-',
  });
  const dataDir = work.file('data');
  const sent = await runCli(
    cliPath,
    ['send', manifest.path, '--base-url', sim.baseUrl, '--data-dir', dataDir],
    {
      credentials: DEMO_CLIENT,
    },
  );
  expect(sent.code, sent.stdout + sent.stderr).toBe(0);
  const [declined, ...signed] = sim.state.requests();
  sim.setStatus(declined!.id, { status: 'declined' });
  for (const request of signed) sim.complete(request.id);
  sim.clock.advance(60_000);

  const watched = await runCli(cliPath, ['watch', '--data-dir', dataDir, '--base-url', sim.baseUrl], {
    credentials: DEMO_CLIENT,
  });
  expect(watched.stderr).toBe('');
  expect(watched.code).toBe(1);
  const reference = declined!.externalReference;
  expect(watched.stdout).toContain(`✗ ${reference}: ended at the service: declined`);
  for (const request of signed)
    expect(watched.stdout).toContain(`✓ ${request.externalReference}: completed, evidence ready`);
  expect(watched.stdout).toContain(
    `Stopped on 1 request(s) that did not complete:\n  ${reference}: ended at the service: declined\n`,
  );
  expect(watched.stdout).toContain('Every request is final. 1 ended at the service without completion.');
  // Read once each: found final at once, never read again.
  const reads = sim.state.calls().filter((call) => call.operation === 'readSigningRequest');
  expect(reads.filter((call) => call.path.endsWith(`/${declined!.id}`))).toHaveLength(1);

  // Nothing is left to watch; the same answer in JSON, with the request it stopped on.
  const again = await runCli(cliPath, ['watch', '--data-dir', dataDir, '--json'], {
    credentials: DEMO_CLIENT,
  });
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

  const status = await runCli(cliPath, ['status', '--data-dir', dataDir], { credentials: null });
  expect(status.code).toBe(0);
  const line = status.stdout.split('\n').find((candidate) => candidate.includes(reference));
  expect(line).toMatch(/ended at the service: declined$/);
  expect(status.stdout).toContain(
    '3 documents: 3 prepared, 2 completed, 1 ended at the service, 0 failed, 0 gone.',
  );
  const json = parseJsonLines(
    (await runCli(cliPath, ['status', '--data-dir', dataDir, '--json'], { credentials: null })).stdout,
  );
  expect(
    json.find((event) => event.type === 'document' && event.externalReference === reference),
  ).toMatchObject({
    class: 'ended',
    status: 'declined',
    final: true,
  });
  expect(json.at(-1)).toMatchObject({ documents: 3, prepared: 3, completed: 2, ended: 1, unknownStatus: 0 });
  expect(sim.state.violations()).toEqual([]);
}, 120_000);
