import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { variantNamed } from '../../../simulator/variants';
import { runCliHere } from '../../support/cli-in-process';
import { bundleCli, killAllCli, parseJsonLines, startCli, type CliResult } from '../../support/cli-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';
import {
  expectExactlyOnePreparedRequestEach,
  readLocalDocuments,
  writeContractManifest,
} from './cli-fixtures';

/**
 * The first case of the outside review, end to end with the command line: a creation is
 * applied, its answer is lost, the process dies; the next run comes a day later, when a
 * service that keeps idempotency keys 24 hours has forgotten the key and the upload has
 * expired. `send` must not create a second request: it exits 1 and names the document that
 * needs the user's check; `resolve --link` then finishes it with the request the service holds.
 *
 * The killed run is a process. The simulator holds its answers on a virtual clock, which stands
 * still until the test moves it: the creation's answer never reaches that process, whatever the
 * machine's load. The runs after it go in the test's process on that clock (cli-in-process.ts).
 */
let files: TempFolder;
let cliPath: string;
let sim: Simulator;
let clock: VirtualClock;

function runHere(args: readonly string[]): Promise<CliResult> {
  return runCliHere(args, { clock, credentials: DEMO_CLIENT });
}

beforeAll(async () => {
  files = makeTempFolder('desk-needs-check-');
  cliPath = await bundleCli(files.path);
  ({ sim, clock } = await startVirtualSimulator({ seed: 9, variant: variantNamed('strict-24h') }));
}, 60_000);

afterAll(async () => {
  await killAllCli();
  await sim?.close();
  files?.remove();
});

describe('a creation applied, its answer lost, the process killed, the next run a day later', () => {
  it('sends nothing twice: send exits 1 naming the document, resolve --link finishes it', async () => {
    const manifest = await writeContractManifest(files, { count: 2, pages: 0, seed: 9 });
    const dataDir = files.file('data');
    const connection = ['--base-url', sim.baseUrl, '--data-dir', dataDir];
    // Every answer of a creation is held 400 ms of the clock after the service acted, and the
    // clock stands still: the kill lands in between.
    sim.faults.set({ latencyMs: 400, pathPattern: '^/api/v1/signing-requests$' });
    const cli = startCli(cliPath, ['send', manifest.path, ...connection, '--json', '--concurrency', '1'], {
      credentials: DEMO_CLIENT,
    });
    const killed = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (sim.state.requests().length > 0) {
          clearInterval(poll);
          void cli.kill().then(() => resolve());
        }
      }, 1);
    });
    await killed;
    expect(sim.state.requests()).toHaveLength(1);
    const [applied] = sim.state.requests();
    expect((await readLocalDocuments(dataDir)).every((document) => document.requestId === undefined)).toBe(
      true,
    );

    // A day and an hour later: the key is forgotten, the upload has expired.
    sim.faults.reset();
    await clock.advance(25 * 3_600_000);
    const second = await runHere(['send', manifest.path, ...connection, '--json']);
    expect(second.code, second.stdout.slice(-2_000)).toBe(1);
    const lines = parseJsonLines(second.stdout);
    const check = lines.find((line) => line.type === 'needs-check');
    expect(check).toMatchObject({ externalReference: applied!.externalReference, reason: 'key_refused' });
    expect(String(check?.explanation)).toContain('may already exist');
    expect(lines.at(-1)).toMatchObject({ type: 'summary', state: 'finished', prepared: 1, needsCheck: 1 });
    expect(sim.state.countByExternalReference()).toEqual(
      Object.fromEntries(manifest.documents.map((document) => [document.reference, 1])),
    );

    // Without --json, the same run tells a person what to do, with both commands spelled out.
    const human = await runHere(['send', manifest.path, ...connection]);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(
      `? ${applied!.externalReference}: A signing request for ${applied!.externalReference} may already exist`,
    );
    expect(human.stdout).toContain(`resolve ${manifest.path} --base-url ${sim.baseUrl}`);
    expect(human.stdout).toContain('--link REQUEST_ID');
    expect(human.stdout).toContain('--send-new --confirm');

    // The user looks the request up at the service and links it.
    const wrongReference = await runHere([
      'resolve',
      manifest.path,
      ...connection,
      '--reference',
      applied!.externalReference,
      '--link',
      'sr_nope',
    ]);
    expect(wrongReference.code).toBe(2);
    expect(wrongReference.stderr).toContain('has no signing request sr_nope');
    // Sending anew without --confirm is refused: the user must say they looked and found none.
    const unconfirmed = await runHere([
      'resolve',
      manifest.path,
      ...connection,
      '--reference',
      applied!.externalReference,
      '--send-new',
    ]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('run the same command again with --confirm');
    expect(sim.state.countByExternalReference()[applied!.externalReference]).toBe(1);
    const resolved = await runHere([
      'resolve',
      manifest.path,
      ...connection,
      '--reference',
      applied!.externalReference,
      '--link',
      applied!.id,
    ]);
    expect(resolved.code, resolved.stdout + resolved.stderr).toBe(0);
    await expectExactlyOnePreparedRequestEach(sim, manifest, dataDir);
    expect(sim.state.violations()).toEqual([]);
  }, 120_000);
});
