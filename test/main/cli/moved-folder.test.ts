import { cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { runCliHere } from '../../support/cli-in-process';
import { parseJsonLines, type CliResult } from '../../support/cli-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';
import { writeContractManifest, type ContractManifest } from './cli-fixtures';

/**
 * A contract is what it is, not where its files lie (README "Sending exactly once"): the command
 * line as a person uses it, with folders moved, renamed and copied, and a second data folder. An
 * outside test measured 16 requests for 4 references this way; each case here keeps it at one. The
 * command line runs in the test's process, on the simulator's virtual clock (cli-in-process.ts).
 */
let work: TempFolder;
let sim: Simulator;
let clock: VirtualClock;
let manifest: ContractManifest;

beforeEach(async () => {
  work = makeTempFolder('desk-moved-');
  ({ sim, clock } = await startVirtualSimulator({ seed: 21 }));
  const batchFolder = makeTempFolder('desk-moved-batch-');
  manifest = await writeContractManifest(batchFolder, { count: 4, pages: 0, seed: 21 });
  // The batch's folder lives under the test's own folder, so that it can be renamed and copied there.
  const folder = join(work.path, 'Batch');
  cpSync(batchFolder.path, folder, { recursive: true });
  batchFolder.remove();
  manifest = { ...manifest, path: join(folder, 'manifest.csv') };
});

afterEach(async () => {
  await sim.close();
  work.remove();
});

function send(manifestPath: string, dataDir = work.file('data'), ...extra: string[]): Promise<CliResult> {
  return runCliHere(['send', manifestPath, '--base-url', sim.baseUrl, '--data-dir', dataDir, ...extra], {
    clock,
    credentials: DEMO_CLIENT,
  });
}

const REFERENCES = ['HR-2026-001', 'HR-2026-002', 'HR-2026-003', 'HR-2026-004'];
const once = () => Object.fromEntries(REFERENCES.map((reference) => [reference, 1]));

describe('a moved or renamed folder finds its batch', () => {
  it('the folder renamed to "Sent - Batch": send continues the same batch, nothing sent again', async () => {
    expect((await send(manifest.path)).code).toBe(0);
    const moved = join(work.path, 'Sent - Batch');
    renameSync(join(work.path, 'Batch'), moved);
    const again = await send(join(moved, 'manifest.csv'));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('which is no longer there: it continues from here');
    expect(sim.state.countByExternalReference()).toEqual(once());
    // And from then on the batch is found at its new place.
    const third = await send(join(moved, 'manifest.csv'));
    expect(third.code).toBe(0);
    expect(third.stdout).not.toContain('no longer there');
    expect(sim.state.countByExternalReference()).toEqual(once());
  });

  it('the manifest file renamed in its folder, and rows reordered: the same contracts, the same batch', async () => {
    expect((await send(manifest.path)).code).toBe(0);
    const renamed = join(work.path, 'Batch', 'manifest (final).csv');
    renameSync(manifest.path, renamed);
    const [header, ...rows] = readFileSync(renamed, 'utf8').trimEnd().split('\n');
    writeFileSync(renamed, `${[header, ...rows.reverse()].join('\n')}\n`);
    const again = await send(renamed);
    expect(again.code, again.stderr).toBe(0);
    expect(sim.state.countByExternalReference()).toEqual(once());
  });
});

describe('a new folder is not taken for a moved one', () => {
  it('a new manifest reusing references of a deleted folder with other PDFs is refused, not joined to the old batch', async () => {
    expect((await send(manifest.path)).code).toBe(0);
    rmSync(join(work.path, 'Batch'), { recursive: true });
    const next = makeTempFolder('desk-moved-next-');
    try {
      // Other contracts under two of the same references.
      const other = await writeContractManifest(next, { count: 2, pages: 0, seed: 99 });
      const refused = await send(other.path);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('Nothing was sent');
      expect(refused.stdout).not.toContain('continues from here');
      expect(sim.state.countByExternalReference()).toEqual(once());
    } finally {
      next.remove();
    }
  });
});

describe('a copy of the folder is never sent again by itself', () => {
  it('says which batch holds its contracts and how to go on; --continue-batch continues it, still one request each', async () => {
    expect((await send(manifest.path)).code).toBe(0);
    const copy = join(work.path, 'Batch - Copy');
    cpSync(join(work.path, 'Batch'), copy, { recursive: true });
    const refused = await send(join(copy, 'manifest.csv'));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Nothing was sent');
    expect(refused.stderr).toContain(
      `${REFERENCES.join(', ')}: in the batch "manifest.csv", sent from ${manifest.path}`,
    );
    expect(refused.stderr).toContain('--continue-batch');
    expect(refused.stderr).toContain('--send-new --confirm');
    expect(sim.state.countByExternalReference()).toEqual(once());

    const continued = await send(join(copy, 'manifest.csv'), work.file('data'), '--continue-batch');
    expect(continued.code, continued.stderr).toBe(0);
    expect(continued.stdout).toContain('Continuing the batch "manifest.csv"');
    expect(sim.state.countByExternalReference()).toEqual(once());
  });

  it('a folder name that is a terminal escape sequence is shown, not obeyed: the held batch is named with \\u001b', async () => {
    const hostile = join(work.path, 'Batch\u001b]0;owned\u0007\u001b[2J');
    renameSync(join(work.path, 'Batch'), hostile);
    expect((await send(join(hostile, 'manifest.csv'))).code).toBe(0);
    cpSync(hostile, join(work.path, 'Copy'), { recursive: true });
    const refused = await send(join(work.path, 'Copy', 'manifest.csv'));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `sent from ${work.path}/Batch\\u001b]0;owned\\u0007\\u001b[2J/manifest.csv`,
    );
    expect(refused.stderr + refused.stdout).not.toContain('\u001b');
    expect(refused.stderr + refused.stdout).not.toContain('\u0007');
    expect(sim.state.countByExternalReference()).toEqual(once());
  });

  it('--send-new --confirm sends its contracts anew on purpose: a second request each, no more', async () => {
    expect((await send(manifest.path)).code).toBe(0);
    const copy = join(work.path, 'Batch - Copy');
    cpSync(join(work.path, 'Batch'), copy, { recursive: true });
    const unconfirmed = await send(join(copy, 'manifest.csv'), work.file('data'), '--send-new');
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('add --confirm');
    const anew = await send(join(copy, 'manifest.csv'), work.file('data'), '--send-new', '--confirm');
    expect(anew.code, anew.stderr).toBe(0);
    expect(sim.state.countByExternalReference()).toEqual(
      Object.fromEntries(REFERENCES.map((reference) => [reference, 2])),
    );
    // Run again: nothing more.
    expect((await send(join(copy, 'manifest.csv'))).code).toBe(0);
    expect(Object.values(sim.state.countByExternalReference())).toEqual([2, 2, 2, 2]);
  });

  it('two batches hold them (a copy sent anew): --continue-batch and resolve from a third copy tell the two "manifest.csv" batches apart by where each was sent from', async () => {
    expect((await send(manifest.path)).code).toBe(0);
    // A while later, the folder is copied and the copy sent anew.
    await clock.advance(60_000);
    const copy = join(work.path, 'Batch - Copy');
    cpSync(join(work.path, 'Batch'), copy, { recursive: true });
    const copyManifest = join(copy, 'manifest.csv');
    expect((await send(copyManifest, work.file('data'), '--send-new', '--confirm')).code).toBe(0);
    const third = join(work.path, 'Batch - Copy (2)');
    cpSync(join(work.path, 'Batch'), third, { recursive: true });
    const both = `"manifest.csv" (sent from ${manifest.path}), "manifest.csv" (sent from ${copyManifest})`;

    const continued = await send(join(third, 'manifest.csv'), work.file('data'), '--continue-batch');
    expect(continued.code).toBe(2);
    expect(continued.stderr).toContain(`this manifest's contracts are in 2: ${both}.`);
    const resolved = await runCliHere(
      [
        'resolve',
        join(third, 'manifest.csv'),
        '--base-url',
        sim.baseUrl,
        '--data-dir',
        work.file('data'),
        '--reference',
        'HR-2026-002',
        '--link',
        'sr_whatever',
      ],
      { clock, credentials: DEMO_CLIENT },
    );
    expect(resolved.code).toBe(2);
    expect(resolved.stderr).toContain(`HR-2026-002 is in 2 batches of this data folder (${both})`);
    expect(Object.values(sim.state.countByExternalReference())).toEqual([2, 2, 2, 2]);
  });

  it('resolve on the copy finds the batch of its reference instead of saying "send it first"', async () => {
    expect((await send(manifest.path)).code).toBe(0);
    const copy = join(work.path, 'Batch - Copy');
    cpSync(join(work.path, 'Batch'), copy, { recursive: true });
    const resolved = await runCliHere(
      [
        'resolve',
        join(copy, 'manifest.csv'),
        '--base-url',
        sim.baseUrl,
        '--data-dir',
        work.file('data'),
        '--reference',
        'HR-2026-002',
        '--link',
        'sr_whatever',
      ],
      { clock, credentials: DEMO_CLIENT },
    );
    // Found, and it needs no check: it is already prepared.
    expect(resolved.code).toBe(2);
    expect(resolved.stderr).toContain('HR-2026-002 does not need a check: it is already prepared');
    expect(resolved.stderr).not.toContain('send it first');
  });
});

