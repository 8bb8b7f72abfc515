import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBatch } from '../../../main/store/batch-reading';
import { BatchStore } from '../../../main/store/batch-store';
import { BlobStore } from '../../../main/store/blob-store';
import type { CrashDisk } from '../../support/crash-disk';
import { CrashFileSystem, type DiskImage } from '../../support/crash-fs';
import { originalsIn } from '../../support/memory-originals';
import { makePdfBytes } from '../../support/pdf-files';
import { createSeededRandom } from '../../../simulator/seeded-random';
import { StoreExpectations } from './power-cut-model';
import { runWorkload } from './power-cut-workload';

/**
 * Power cuts at random operations while a data folder is in use: appends sharing fsyncs,
 * compactions every few entries, batches created and deleted, PDFs taken in, batches brought
 * to rest (folded after every record, given their rest files, read back when changed). After each cut
 * the machine restarts from what the disk kept, and the store opened on it must hold every
 * acknowledged change, nothing never appended, and an intact copy of every PDF it references.
 * Each sequence runs a few rounds on one machine, so recovery itself is cut too; one round in
 * five ends with the process killed instead (the page cache survives). A cut keeps a prefix of
 * a file's unsynced writes or its pages in any order (crash-disk.ts).
 */

const SEED = Number(process.env.POWER_SEED ?? randomInt(0, 2 ** 31));
const POWER_CUTS = Number(process.env.POWER_CUTS ?? 320);
const ROUNDS = 4;
const DATA = '/home/user/data';

/** A machine between two rounds: a disk image after a power cut, or a live disk after a killed process. */
type Machine = { readonly image: DiskImage } | { readonly disk: CrashDisk };

interface Run {
  readonly originals: CrashFileSystem;
  readonly originalPaths: readonly string[];
}

function mix(seed: number, index: number): number {
  return createSeededRandom((seed ^ Math.imul(index, 0x9e3779b1)) >>> 0)() * 2 ** 31;
}

function startProcess(machine: Machine, scheduling: () => number, forDryRun: boolean): CrashFileSystem {
  if ('image' in machine) return new CrashFileSystem({ image: machine.image, scheduling });
  return new CrashFileSystem({ scheduling }, forDryRun ? machine.disk.clone() : machine.disk);
}

interface RoundResult {
  readonly operations: number;
  /** Operations the open took (undefined when it did not resolve). */
  readonly openedAfter: number | undefined;
  readonly failures: string[];
  readonly workFailures: unknown[];
}

/**
 * Opens the data folder on `fs` (checking it against `expectations` when the open resolves),
 * then runs one round of work. The blob check reads through a second, unarmed process, so it
 * neither counts as an operation nor meets the cut.
 */
async function runRound(
  fs: CrashFileSystem,
  expectations: StoreExpectations,
  run: Run,
  seed: number,
  label: string,
  tornTails: (count: number) => void = () => undefined,
  onGroupRecorded?: (documents: number) => void,
): Promise<RoundResult> {
  const failures: string[] = [];
  let store: BatchStore;
  let blobs: BlobStore;
  try {
    store = await BatchStore.open(DATA, { fs, compactAfterEntries: 4 });
    blobs = new BlobStore(DATA, { fs, originals: originalsIn(run.originals) });
    await blobs.removeUnfinishedCopies();
  } catch (error) {
    return { operations: fs.operationCount, openedAfter: undefined, failures, workFailures: [error] };
  }
  const openedAfter = fs.operationCount;
  const observer = new CrashFileSystem({}, fs.disk);
  // A batch at rest is read by that process too: reading it back through the store would be an
  // operation of this one, which the cut may fall on (its files do not change meanwhile, where a
  // batch in memory may be folded as the store opens).
  const every = [...store.loaded()];
  for (const outline of store.outlines()) {
    if (store.get(outline.id)) continue;
    const read = await readBatch(join(DATA, 'batches', outline.id), outline.id, observer);
    if (!read.ok) failures.push(`batch at rest ${outline.id} does not read: ${read.error.problem}`);
    else every.push(read.value.state);
  }
  failures.push(...(await expectations.verify(store, every, new BlobStore(DATA, { fs: observer }))));
  tornTails(store.loadReport.recovered.length);
  const workFailures = await runWorkload({
    store,
    blobs,
    expectations,
    plan: createSeededRandom(seed),
    originals: run.originalPaths,
    label,
    ...(onGroupRecorded ? { onGroupRecorded } : {}),
  });
  return { operations: fs.operationCount, openedAfter, failures, workFailures };
}

