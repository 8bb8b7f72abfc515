import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_CLIENT,
  describeVariant,
  startSimulator,
  variantsForSuite,
  type Simulator,
} from '../../../simulator/simulator';
import { AnswerHold } from '../../support/answer-hold';
import { answerChecksWithCli, describeCheckAnswers } from '../../support/cli-checks';
import {
  bundleCli,
  killAllCli,
  parseJsonLines,
  runCli,
  startCli,
  type CliResult,
} from '../../support/cli-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { createSeededRandom } from '../../../simulator/seeded-random';
import {
  duplicateReferences,
  expectExactlyOnePreparedRequestEach,
  readLocalDocuments,
  variantSeed,
  writeContractManifest,
  type ContractManifest,
  type LocalDocument,
} from './cli-fixtures';

/**
 * README "Sending exactly once": "A crash or kill at any instant, then a restart, finishes the batch with exactly
 * one signing request per document." The command line runs as a real process and is killed
 * with SIGKILL over and over, at instants chosen three ways, then a last run finishes the batch,
 * against every service the spec allows (`variantsForSuite()`). A kill can leave a creation whose
 * outcome nobody knows; the app then asks the user ("needs your check") instead of sending the
 * document again, and the test answers as the user would, with `resolve`.
 *
 * The kills of each variant are drawn from a seed made of CRASH_SEED and the variant's name (both
 * printed in the test name), and from how far the batch got (`nextKind`), which the speed of the
 * machine moves: the same seed draws the same delays, not always the same order of kinds. Run a
 * failing seed again with
 * CRASH_SEED=<seed> SIM_VARIANTS=<variant> npx vitest run test/main/cli/crash-resume.test.ts
 *
 * The variants run side by side (CRASH_PARALLEL at a time, default 3), each with its own
 * simulator and data folder: their processes mostly wait on the service's latency. A kill right
 * after the service created a request or stored an upload is made as the service finishes that
 * work, and every answer is held until the process is dead (answer-hold.ts): it lands in its
 * window however loaded the machine is.
 */
const SEED = Number(process.env.CRASH_SEED ?? 20_260_301);
const DOCUMENTS = 16;
const CONCURRENCY = 4;
const KILLS_EACH_KIND = 3;
const HOUR = 3_600_000;

type KillKind = 'random-delay' | 'during-upload' | 'after-create';
const KINDS: readonly KillKind[] = ['random-delay', 'during-upload', 'after-create'];
const KILLS_WANTED = KILLS_EACH_KIND * KINDS.length;
const PARALLEL = Math.max(1, Number(process.env.CRASH_PARALLEL ?? 3));

/** Runs at most PARALLEL variants at once; the others wait for a place. */
const places = {
  free: PARALLEL,
  waiting: [] as (() => void)[],
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    }
  },
};

let files: TempFolder;
let cliPath: string;
let manifest: ContractManifest;
/** One line per variant, printed together at the end. */
const report: string[] = [];

beforeAll(async () => {
  files = makeTempFolder('desk-cli-crash-');
  cliPath = await bundleCli(files.path);
  // 200–400 KB each, so that an upload takes measurable time. Every variant sends the same
  // manifest into its own data folder.
  manifest = await writeContractManifest(files, {
    count: DOCUMENTS,
    pages: { min: 20, max: 40 },
    seed: SEED,
  });
}, 60_000);

afterAll(async () => {
  await killAllCli();
  files?.remove();
  if (report.length > 0) console.log(`crash-resume (CRASH_SEED=${SEED}):\n  ${report.join('\n  ')}`);
});

/**
 * Documents a run typically carries past a step before its kill lands (not a limit): the engine
 * works on twice as many documents as it has call slots (send-engine.ts).
 */
const PER_RUN = 2 * CONCURRENCY;

/**
 * The documents left for each kind of kill: a kill during an upload needs a document still to
 * upload, one after a creation a document still to create (not one whose creation went out
 * already: its replay creates nothing), and a random delay documents still open, else the run
 * may finish the batch before its delay. Counted low where in doubt. Documents the data folder
 * does not hold yet (the first run imports them) have everything to do.
 */
function workLeft(local: readonly LocalDocument[]): Record<KillKind, number> {
  const past = (test: (document: LocalDocument) => boolean) => local.filter(test).length;
  const closed = (document: LocalDocument) =>
    document.phase === 'prepared' || document.phase === 'needs_check' || document.phase === 'failed';
  const createSent = (document: LocalDocument) =>
    document.requestId !== undefined || document.createInFlight || document.createUnknown;
  return {
    'random-delay': DOCUMENTS - past(closed),
    'during-upload':
      DOCUMENTS -
      past((document) => closed(document) || document.uploadId !== undefined || document.createAttempted),
    'after-create': DOCUMENTS - past((document) => closed(document) || createSent(document)),
  };
}

