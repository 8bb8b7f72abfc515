/**
 * A week in the tray: 1,000 open requests tracked for seven simulated days by the real status
 * poller and store, in a child process (plain Node, --expose-gc), against the simulator here
 * over loopback HTTP. The child moves its own clock: the poller's waits advance it instead of
 * sleeping, and the read budget, the schedule and the client read it, so a simulated day lasts
 * as long as its reads take. The simulator's clock follows the child's; as simulated time
 * passes, some requests are completed at the service (the poller records completed, then
 * final once evidence is ready) and some are forgotten by it (404: the poller marks them gone;
 * spec v1 has no declined or expired status). Figures per day: reads against the budget, CPU
 * per read, heap and RSS after a full collection, the data folder's bytes.
 *
 * Run alone: `npx tsx bench/tray-week.ts`. TRAY_WEEK_DAYS=1 runs a shorter week (development);
 * TRAY_WEEK_PROFILE=<folder> writes a CPU profile of the child there (--cpu-prof).
 */
import { makeTempFolder } from '../test/support/pdf-files';
import { DEMO_CLIENT, startSimulator } from '../simulator/simulator';
import { createSeededRandom } from '../simulator/seeded-random';
import { bundleChild } from './support/child-runner';
import { createOpenRequests } from './support/open-requests';
import { runTrayChild, type TrayJob, type TrayResult } from './support/tray-channel';
import {
  formatMiB,
  formatMs,
  isMainModule,
  progress,
  runAlone,
  table,
  verdictLine,
  type BenchReport,
  type Verdict,
} from './support/report';

const REQUESTS = 1_000;
const DAYS = Number(process.env.TRAY_WEEK_DAYS ?? 7);
const DAY_MS = 24 * 60 * 60_000;
/** The app's default read budget (StatusPollerOptions): the benchmark checks against it, never sets it. */
const BUDGET_PER_DAY = 60 * 60 * 24;
/** Each simulated day, this many requests are completed at the service and this many forgotten by it. */
const COMPLETED_PER_DAY = 70;
const FORGOTTEN_PER_DAY = 30;
const MAX_GROWTH_BYTES = 10 * 1024 * 1024;
const MAX_CPU_PER_READ_MS = 1;
/** The store's default (batch-store.ts): a journal with this many entries is folded into its snapshot. */
const COMPACT_AFTER_ENTRIES = 2_000;
/** The simulator's clock follows the child's at least this often (simulated). */
const TICK_MS = 10_000;

interface Change {
  readonly at: number;
  readonly requestId: string;
  readonly kind: 'complete' | 'forget';
}

/** Which requests finish when, relative to the start of the week: spread at random over each day. */
function planChanges(requestIds: readonly string[]): Change[] {
  const random = createSeededRandom(13);
  const pool = [...requestIds];
  const changes: Change[] = [];
  const take = () => pool.splice(Math.floor(random() * pool.length), 1)[0];
  for (let day = 0; day < DAYS; day += 1) {
    for (let i = 0; i < COMPLETED_PER_DAY + FORGOTTEN_PER_DAY; i += 1) {
      const requestId = take();
      if (requestId === undefined) break;
      const kind = i < COMPLETED_PER_DAY ? 'complete' : 'forget';
      changes.push({ at: (day + random()) * DAY_MS, requestId, kind });
    }
  }
  return changes.sort((a, b) => a.at - b.at);
}

async function runWeek(): Promise<{ result: TrayResult; stderr: string; setupMs: number; realMs: number }> {
  const folder = makeTempFolder('bench-tray-week-');
  const sim = await startSimulator({ seed: 13 });
  try {
    const dataDir = folder.file('data');
    const setupMs = await createOpenRequests(sim, folder, dataDir, REQUESTS, 'Tray week');
    const changes = planChanges(sim.state.requests().map((request) => request.id));
    const bundle = await bundleChild('support/tray-child.ts', folder.path);
    progress(`tracking them for ${DAYS} simulated days in a child process (moved clock, real HTTP)`);
    let weekStart: number | undefined;
    let nextChange = 0;
    const onTick = (now: number) => {
      weekStart ??= now;
      const ahead = now - sim.clock.now();
      if (ahead > 0) sim.clock.advance(ahead);
      while (nextChange < changes.length && weekStart + (changes[nextChange]?.at ?? 0) <= now) {
        const change = changes[nextChange];
        nextChange += 1;
        if (change?.kind === 'complete') sim.complete(change.requestId);
        else if (change) sim.forget(change.requestId);
      }
    };
    const job: TrayJob & Record<string, unknown> = {
      baseUrl: sim.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      clientSecret: DEMO_CLIENT.clientSecret,
      dataDir,
      days: DAYS,
      tickMs: TICK_MS,
    };
    const profile = process.env.TRAY_WEEK_PROFILE;
    const flags = ['--expose-gc', ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [])];
    const started = performance.now();
    const { result, stderr } = await runTrayChild(bundle, job, onTick, flags);
    return { result, stderr, setupMs, realMs: performance.now() - started };
  } finally {
    await sim.close();
    folder.remove();
  }
}

function formatKiB(bytes: number): string {
  return `${(bytes / 1024).toFixed(0)} KiB`;
}