interface Figures {
  powerCuts: number;
  kills: number;
  operations: number;
  syncs: number;
  /** What the rounds did (renames into place), so a run that stopped doing it is noticed. */
  compactions: number;
  intakes: number;
  /** Groups of several PDFs taken in together and recorded in one call (acknowledged before the cut). */
  groupIntakes: number;
  deletions: number;
  /** Torn last records (or half lines) set aside at an open after a crash. */
  tornTails: number;
  /** Power cuts that wrote a journal's pages out of order (a later page kept, an earlier one lost). */
  outOfOrderCuts: number;
}

/** Counts what a rename is part of: a compaction, a PDF taken in, a torn tail's rewrite, a deletion. */
function countRename(path: string, figures: Figures): void {
  if (path.includes('/snapshot.json.')) figures.compactions += 1;
  else if (path.includes('/blobs/incoming/')) figures.intakes += 1;
  else if (!path.includes('/journal.log.')) figures.deletions += 1;
}

interface RoundPlan {
  readonly roundSeed: number;
  readonly label: string;
  readonly kill: boolean;
  readonly previousKill: boolean;
  readonly draws: () => number;
  readonly where: string;
}

/**
 * Runs the round dry on a copy of the machine to list its operations, and picks the one the
 * crash interrupts: any of them, with three biases toward where durability bugs hide.
 */
async function planCrash(
  machine: Machine,
  expectations: StoreExpectations,
  run: Run,
  plan: RoundPlan,
): Promise<{ cutAt: number; operations: number }> {
  const { roundSeed, draws } = plan;
  const dryFs = startProcess(machine, createSeededRandom(roundSeed), true);
  const journalWrites: number[] = [];
  dryFs.onOperation = ({ index, kind, path }) => {
    if (kind === 'write' && path.endsWith('/journal.log')) journalWrites.push(index);
  };
  const dry = await runRound(dryFs, expectations.clone(), run, roundSeed, plan.label);
  if (dry.workFailures.length > 0) {
    throw new Error(`${plan.where}: the round fails without a crash: ${String(dry.workFailures[0])}`);
  }
  const operations = dry.operations;
  // Half the kills fall right after a journal write: the next process then loads lines that
  // are in the page cache only, which it must make durable before acting on them; and half
  // the rounds after a kill are cut right after their open, before new fsyncs cover them.
  if (plan.kill && journalWrites.length > 0 && draws() < 0.5) {
    return { cutAt: journalWrites[Math.floor(draws() * journalWrites.length)]!, operations };
  }
  // Four power cuts in ten fall on a journal write: the records in flight are then torn, a
  // prefix of their bytes or their pages in any order, and must be dropped whole.
  if (!plan.kill && journalWrites.length > 0 && draws() < 0.4) {
    return { cutAt: journalWrites[Math.floor(draws() * journalWrites.length)]!, operations };
  }
  if (plan.previousKill && dry.openedAfter !== undefined && draws() < 0.5) {
    return { cutAt: Math.min(operations, dry.openedAfter + 1 + Math.floor(draws() * 3)), operations };
  }
  return { cutAt: 1 + Math.floor(draws() * operations), operations };
}