/**
 * The kinds in the order every run uses up their work: a document still to upload is also still
 * to create, and open; any run, whatever kills it, may upload several documents first.
 */
const SCARCEST_FIRST: readonly KillKind[] = ['during-upload', 'after-create', 'random-delay'];

/**
 * The kind of the next kill. While every kind has a run's worth of work for each of its kills
 * left, it is drawn at random, each kind as likely as its kills left, so the kinds come mixed.
 * Once one runs short (a run can carry several documents past a step before its kill, and a run
 * that ends by itself tests nothing), the short kind whose work runs out first comes first.
 */
function nextKind(
  left: Readonly<Record<KillKind, number>>,
  work: Readonly<Record<KillKind, number>>,
  random: () => number,
): KillKind | undefined {
  const possible = KINDS.filter((kind) => left[kind] > 0 && work[kind] > 0);
  const short = SCARCEST_FIRST.find((kind) => possible.includes(kind) && work[kind] < PER_RUN * left[kind]);
  if (short) return short;
  let draw = random() * possible.reduce((sum, kind) => sum + left[kind], 0);
  return possible.find((kind) => (draw -= left[kind]) < 0) ?? possible.at(-1);
}

/**
 * Of the requests or the uploads the service made (its lists only grow, in the order it made
 * them), those from the `since`-th on that the data folder does not know yet.
 */
async function unknownLocally(
  service: Simulator,
  dataDir: string,
  of: 'requests' | 'uploads',
  since = 0,
): Promise<string[]> {
  const local = await readLocalDocuments(dataDir);
  const known = new Set(
    local.map((document) => (of === 'requests' ? document.requestId : document.uploadId)),
  );
  const made =
    of === 'requests'
      ? service.state.requests().map((request) => request.id)
      : service.state.uploads().map((upload) => upload.uploadId);
  return made.slice(since).filter((id) => !known.has(id));
}

/** Where the documents of the data folder stand, and the work left for each kind of kill. */
function describeLocal(local: readonly LocalDocument[]): string {
  const count = (phase: LocalDocument['phase']) =>
    local.filter((document) => document.phase === phase).length;
  const work = workLeft(local);
  return `${count('prepared')} prepared, ${count('needs_check')} need a check, ${count('failed')} failed; left to upload ${work['during-upload']}, to create ${work['after-create']}, open ${work['random-delay']}`;
}

interface RunOutcome {
  readonly killed: boolean;
  /** Killed before its planned instant because the batch was about to finish. */
  readonly killedNearTheEnd: boolean;
  readonly result: CliResult;
  /** How many uploads and requests the service held when the run began to send. */
  readonly atSendingStart: { readonly uploads: number; readonly requests: number };
}

/**
 * Documents still open at which a random-delay run is killed whatever its delay: a run that
 * finishes the batch tests nothing, and the last documents may need only a call or two.
 */
const OPEN_AT_LEAST = 2;

/** When a kill lands: its kind, and for a random delay, the delay and what it counts from. */
interface KillPlan {
  readonly kind: KillKind;
  readonly delayMs: number;
  /** From the start of the process (a kill while it loads and imports the manifest), or from
   * its first engine event (a kill while it sends). */
  readonly from: 'process-start' | 'sending-start';
}

function describePlan(plan: KillPlan): string {
  return plan.kind === 'random-delay' ? `${plan.kind} ${plan.delayMs} ms after ${plan.from}` : plan.kind;
}

