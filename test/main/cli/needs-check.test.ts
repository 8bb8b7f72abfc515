import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../../simulator/simulator';
import { variantNamed } from '../../../simulator/variants';
import { bundleCli, killAllCli, parseJsonLines, runCli, startCli } from '../../support/cli-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
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
 */
let files: TempFolder;
let cliPath: string;
let sim: Simulator;

beforeAll(async () => {
  files = makeTempFolder('desk-needs-check-');
  cliPath = await bundleCli(files.path);
  sim = await startSimulator({ seed: 9, variant: variantNamed('strict-24h') });
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
    // Every answer of a creation is held 400 ms after the service acted: the kill lands in between.
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
    sim.clock.advance(25 * 3_600_000);
    const second = await runCli(cliPath, ['send', manifest.path, ...connection, '--json'], {
      credentials: DEMO_CLIENT,
    });
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
    const human = await runCli(cliPath, ['send', manifest.path, ...connection], { credentials: DEMO_CLIENT });
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(
      `? ${applied!.externalReference}: A signing request for ${applied!.externalReference} may already exist`,
    );
    expect(human.stdout).toContain(`resolve ${manifest.path} --base-url ${sim.baseUrl}`);
    expect(human.stdout).toContain('--link REQUEST_ID');
    expect(human.stdout).toContain('--send-new --confirm');

    // The user looks the request up at the service and links it.
    const wrongReference = await runCli(
      cliPath,
      [
        'resolve',
        manifest.path,
        ...connection,
        '--reference',
        applied!.externalReference,
        '--link',
        'sr_nope',
      ],
      { credentials: DEMO_CLIENT },
    );
    expect(wrongReference.code).toBe(2);
    expect(wrongReference.stderr).toContain('has no signing request sr_nope');
    // Sending anew without --confirm is refused: the user must say they looked and found none.
    const unconfirmed = await runCli(
      cliPath,
      ['resolve', manifest.path, ...connection, '--reference', applied!.externalReference, '--send-new'],
      { credentials: DEMO_CLIENT },
    );
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('run the same command again with --confirm');
    expect(sim.state.countByExternalReference()[applied!.externalReference]).toBe(1);
    const resolved = await runCli(
      cliPath,
      [
        'resolve',
        manifest.path,
        ...connection,
        '--reference',
        applied!.externalReference,
        '--link',
        applied!.id,
      ],
      { credentials: DEMO_CLIENT },
    );
    expect(resolved.code, resolved.stdout + resolved.stderr).toBe(0);
    await expectExactlyOnePreparedRequestEach(sim, manifest, dataDir);
    expect(sim.state.violations()).toEqual([]);
  }, 120_000);
});