/** Runs the week-in-the-tray benchmark and returns its report. */
export async function runTrayWeekBench(): Promise<BenchReport> {
  const { result, stderr, setupMs, realMs } = await runWeek();
  const { days } = result;
  const rows: string[][] = [
    [
      'day',
      'reads',
      'of budget',
      'CPU/read',
      'heap (GC)',
      'RSS (GC)',
      'batches/',
      'growth',
      'journal entries',
      'open',
      'real time',
    ],
  ];
  let previousBatches = result.startBatchesBytes;
  for (const day of days) {
    rows.push([
      String(day.day),
      String(day.reads),
      `${((day.reads / BUDGET_PER_DAY) * 100).toFixed(0)} %`,
      `${(day.cpuMs / Math.max(1, day.reads)).toFixed(2)} ms`,
      formatMiB(day.heapUsed),
      formatMiB(day.rss),
      formatKiB(day.batchesBytes),
      `${day.batchesBytes >= previousBatches ? '+' : ''}${formatKiB(day.batchesBytes - previousBatches)}`,
      String(day.journalEntries),
      String(day.open),
      formatMs(day.realMs),
    ]);
    previousBatches = day.batchesBytes;
  }
  const first = days[0];
  const last = days.at(-1);
  const totalReads = days.reduce((sum, day) => sum + day.reads, 0);
  const totalCpu = days.reduce((sum, day) => sum + day.cpuMs, 0);
  const cpuPerRead = totalCpu / Math.max(1, totalReads);
  const heapGrowth = first && last ? last.heapUsed - first.heapUsed : 0;
  const rssGrowth = first && last ? last.rss - first.rss : 0;
  const maxBatches = Math.max(result.startBatchesBytes, ...days.map((day) => day.batchesBytes));
  const maxEntries = Math.max(...days.map((day) => day.journalEntries));
  const perDay = last ? (last.batchesBytes - result.startBatchesBytes) / days.length : 0;
  const events = Object.entries(last?.events ?? {})
    .map(([type, count]) => `${type} ${count}`)
    .join(', ');
  const verdicts: Verdict[] = [
    {
      name: `memory growth, end of day 1 → end of day ${days.length} (heap after GC)`,
      figure: `${heapGrowth >= 0 ? '+' : ''}${formatMiB(heapGrowth)} (RSS ${rssGrowth >= 0 ? '+' : ''}${formatMiB(rssGrowth)})`,
      target: `≤ ${formatMiB(MAX_GROWTH_BYTES)}`,
      meets: heapGrowth <= MAX_GROWTH_BYTES,
    },
    {
      name: 'data folder growth (batch journals), per simulated day',
      figure: `${perDay >= 0 ? '+' : ''}${formatKiB(perDay)}/day; largest ${formatKiB(maxBatches)}, at most ${maxEntries} journal entries`,
      target: `bounded: < ${COMPACT_AFTER_ENTRIES} entries (then compacted), ≤ 2 × the start (${formatKiB(2 * result.startBatchesBytes)})`,
      meets: maxEntries < COMPACT_AFTER_ENTRIES && maxBatches <= 2 * result.startBatchesBytes,
    },
    {
      name: 'CPU per status read (whole week)',
      figure: `${cpuPerRead.toFixed(2)} ms (${totalReads} reads, ${(totalCpu / 1000).toFixed(1)} CPU s)`,
      target: `≤ ${MAX_CPU_PER_READ_MS} ms`,
      meets: cpuPerRead <= MAX_CPU_PER_READ_MS,
    },
  ];
  const lines = [
    `  ${REQUESTS} requests created through the engine in ${formatMs(setupMs)} (setup, not measured); the child tracks ${result.tracked}.`,
    `  Real StatusPoller (default schedule, default budget ${BUDGET_PER_DAY / 1440} reads/min) and store; the clock moves when the poller waits. Each day ${COMPLETED_PER_DAY} requests complete at the service and ${FORGOTTEN_PER_DAY} are forgotten by it (404 → gone).`,
    `  ${days.length} simulated days in ${formatMs(realMs)} of real time. Memory after a full collection (--expose-gc) at the end of each day.`,
    `  The memory target is the heap after GC: what the poller, client and store keep. RSS is shown too, but at this bench's pace (over 1,000 reads a second, the app's is one) it mostly holds pages the allocator keeps after the collector freed them.`,
    '',
    ...table(rows),
    '',
    `  At the start: heap ${formatMiB(result.startHeapUsed)}, RSS ${formatMiB(result.startRss)}, batches/ ${formatKiB(result.startBatchesBytes)}, whole data folder ${formatKiB(result.startDataBytes)} (PDF copies included); at the end ${formatKiB(last?.dataBytes ?? 0)}.`,
    `  Poller events over the week: ${events || 'none'}.`,
    ...verdicts.map(verdictLine),
    `  Child stderr: ${stderr.trim() === '' ? 'nothing (no warnings)' : stderr.trim().split('\n').join(' | ')}`,
  ];
  return { title: 'A week in the tray: 1,000 open requests, seven simulated days', lines, verdicts };
}

if (isMainModule(import.meta.url)) runAlone(runTrayWeekBench);