describe('a second data folder (another desk, a reinstall)', () => {
  it('sends nothing again: each contract is held at the service, said with the way to follow it; moved, copied and second desk together keep one request each', async () => {
    expect((await send(manifest.path)).code).toBe(0);
    renameSync(join(work.path, 'Batch'), join(work.path, 'Moved'));
    const moved = join(work.path, 'Moved', 'manifest.csv');
    expect((await send(moved)).code).toBe(0);
    cpSync(join(work.path, 'Moved'), join(work.path, 'Copy'), { recursive: true });
    expect((await send(join(work.path, 'Copy', 'manifest.csv'))).code).toBe(2);
    await clock.advance(60_000);
    const elsewhere = await send(moved, work.file('second-desk'), '--json');
    expect(elsewhere.code).toBe(1);
    const events = parseJsonLines(elsewhere.stdout);
    const checks = events.filter((event) => event.type === 'needs-check');
    expect(checks.map((event) => [event.externalReference, event.reason])).toEqual(
      REFERENCES.map((reference) => [reference, 'held_at_service']),
    );
    expect(String(checks[0]?.explanation)).toContain('another data folder or another computer');
    expect(sim.state.countByExternalReference()).toEqual(once());
    expect(sim.state.violations()).toEqual([]);
    expect(existsSync(work.file('second-desk'))).toBe(true);
  });
});