/** One `send` run, killed with SIGKILL at the instant the plan picks (unless it ends first). */
async function sendAndKill(
  service: Simulator,
  hold: AnswerHold,
  args: readonly string[],
  plan: KillPlan,
): Promise<RunOutcome> {
  const cli = startCli(cliPath, args, { credentials: DEMO_CLIENT });
  let killRequested = false;
  const killNow = () => {
    if (killRequested) return;
    killRequested = true;
    void cli.kill();
  };
  let timer: NodeJS.Timeout | undefined;
  /**
   * Kills the process as soon as the service holds more than it did when `count` is first read:
   * the service has just done that work, and no answer leaves until the process is dead.
   */
  const killOnceMore = (count: () => number) => {
    const before = count();
    hold.onWorkDone = () => {
      if (killRequested || count() <= before) return;
      hold.holdUntil(cli.done);
      killNow();
    };
  };
  const serviceHolds = () => ({
    uploads: service.state.uploads().length,
    requests: service.state.requests().length,
  });
  let atSendingStart = serviceHolds();
  let sending = false;
  let killedNearTheEnd = false;
  if (plan.kind === 'random-delay' && plan.from === 'process-start')
    timer = setTimeout(killNow, plan.delayMs);
  if (plan.kind === 'random-delay') {
    cli.onStdoutLine((line) => {
      if (killRequested || !line.includes('"type":"batch-progress"')) return;
      const { counts, total } = JSON.parse(line) as { counts: Record<string, number>; total: number };
      const closed = (counts.prepared ?? 0) + (counts.needs_check ?? 0) + (counts.failed ?? 0);
      if (total - closed > OPEN_AT_LEAST) return;
      killedNearTheEnd = true;
      killNow();
    });
  }
  // Watched from the first engine event: the previous (killed) run's last bytes, still in its
  // socket when it died, have reached the service by then (the process takes a few hundred
  // milliseconds to start), and are not taken for this run's.
  cli.onStdoutLine((line) => {
    if (sending || !line.includes('"type":"engine-state"')) return;
    sending = true;
    atSendingStart = serviceHolds();
    switch (plan.kind) {
      case 'random-delay':
        if (plan.from === 'sending-start') timer = setTimeout(killNow, plan.delayMs);
        break;
      case 'during-upload':
        // The service has just stored a whole upload; its answer is still on its way to the client.
        // (Watched at the service, not in the client's progress events: those follow the pace of
        // the line, and a bar may never show the last byte before the answer comes.)
        killOnceMore(() => service.state.uploads().length);
        break;
      case 'after-create':
        // The service has just created a request; its answer is still on its way to the client.
        killOnceMore(() => service.state.requests().length);
        break;
    }
  });
  const result = await cli.done;
  clearTimeout(timer);
  hold.onWorkDone = undefined;
  return { killed: result.signal === 'SIGKILL', killedNearTheEnd, result, atSendingStart };
}

