/**
 * Throughput of the send engine: 200 real 1 MiB PDFs, two participants each (one recipient at
 * creation, one added afterwards), sent to the simulator running in a process of its own with
 * 25 ms of latency on every call, so this process runs the app alone. Only `engine.send` is
 * timed; preparation (copy into the data folder) is reported apart. Measured one at a time and
 * with 4 and 8 calls in flight against the ideal (calls × latency ÷ concurrency). The journal's
 * fsyncs are counted on every run (the data folder's disk is wrapped, syncs counted, nothing
 * else changed); a diagnostic pass then times each step of a document to show where the time
 * above the ideal goes.
 *
 * Run alone: `npx tsx bench/throughput.ts`.
 */
import { readFileSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { BatchEvent } from '../main/domain/batch-events';
import { openDesk, type Desk } from '../main/app/desk-core';
import { Secret } from '../main/base/secret';
import { makeTempFolder, type TempFolder } from '../test/support/pdf-files';
import { prepareBatch, type BenchDocument } from './support/batch-setup';
import { CountingFileSystem } from './support/counting-fs';
import { meanMs, probeDurableAppend, timeMethod, type Timings } from './support/instrument';
import { writeBenchDocuments } from './support/bench-documents';
import { measureRawFloor, type RawFloor } from './support/raw-floor';
import { startSimulatorProcess } from './support/simulator-process';
import {
  formatMs,
  isMainModule,
  median,
  MIB,
  progress,
  runAlone,
  table,
  verdictLine,
  type BenchReport,
  type Verdict,
} from './support/report';

const DOCUMENTS = 200;
const DOCUMENT_BYTES = MIB;
const LATENCY_MS = 25;
/** Target: at most 5 % above the latency-bound ideal, one at a time and with 4 and 8 calls in flight. */
const TARGET_RATIO = 1.05;
/** Measured runs per concurrency; verdicts use the best run, the median is shown beside it. */
const RUNS: readonly { readonly concurrency: number; readonly repeats: number }[] = [
  { concurrency: 1, repeats: 2 },
  { concurrency: 4, repeats: 3 },
  { concurrency: 8, repeats: 3 },
];
/** Documents of the raw floor (the same calls without the app), by concurrency: one at a time is slow. */
const FLOOR_DOCUMENTS: ReadonlyMap<number, number> = new Map([
  [1, 100],
  [4, DOCUMENTS],
  [8, DOCUMENTS],
]);
/** Diagnostic (instrumented) runs: fewer documents one at a time, where each takes longest. */
const DIAGNOSTIC_RUNS: readonly { readonly concurrency: number; readonly documents: number }[] = [
  { concurrency: 1, documents: 50 },
  { concurrency: 4, documents: DOCUMENTS },
  { concurrency: 8, documents: DOCUMENTS },
];
const STEPS = [
  ['uploadDocument', 'upload (1 MiB)'],
  ['createSigningRequest', 'create request'],
  ['addParticipant', 'add participant'],
  ['prepareSigningRequest', 'prepare'],
] as const;

interface SendRun {
  readonly concurrency: number;
  readonly documents: number;
  readonly prepMs: number;
  readonly sendMs: number;
  /** Calls the simulator answered during the send. */
  readonly calls: number;
  /** fsyncs of journals during the send (each covers every record written before it). */
  readonly journalSyncs: number;
  /** Other fsyncs during the send (files and folders). */
  readonly otherSyncs: number;
  /** Main-thread busy share during the send (the app alone). */
  readonly eventLoopUtilization: number;
  readonly timings: Timings | undefined;
}

/** Writes the source PDFs once; every run prepares its own copy of them. */
async function writeSources(folder: TempFolder): Promise<BenchDocument[]> {
  return writeBenchDocuments(folder, {
    count: DOCUMENTS,
    sizeBytes: DOCUMENT_BYTES,
    title: 'Benchmark contract',
    referencePrefix: 'REF',
  });
}

/** Events stored alone inside a call's slot, right before the call leaves. */
const MARKERS: ReadonlySet<BatchEvent['type']> = new Set(['create_attempt_started', 'participant_attempted']);

/**
 * Times the store's records on this desk until each is durable: markers (stored inside a
 * call's slot, so a call waits for them) as `marker`, every other record as `answer` (awaited
 * outside the slots, while other documents call).
 */
function timeRecords(desk: Desk, timings: Timings): void {
  const record = desk.store.record.bind(desk.store);
  const timed = async (batchId: string, events: readonly BatchEvent[]) => {
    const started = performance.now();
    try {
      return await record(batchId, events);
    } finally {
      const name = events.every((event) => MARKERS.has(event.type)) ? 'marker' : 'answer';
      const timing = timings.get(name) ?? { count: 0, totalMs: 0 };
      timing.count += 1;
      timing.totalMs += performance.now() - started;
      timings.set(name, timing);
    }
  };
  Object.defineProperty(desk.store, 'record', { value: timed, configurable: true, writable: true });
}

/** Wraps the client's calls and the store's durable record on this desk only. */
function instrument(desk: Desk): Timings {
  const timings: Timings = new Map();
  for (const [method] of STEPS) timeMethod(desk.client, method, timings);
  timeRecords(desk, timings);
  return timings;
}

/** One send of a freshly prepared batch, against a fresh simulator process and data folder. */
async function sendOnce(
  sources: readonly BenchDocument[],
  folder: TempFolder,
  concurrency: number,
  label: string,
  diagnostic = false,
): Promise<SendRun> {
  const sim = await startSimulatorProcess(LATENCY_MS);
  const dataDir = folder.file(`data-${label}`);
  const fs = new CountingFileSystem();
  let desk: Desk | undefined;
  try {
    const opening = await openDesk({
      dataDir,
      fs,
      connection: {
        baseUrl: sim.baseUrl,
        clientId: sim.clientId,
        clientSecret: new Secret(sim.clientSecret),
      },
      concurrency,
    });
    if (!opening.ok) throw new Error(opening.error);
    desk = opening.value;
    const prepStarted = performance.now();
    const batch = await prepareBatch(desk, `Throughput ${label}`, sources);
    const prepMs = performance.now() - prepStarted;
    const timings = diagnostic ? instrument(desk) : undefined;
    const callsBefore = await sim.totalCalls();
    const syncsBefore = fs.counts();
    const loopBefore = performance.eventLoopUtilization();
    const started = performance.now();
    const summary = await desk.engine.send(batch.id);
    const sendMs = performance.now() - started;
    const loop = performance.eventLoopUtilization(loopBefore);
    const syncs = fs.counts();
    if (summary.state !== 'finished' || summary.prepared !== sources.length || summary.failed !== 0) {
      throw new Error(`send did not finish cleanly: ${JSON.stringify(summary)}`);
    }
    return {
      concurrency,
      documents: sources.length,
      prepMs,
      sendMs,
      calls: (await sim.totalCalls()) - callsBefore,
      journalSyncs: syncs.journal - syncsBefore.journal,
      otherSyncs: syncs.other - syncsBefore.other,
      eventLoopUtilization: loop.utilization,
      timings,
    };
  } finally {
    await desk?.close();
    await sim.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function idealMs(run: SendRun): number {
  return (run.calls * LATENCY_MS) / run.concurrency;
}

/** Time each call takes per worker beyond the latency: (wall × concurrency ÷ calls) − latency. */
function overheadPerCallMs(run: SendRun): number {
  return (run.sendMs * run.concurrency) / run.calls - LATENCY_MS;
}

/** The fastest run: other work on the machine only ever adds time. */
function bestRun(runs: readonly SendRun[]): SendRun {
  const best = [...runs].sort((a, b) => a.sendMs - b.sendMs)[0];
  if (!best) throw new Error('no run');
  return best;
}

function medianRun(runs: readonly SendRun[]): SendRun {
  const middle = median(runs.map((run) => run.sendMs));
  const closest = [...runs].sort((a, b) => Math.abs(a.sendMs - middle) - Math.abs(b.sendMs - middle))[0];
  if (!closest) throw new Error('no run');
  return closest;
}

function syncsPerDocument(run: SendRun): number {
  return run.journalSyncs / run.documents;
}

/**
 * A document's journal: its records, the time its calls waited for their markers (in the call
 * slots: what the journal adds to the send), and the time it waited for all its records.
 */
function journalCost(run: SendRun): {
  readonly records: number;
  readonly markers: number;
  readonly inSlotsMs: number;
  readonly waitedMs: number;
} {
  const count = (name: string) => (run.timings?.get(name)?.count ?? 0) / run.documents;
  const total = (name: string) => (run.timings?.get(name)?.totalMs ?? 0) / run.documents;
  return {
    records: count('marker') + count('answer'),
    markers: count('marker'),
    inSlotsMs: run.timings ? total('marker') : Number.NaN,
    waitedMs: run.timings ? total('marker') + total('answer') : Number.NaN,
  };
}

function diagnosticLines(runs: readonly SendRun[]): string[] {
  const header = ['step (mean per call)', 'per doc', ...runs.map((run) => `c=${run.concurrency}`)];
  const rows: string[][] = [header];
  const inSlots = runs.map(() => 0);
  for (const [method, label] of STEPS) {
    rows.push([
      label,
      '1',
      ...runs.map((run, index) => {
        const mean = run.timings ? meanMs(run.timings, method) : Number.NaN;
        inSlots[index] = (inSlots[index] ?? 0) + mean;
        return `${mean.toFixed(1)} ms (+${(mean - LATENCY_MS).toFixed(1)})`;
      }),
    ]);
  }
  const costs = runs.map(journalCost);
  const first = costs[0];
  rows.push([
    'journal marker (in the call slot)',
    (first?.markers ?? 0).toFixed(0),
    ...runs.map((run, index) => {
      inSlots[index] = (inSlots[index] ?? 0) + (costs[index]?.inSlotsMs ?? 0);
      return `${(run.timings ? meanMs(run.timings, 'marker') : Number.NaN).toFixed(2)} ms`;
    }),
  ]);
  rows.push([
    'journal answer (outside the slots)',
    ((first?.records ?? 0) - (first?.markers ?? 0)).toFixed(0),
    ...runs.map((run) => `${(run.timings ? meanMs(run.timings, 'answer') : Number.NaN).toFixed(2)} ms`),
  ]);
  rows.push(['journal fdatasyncs', '', ...runs.map((run) => syncsPerDocument(run).toFixed(2))]);
  rows.push(['= a document in the call slots', '', ...inSlots.map((ms) => `${ms.toFixed(0)} ms`)]);
  rows.push([
    'measured: wall × c ÷ documents',
    '',
    ...runs.map((run) => `${((run.sendMs * run.concurrency) / run.documents).toFixed(0)} ms`),
  ]);
  rows.push(['ideal: 4 calls × 25 ms', '', ...runs.map(() => `${4 * LATENCY_MS} ms`)]);
  rows.push([
    'ratio actual/ideal in this run',
    '',
    ...runs.map((run) => (run.sendMs / idealMs(run)).toFixed(2)),
  ]);
  rows.push([
    'main thread busy (the app)',
    '',
    ...runs.map((run) => `${(run.eventLoopUtilization * 100).toFixed(0)} %`),
  ]);
  const shares = runs.map((run, index) => {
    const timings = run.timings;
    if (!timings) return '';
    const journal = costs[index]?.inSlotsMs ?? 0;
    const upload = meanMs(timings, 'uploadDocument') - LATENCY_MS;
    const json = STEPS.slice(1).reduce((sum, [method]) => sum + meanMs(timings, method) - LATENCY_MS, 0);
    const measured = (run.sendMs * run.concurrency) / run.documents - 4 * LATENCY_MS;
    const rest = measured - journal - upload - json;
    const share = (ms: number) => `${((ms / measured) * 100).toFixed(0)} %`;
    return `c=${run.concurrency}: ${measured.toFixed(1)} ms a document above latency: journal markers ${share(journal)}, upload ${share(upload)}, JSON calls ${share(json)}, slots idle or between calls ${share(rest)}`;
  });
  return [
    ...table(rows),
    `  Journal records per document: ${(first?.records ?? 0).toFixed(0)}, of which ${(first?.markers ?? 0).toFixed(0)} markers stored inside the call's slot, right before a creation or a participant call leaves (a call waits for them); the answers are awaited outside the slots, while other documents call. Records share their fdatasync (group commit: those made while one event is handled go into one write and one sync, and those that arrive while a sync runs into the next).`,
    '  Where the time above latency goes, per document (from the measured wall time):',
    ...shares.filter(Boolean).map((share) => `    ${share}`),
  ];
}

/** The raw floor at `concurrency`, against a fresh simulator process. */
async function floorAt(pdf: Buffer, concurrency: number): Promise<RawFloor> {
  const sim = await startSimulatorProcess(LATENCY_MS);
  try {
    return await measureRawFloor(sim, pdf, concurrency, FLOOR_DOCUMENTS.get(concurrency) ?? DOCUMENTS);
  } finally {
    await sim.close();
  }
}

function floorRatio(floor: RawFloor): number {
  return floor.wallMs / ((floor.calls * LATENCY_MS) / floor.concurrency);
}

/** Runs the throughput benchmark and returns its report. */
export async function runThroughputBench(): Promise<BenchReport> {
  const folder = makeTempFolder('bench-throughput-');
  try {
    progress(`writing ${DOCUMENTS} PDFs of ${DOCUMENT_BYTES / MIB} MiB`);
    const sources = await writeSources(folder);
    const fsyncBackToBack = await probeDurableAppend(folder.path, 0);
    const fsyncSpaced = await probeDurableAppend(folder.path, LATENCY_MS);
    const measured = new Map<number, SendRun[]>();
    for (const { concurrency, repeats } of RUNS) {
      for (let repeat = 1; repeat <= repeats; repeat += 1) {
        progress(`sending at concurrency ${concurrency} (run ${repeat}/${repeats})`);
        const run = await sendOnce(sources, folder, concurrency, `c${concurrency}-${repeat}`);
        measured.set(concurrency, [...(measured.get(concurrency) ?? []), run]);
      }
    }
    const diagnostics: SendRun[] = [];
    for (const { concurrency, documents } of DIAGNOSTIC_RUNS) {
      progress(`diagnostic run at concurrency ${concurrency} (${documents} documents, instrumented)`);
      diagnostics.push(
        await sendOnce(sources.slice(0, documents), folder, concurrency, `diag-c${concurrency}`, true),
      );
    }

    const pdf = readFileSync(sources[0]?.path ?? '');
    const floors = new Map<number, RawFloor>();
    for (const { concurrency } of RUNS) {
      progress(`the same calls without the app at concurrency ${concurrency} (raw floor)`);
      floors.set(concurrency, await floorAt(pdf, concurrency));
    }

    const one = bestRun(measured.get(1) ?? []);
    const verdicts: Verdict[] = [];
    const rows: string[][] = [
      [
        'concurrency',
        'runs',
        'best',
        'ideal',
        'best/ideal',
        'median/ideal',
        'speed-up vs c=1',
        'per call above latency',
        'journal syncs/doc',
      ],
    ];
    for (const { concurrency } of RUNS) {
      const runs = measured.get(concurrency) ?? [];
      const best = bestRun(runs);
      const ratio = best.sendMs / idealMs(best);
      rows.push([
        String(concurrency),
        runs.map((run) => formatMs(run.sendMs)).join(' / '),
        formatMs(best.sendMs),
        formatMs(idealMs(best)),
        ratio.toFixed(3),
        (medianRun(runs).sendMs / idealMs(best)).toFixed(3),
        concurrency === 1 ? '1.00×' : `${(one.sendMs / best.sendMs).toFixed(2)}×`,
        `${overheadPerCallMs(best).toFixed(1)} ms`,
        runs.map((run) => syncsPerDocument(run).toFixed(2)).join(' / '),
      ]);
      verdicts.push({
        name: `throughput c=${concurrency}, actual/ideal (best of ${runs.length})`,
        figure: ratio.toFixed(3),
        target: `≤ ${TARGET_RATIO}`,
        meets: ratio <= TARGET_RATIO,
      });
    }
    const floorRows: string[][] = [
      ['concurrency', 'raw calls, no app', 'floor/ideal', 'app best/ideal', 'app ÷ floor'],
    ];
    for (const { concurrency } of RUNS) {
      const floor = floors.get(concurrency);
      const best = bestRun(measured.get(concurrency) ?? []);
      if (!floor) continue;
      const appRatio = best.sendMs / idealMs(best);
      floorRows.push([
        String(concurrency),
        `${formatMs(floor.wallMs)} for ${floor.documents} documents`,
        floorRatio(floor).toFixed(3),
        appRatio.toFixed(3),
        (appRatio / floorRatio(floor)).toFixed(3),
      ]);
    }
    const reference = bestRun(measured.get(4) ?? []);
    const prepMs = median([...measured.values()].flat().map((run) => run.prepMs));
    const journalLine = diagnostics.map((run) => {
      const cost = journalCost(run);
      return `c=${run.concurrency} ${syncsPerDocument(run).toFixed(2)} fdatasyncs, ${cost.inSlotsMs.toFixed(1)} ms in the call slots (its markers), ${cost.waitedMs.toFixed(1)} ms waiting for its ${cost.records.toFixed(0)} records in all`;
    });
    const lines = [
      `  ${DOCUMENTS} PDFs × ${DOCUMENT_BYTES / MIB} MiB, 2 participants each (1 at creation + 1 added), simulator latency ${LATENCY_MS} ms on every call, simulator in a process of its own (this event loop runs the app alone).`,
      `  Timed: desk.engine.send(batchId) only. Fresh simulator process and data folder per run.`,
      `  Calls per send: ${reference.calls} (a token, then upload, create, add participant and prepare per document).`,
      `  Ideal = calls × ${LATENCY_MS} ms ÷ concurrency. "Per call above latency" = wall × concurrency ÷ calls − ${LATENCY_MS} ms.`,
      '  Verdicts use the best run (other processes on the machine only add time); the median is shown beside it.',
      '',
      ...table(rows),
      '',
      ...verdicts.map(verdictLine),
      `  Speed-up over one at a time (measured, best runs, c=1 ${formatMs(one.sendMs)}): c=4 ${(one.sendMs / reference.sendMs).toFixed(2)}×, c=8 ${(one.sendMs / bestRun(measured.get(8) ?? []).sendMs).toFixed(2)}× (ideal 4× and 8×).`,
      `  The journal's cost per document (diagnostic runs): ${journalLine.join('; ')}. Other fsyncs during a send: ${reference.otherSyncs}.`,
      `  Preparation (excluded above): ${formatMs(prepMs)} median for ${DOCUMENTS} MiB copied and hashed.`,
      '',
      '  The floor under the ideal: the same calls without the app (per document one 1 MiB upload and three JSON calls, answered after the latency; raw undici, one token, nothing stored) against a fresh simulator process. The ideal counts the latency only; the simulator process and loopback HTTP take the rest of the floor, which no client can go under on the machine that runs it.',
      ...table(floorRows),
      '',
      '  Where the time goes (diagnostic runs, client calls and store.record timed on the instance):',
      ...diagnosticLines(diagnostics),
      `  Disk of the data folder, one ~300-byte append + fdatasync (probe, nothing else running in this process): back to back ${fsyncBackToBack.p50.toFixed(2)} ms median / ${fsyncBackToBack.p90.toFixed(2)} ms p90; ${LATENCY_MS} ms apart ${fsyncSpaced.p50.toFixed(2)} / ${fsyncSpaced.p90.toFixed(2)} ms.`,
    ];
    return { title: 'Throughput: send engine, 200 × 1 MiB', lines, verdicts };
  } finally {
    folder.remove();
  }
}

if (isMainModule(import.meta.url)) runAlone(runThroughputBench);