/** One machine through `ROUNDS` crashes; throws with the replay coordinates on the first failure. */
async function runSequence(run: Run, sequence: number, figures: Figures): Promise<void> {
  const sequenceSeed = mix(SEED, sequence);
  const expectations = new StoreExpectations();
  let machine: Machine = { image: { root: { kind: 'directory', entries: new Map() } } };
  let previousCrash = 'none yet';
  let previousKill = false;
  for (let round = 1; round <= ROUNDS + 1; round += 1) {
    const roundSeed = mix(sequenceSeed, round);
    const draws = createSeededRandom(roundSeed ^ 0x5bd1e995);
    const label = `s${sequence}r${round}`;
    const where = `seed ${SEED}, sequence ${sequence}, round ${round}`;
    const last = round === ROUNDS + 1;
    const crashBefore = previousCrash;
    const fs = startProcess(machine, createSeededRandom(roundSeed), false);
    const kill = !last && draws() < 0.2;
    let plan = { cutAt: 0, operations: 0 };
    if (!last) {
      plan = await planCrash(machine, expectations, run, {
        roundSeed,
        label,
        kill,
        previousKill,
        draws,
        where,
      });
      const { cutAt, operations } = plan;
      if (kill) fs.crashAfterOperations(cutAt);
      else fs.cutAfterOperations(cutAt, createSeededRandom(roundSeed ^ 0x27d4eb2f));
      fs.onOperation = (operation) => {
        if (operation.kind === 'rename' && operation.index < cutAt) countRename(operation.path, figures);
        if (operation.index !== cutAt) return;
        const what = kill ? 'process killed' : 'power cut';
        previousCrash = `${what} at operation ${cutAt} of ${operations} (${operation.kind} ${operation.path})`;
      };
    }
    const result = await runRound(
      fs,
      expectations,
      run,
      roundSeed,
      label,
      (count) => (figures.tornTails += count),
      () => (figures.groupIntakes += 1),
    );
    if (result.failures.length > 0) {
      const failures = result.failures.join('\n  ');
      throw new Error(
        `${where}, at the open after crash ${figures.powerCuts + figures.kills} (${crashBefore}):\n  ${failures}`,
      );
    }
    figures.operations += result.operations;
    figures.syncs += fs.syncCount;
    if (last) return;
    if (!fs.dead)
      throw new Error(
        `${where}: the round ended before operation ${plan.cutAt} of ${plan.operations}: not deterministic`,
      );
    previousKill = kill;
    if (kill) {
      figures.kills += 1;
      machine = { disk: fs.disk };
    } else {
      figures.powerCuts += 1;
      if (fs.cutImage!.tornOutOfOrder?.some((path) => path.endsWith('/journal.log')))
        figures.outOfOrderCuts += 1;
      machine = { image: fs.cutImage! };
    }
  }
}

describe('the store through power cuts', () => {
  it(`keeps every acknowledged change and PDF through ${POWER_CUTS} power cuts (POWER_SEED replays)`, async () => {
    console.log(
      `power-cut seed ${SEED} (replay: POWER_SEED=${SEED} npx vitest run test/main/store/power-cut.test.ts)`,
    );
    const originals = new CrashFileSystem();
    const originalPaths: string[] = [];
    for (const title of ['Lease', 'Loan', 'Offer']) {
      const bytes = await makePdfBytes(title);
      // Variants with a comment after the end (each its own digest), so most PDFs a sequence
      // takes in are new copies to write, and some are copies already there.
      for (let variant = 0; variant < 16; variant += 1) {
        const path = `/${title}-${variant}.pdf`;
        const handle = await originals.open(path, 'w');
        await handle.write(bytes);
        if (variant > 0) await handle.write(`%variant ${variant}\n`);
        await handle.close();
        originalPaths.push(path);
      }
    }
    const figures: Figures = {
      powerCuts: 0,
      kills: 0,
      operations: 0,
      syncs: 0,
      compactions: 0,
      intakes: 0,
      groupIntakes: 0,
      deletions: 0,
      tornTails: 0,
      outOfOrderCuts: 0,
    };
    const started = Date.now();
    for (let sequence = 1; figures.powerCuts < POWER_CUTS; sequence += 1) {
      await runSequence({ originals, originalPaths }, sequence, figures);
    }
    console.log(`power-cut figures (${Date.now() - started} ms): ${JSON.stringify(figures)}`);
    expect(figures.powerCuts).toBeGreaterThanOrEqual(POWER_CUTS);
    // The cuts fell among the work this suite is about, not only around it.
    for (const done of [
      'compactions',
      'intakes',
      'groupIntakes',
      'deletions',
      'tornTails',
      'outOfOrderCuts',
    ] as const) {
      expect(figures[done], done).toBeGreaterThan(0);
    }
  }, 300_000);
});
