import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addPdfDocuments } from '../../../main/engine/batch-preparation';
import { phaseOf, type BatchState } from '../../../main/domain/batch-state';
import type { Desk } from '../../../main/app/desk-core';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import type { Simulator } from '../../../simulator/simulator';
import { describeVariant, variantsForSuite, type ServiceVariant } from '../../../simulator/variants';
import { observer, openTestDesk, signer } from '../../support/batch-harness';
import { CrashFileSystem } from '../../support/crash-fs';
import { makePdfBytes, makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { answerChecks } from '../../support/user-checks';
import { startVirtualSimulator } from '../../support/virtual-world';
import { createSeededRandom } from '../../../simulator/seeded-random';
import { everyBatch } from '../../support/every-batch';

/**
 * Power cuts while sending (ARCHITECTURE.md "Principles the code keeps"): the real
 * engine sends batches to the simulator over real HTTP while its data folder lives on the
 * crash-test file system, which drops what was not synced when the power is cut (or writes its
 * pages in any order). The power is cut at random operations, on journal writes, and in the
 * instant after the service created a request (its answer still on the way); the machine
 * restarts from what the disk kept, and sending goes on. Against every service variant: the
 * journal always loads, nothing acknowledged is lost, no document ever has two requests, and in
 * the end every document is prepared exactly once (documents the app could not be sure about
 * are answered as a user would, from what the service shows).
 *
 * The engine and the simulator run in this process on one virtual clock: latency, backoff, the
 * engine's naps and the reboots take no real time, and a cut "right after a creation" lands
 * exactly while the service holds that creation's answer (its latency), never by chance of a
 * poll. What is real is the point: the journal's bytes on the crash-test disk, torn by each cut.
 * The variants run one after the other: a virtual clock moves only once the whole process is
 * quiet, so variants side by side would hold each other's clocks back.
 *
 * POWER_CUTS (default 1,000, over all variants) and POWER_SEED replay a run.
 */
const TOTAL_CUTS = Number(process.env.POWER_CUTS ?? 1_000);
const BASE_SEED = Number(process.env.POWER_SEED ?? 20_261_123);
const DOCUMENTS_PER_BATCH = 5;
const DATA = '/desk-data';
const HOUR = 3_600_000;
/**
 * The time the machine takes to come back (after the app started, for brevity): the app's
 * first reads wait 5 s after it starts (the process before may have just read); the restarted
 * app's first reads are not held back.
 */
const REBOOT_MS = 6_000;

const variants = variantsForSuite();
const cutsPerVariant = Math.ceil(TOTAL_CUTS / variants.length);

interface Machine {
  fs: CrashFileSystem;
  readonly sim: Simulator;
  readonly clock: VirtualClock;
  readonly files: TempFolder;
  readonly pdfs: readonly string[];
  readonly random: () => number;
  batches: number;
}

/** A batch of documents with unique references, one signer each and one extra observer. */
async function addBatch(desk: Desk, machine: Machine): Promise<string> {
  machine.batches += 1;
  const prefix = `B${machine.batches}`;
  const batch = await desk.store.create(prefix, { defaultRecipients: [], locale: 'fr-FR' });
  const { added } = await addPdfDocuments(desk.store, desk.blobs, batch.id, machine.pdfs);
  for (const [index, draft] of added.entries()) {
    const number = machine.batches * 100 + index + 1;
    await desk.store.record(batch.id, [
      {
        type: 'document_edited',
        document: {
          ...draft,
          externalReference: `${prefix}-${index + 1}`,
          recipients: [signer(number)],
          extraParticipants: [observer(number)],
        },
      },
    ]);
  }
  return batch.id;
}

async function openDesk(machine: Machine): Promise<Desk> {
  return openTestDesk(machine.sim, DATA, {
    fs: machine.fs,
    concurrency: 2,
    reuploadBackoffMs: 5,
    replayForIdMs: 10,
    engineWaitMs: { first: 10, longest: 40 },
    retry: { baseDelayMs: 2, maxDelayMs: 20, maxAttempts: 3, maxRetryAfterMs: 5_000 },
    // The service's clock: a weekend passes for both.
    clock: machine.clock,
  });
}

/**
 * Closes what a dead process left open (its file system refuses everything now), and lets the
 * network deliver what it sent before it went down, as the seconds of a real restart do: a
 * read on the wire at the cut would otherwise reach the service after the clock has moved on,
 * a few milliseconds before the next machine's first read of the same request. The service
 * answers calls it holds once their latency has passed on the clock.
 */
async function abandon(desk: Desk, machine: Machine): Promise<void> {
  await machine.clock.complete(
    desk.close().catch(() => undefined),
    { what: 'the dead desk closing' },
  );
  await machine.clock.complete(machine.sim.connectionsClosed(), {
    what: 'the network delivering what was sent',
  });
}

/** What the journal acknowledged: each document's request and whether it was prepared. */
type Acknowledged = Map<string, { requestId: string | undefined; prepared: boolean }>;

function acknowledge(batches: readonly BatchState[], into: Acknowledged): void {
  for (const batch of batches)
    for (const document of batch.documents)
      into.set(`${batch.id}/${document.draft.id}`, {
        requestId: document.send.requestId,
        prepared: document.send.prepared !== undefined,
      });
}

function expectNoDuplicates(sim: Simulator, when: string): void {
  const duplicates = Object.entries(sim.state.countByExternalReference()).filter(([, count]) => count > 1);
  expect(duplicates, when).toEqual([]);
}

describe.each(variants.map((variant, index) => [describeVariant(variant), variant, index] as const))(
  'power cuts while sending, against %s',
  (_description, variant: ServiceVariant, index: number) => {
    it(`survives ${cutsPerVariant} power cuts: nothing lost, nothing sent twice, the journal always loads (seed ${BASE_SEED + index})`, async () => {
      const seed = BASE_SEED + index;
      const random = createSeededRandom(seed);
      const { sim, clock } = await startVirtualSimulator({ seed, variant });
      const files = makeTempFolder('desk-power-cut-');
      try {
        const pdfs: string[] = [];
        for (let n = 1; n <= DOCUMENTS_PER_BATCH; n += 1) {
          const path = files.file(`contract ${n}.pdf`);
          writeFileSync(path, await makePdfBytes(`Contract ${n}`));
          pdfs.push(path);
        }
        sim.faults.set({
          latencyMs: 1,
          latencySpikeRate: 0.05,
          latencySpikeMs: 30,
          rate503: 0.01,
          retryAfterSeconds: 0,
          dropAfterRate: 0.03,
          dropBeforeRate: 0.02,
        });
        const machine: Machine = {
          fs: new CrashFileSystem({ scheduling: createSeededRandom(seed * 7 + 1) }),
          sim,
          clock,
          files,
          pdfs,
          random,
          batches: 0,
        };
        const tally = {
          cuts: 0,
          afterCreate: 0,
          outOfOrder: 0,
          setAside: 0,
          weekends: 0,
          batches: 0,
          linked: 0,
          sentAsNew: 0,
        };
        const acknowledged: Acknowledged = new Map();

        let desk = await openDesk(machine);
        let batchId = await addBatch(desk, machine);
        let roundsWithoutCut = 0;
        while (tally.cuts < cutsPerVariant) {
          if (roundsWithoutCut > 20)
            throw new Error(
              `no progress (seed ${seed}): ${JSON.stringify(desk.store.get(batchId)?.documents.map((d) => [d.draft.externalReference, phaseOf(d), d.send.error?.code]))}`,
            );
          // As the user would at start: answer what needs a check, from what the service shows.
          const answers = await clock.complete(answerChecks(desk.store, desk.engine, sim, batchId));
          tally.linked += answers.linked;
          tally.sentAsNew += answers.sentAsNew;
          const batch = desk.store.get(batchId)!;
          if (batch.documents.every((document) => phaseOf(document) === 'prepared')) {
            tally.batches += 1;
            batchId = await addBatch(desk, machine);
          }
          // Arm a cut: at a random operation, on the first journal write after one (the records
          // in flight are torn, in any order of pages), or right after the service creates a request
          // (checked whenever the clock is about to move: the creation's answer waits out its latency).
          const afterCreate = random() < 0.3;
          const stop = () => desk.engine.pause(batchId);
          const requestsBefore = sim.state.requests().length;
          const cutAfterCreate = (): void => {
            if (afterCreate && sim.state.requests().length > requestsBefore && !machine.fs.dead) {
              stop();
              machine.fs.powerCut(random);
            }
          };
          if (afterCreate) {
            // The cut is made by cutAfterCreate.
          } else if (random() < 0.4) {
            const at = machine.fs.operationCount + 1 + Math.floor(random() * 60);
            machine.fs.onOperation = (operation) => {
              if (
                operation.index < at ||
                operation.kind !== 'write' ||
                !operation.path.endsWith('/journal.log')
              )
                return;
              stop();
              machine.fs.cutAfterOperations(0, random);
            };
          } else {
            const at = machine.fs.operationCount + 1 + Math.floor(random() * 60);
            machine.fs.onOperation = (operation) => {
              if (operation.index >= at) stop();
            };
            machine.fs.cutAfterOperations(at - machine.fs.operationCount, random);
          }
          // The batch being sent is in memory (it has documents on their way).
          acknowledge(desk.store.loaded(), acknowledged);
          const unsubscribe = desk.store.subscribe(() => acknowledge(desk.store.loaded(), acknowledged));
          let sent = false;
          const sending = desk.engine.send(batchId).finally(() => {
            sent = true;
          });
          await clock.runUntil(
            () => {
              cutAfterCreate();
              return sent;
            },
            { what: `the send of round ${tally.cuts + 1} (seed ${seed})` },
          );
          await sending;
          unsubscribe();
          machine.fs.onOperation = undefined;
          const image = machine.fs.cutImage;
          // A cut armed for an operation that never came is disarmed: far beyond any run.
          if (!image) machine.fs.cutAfterOperations(Number.MAX_SAFE_INTEGER, random);
          if (!image) {
            // The batch finished before the cut: no cut this round.
            roundsWithoutCut += 1;
            continue;
          }
          roundsWithoutCut = 0;
          tally.cuts += 1;
          if (afterCreate) tally.afterCreate += 1;
          if (image.tornOutOfOrder?.some((path) => path.endsWith('/journal.log'))) tally.outOfOrder += 1;
          await abandon(desk, machine);
          expectNoDuplicates(sim, `after cut ${tally.cuts} (seed ${seed})`);

          // The machine restarts from what the disk kept. Now and then it stays off over a
          // weekend: the service forgets keys it keeps less than a day, and uploads expire.
          machine.fs = new CrashFileSystem({ image, scheduling: createSeededRandom(seed + tally.cuts) });
          desk = await openDesk(machine);
          if (random() < 0.05) {
            await clock.advance(25 * HOUR);
            tally.weekends += 1;
          } else {
            await clock.advance(REBOOT_MS);
          }
          expect(desk.store.loadReport.damaged, `journal after cut ${tally.cuts} (seed ${seed})`).toEqual([]);
          tally.setAside += desk.store.loadReport.recovered.length;
          for (const batch of await everyBatch(desk.store)) {
            for (const document of batch.documents) {
              const before = acknowledged.get(`${batch.id}/${document.draft.id}`);
              if (!before) continue;
              // Nothing acknowledged is lost: a known request stays known, a prepared one prepared.
              if (before.requestId)
                expect(document.send.requestId ?? document.send.check?.newRequestId).toBeDefined();
              if (before.prepared)
                expect(document.send.prepared, `${document.draft.externalReference}`).toBeDefined();
            }
          }
          acknowledged.clear();
        }

        // The power stays on: every batch finishes, every check is answered.
        for (let round = 0; round < 4; round += 1) {
          let open = 0;
          for (const batch of await everyBatch(desk.store)) {
            const answers = await clock.complete(answerChecks(desk.store, desk.engine, sim, batch.id));
            tally.linked += answers.linked;
            tally.sentAsNew += answers.sentAsNew;
            const summary = await clock.complete(desk.engine.send(batch.id));
            open += summary.needsCheck + summary.failed;
          }
          if (open === 0) break;
        }
        const batches = await everyBatch(desk.store);
        const documents = batches.flatMap((batch) => batch.documents);
        expect(documents.map(phaseOf).filter((phase) => phase !== 'prepared')).toEqual([]);
        const counts = sim.state.countByExternalReference();
        for (const document of documents) {
          expect(counts[document.draft.externalReference], document.draft.externalReference).toBe(1);
          const remote = sim.state.requests().find((request) => request.id === document.send.requestId);
          expect(remote?.externalReference).toBe(document.draft.externalReference);
          expect(remote?.status).toBe('prepared');
          expect(remote?.participants.map((participant) => participant.email).sort()).toEqual(
            [...document.draft.recipients, ...document.draft.extraParticipants].map((p) => p.email).sort(),
          );
        }
        expect(sim.state.violations()).toEqual([]);
        console.log(
          `power cuts, ${describeVariant(variant)} (seed ${seed}): ${tally.cuts} cuts (${tally.afterCreate} right after a creation, ${tally.outOfOrder} tearing a journal out of order), ${tally.setAside} torn records set aside, ${tally.weekends} weekends, ${documents.length} documents in ${batches.length} batches, checks answered: ${tally.linked} linked, ${tally.sentAsNew} sent anew; 0 duplicates`,
        );
        await clock.complete(desk.close());
      } finally {
        await sim.close();
        files.remove();
      }
    }, 600_000);
  },
);