describe.concurrent.each(variantsForSuite().map((variant) => [describeVariant(variant), variant] as const))(
  'send, killed at any instant and run again — %s',
  (_line, variant) => {
    const seed = variantSeed(SEED, variant);
    it(
      `finishes the batch with exactly one prepared request per document (CRASH_SEED=${SEED}, kill schedule seed ${seed})`,
      () =>
        places.run(async () => {
          const startedAt = Date.now();
          const hold = new AnswerHold();
          const service = await startSimulator({ seed, variant, timeSource: hold });
          try {
            // The simulator waits its latency after doing the work and before answering: every answer,
            // the one to a create included, is on its way for a while after the service acted, and a
            // kill in that window leaves a request the client has not heard of (the window is held
            // open until the process is dead). The latency also paces the runs, so that one killed
            // after a random delay has done part of the batch, not all of it.
            service.faults.set({ latencyMs: 50, latencySpikeRate: 0.25, latencySpikeMs: 75 });
            const dataDir = files.file(`data-${variant.name}`);
            const connection = ['--base-url', service.baseUrl, '--data-dir', dataDir];
            const args = [
              'send',
              manifest.path,
              ...connection,
              '--json',
              '--concurrency',
              String(CONCURRENCY),
            ];
            const random = createSeededRandom(seed);
            const kills: Record<KillKind, number> = {
              'random-delay': 0,
              'during-upload': 0,
              'after-create': 0,
            };
            const unknownAfterKill: number[] = [];
            const log: string[] = [];
            const where = `${variant.name}, seed ${seed}`;
            let runs = 0;
            /** The data folder after the last kill, and in words. */
            let local: LocalDocument[] = [];
            let lastState = 'nothing sent yet';

            while (unknownAfterKill.length < KILLS_WANTED) {
              const left = { ...kills };
              for (const kind of KINDS) left[kind] = KILLS_EACH_KIND - kills[kind];
              const kind = nextKind(left, workLeft(local), random);
              if (!kind) {
                throw new Error(
                  `no work left for the kills still to come ${JSON.stringify(left)}, the batch: ${lastState} (${where}):\n  ${log.join('\n  ')}`,
                );
              }
              // A random delay is short, so that a run does little of the batch: kills must keep
              // landing in the middle of the work.
              const fromProcessStart = random() < 0.3;
              const plan: KillPlan = {
                kind,
                from: fromProcessStart ? 'process-start' : 'sending-start',
                delayMs: Math.floor(random() * (fromProcessStart ? 600 : 400)),
              };
              runs += 1;
              const { killed, killedNearTheEnd, result, atSendingStart } = await sendAndKill(
                service,
                hold,
                args,
                plan,
              );
              if (!killed) {
                // The batch finished before enough kills: the schedule no longer tests anything.
                // Its first line says what was left to do: a failure list shows only that line.
                throw new Error(
                  `run ${runs} (${describePlan(plan)}) ended by itself with exit ${result.code} after ${unknownAfterKill.length} kills, the batch before it: ${lastState} (${where}):\n  ${log.join('\n  ')}\n${result.stdout.slice(-1_500)}\n${result.stderr}`,
                );
              }
              kills[kind] += 1;
              const unknown = await unknownLocally(service, dataDir, 'requests');
              unknownAfterKill.push(unknown.length);
              // The kill landed in the window it was meant for (a check of the test itself): the answer
              // to this run's creation, or upload, was still on its way, and the client cannot know it.
              // (An upload it never heard of is uploaded again; the other one expires at the service.)
              if (kind === 'after-create') {
                expect(
                  await unknownLocally(service, dataDir, 'requests', atSendingStart.requests),
                  `this run's requests the client never heard of, after kill ${unknownAfterKill.length} (${where})`,
                ).not.toEqual([]);
              }
              if (kind === 'during-upload') {
                expect(
                  await unknownLocally(service, dataDir, 'uploads', atSendingStart.uploads),
                  `this run's uploads the client never heard of, after kill ${unknownAfterKill.length} (${where})`,
                ).not.toEqual([]);
              }
              // Never more than one request per document, at any point.
              expect(
                duplicateReferences(service),
                `after kill ${unknownAfterKill.length} (${kind}, ${where})`,
              ).toEqual([]);
              local = await readLocalDocuments(dataDir);
              lastState = `${describeLocal(local)}, ${unknown.length} unknown`;
              log.push(
                `${describePlan(plan)}${killedNearTheEnd ? ` (killed first, ${OPEN_AT_LEAST} documents open)` : ''}: ${lastState}`,
              );
            }

            // The last run comes a day and an hour later (the service's clock): every upload has expired,
            // and a service that keeps idempotency keys 1 h or 24 h has forgotten them, so a creation a
            // kill left unknown is refused instead of replayed. It goes to the end; the documents whose
            // creation is unknown and which the service refused or created anew wait for the user:
            // exit 1, one line each. (A shorter gap, keys forgotten but uploads alive, would let such a
            // service create a second request that no client can prevent: not a promise of the app.)
            service.clock.advance(25 * HOUR);
            const final = await runCli(cliPath, args, { credentials: DEMO_CLIENT });
            expect(final.stderr).toBe('');
            const finalEvents = parseJsonLines(final.stdout);
            expect(finalEvents.filter((event) => event.type === 'item-failed')).toEqual([]);
            const finalSummary = finalEvents.at(-1);
            expect(finalSummary, final.stdout.slice(-2_000)).toMatchObject({
              type: 'summary',
              state: 'finished',
              failed: 0,
            });
            const needsCheck = Number(finalSummary?.needsCheck);
            expect(Number(finalSummary?.prepared) + needsCheck).toBe(DOCUMENTS);
            expect(finalEvents.filter((event) => event.type === 'needs-check')).toHaveLength(needsCheck);
            expect(final.code, final.stdout.slice(-2_000)).toBe(needsCheck === 0 ? 0 : 1);
            expect(duplicateReferences(service), `after the last send (${where})`).toEqual([]);

            // The user answers each of them: links the request the service holds, or sends anew.
            const checks = await answerChecksWithCli(
              cliPath,
              service,
              manifest.path,
              connection,
              final.stdout,
            );
            expect(checks.answers).toHaveLength(needsCheck);
            expect((checks.lastRun ?? final).code).toBe(0);
            expect(checks.summary).toMatchObject({
              type: 'summary',
              state: 'finished',
              prepared: DOCUMENTS,
              failed: 0,
              needsCheck: 0,
            });

            const line = `${variant.name} (seed ${seed}): ${runs} killed runs ${JSON.stringify(kills)}, requests unknown locally after each kill ${unknownAfterKill.join(',')}; ${describeCheckAnswers(checks)}; duplicates ${duplicateReferences(service).length}; ${((Date.now() - startedAt) / 1000).toFixed(1)} s`;
            report.push(line);
            console.log(`${line}\n  ${log.join('\n  ')}`);

            await expectExactlyOnePreparedRequestEach(service, manifest, dataDir);
            expect(service.state.violations()).toEqual([]);

            const status = await runCli(cliPath, ['status', '--data-dir', dataDir, '--json'], {
              credentials: null,
            });
            expect(status.code).toBe(0);
            expect(parseJsonLines(status.stdout).at(-1)).toMatchObject({
              type: 'summary',
              documents: DOCUMENTS,
              prepared: DOCUMENTS,
              failed: 0,
            });
          } finally {
            await service.close();
          }
        }),
      600_000,
    );
  },
);
