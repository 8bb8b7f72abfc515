/**
 * The status poller tracking 1,000 open requests with its default schedule and default read
 * budget (60 reads/min). The requests are created through the engine (small PDFs, simulator
 * without latency) and left prepared, not complete. The poller then runs for real for two
 * minutes in a child process (plain Node) against the simulator here; the simulator's call log
 * gives the time of every read. Figures: reads per minute per 10-second window and overall,
 * the most reads in any one second, CPU per hour of tracking (extrapolated), and the schedule.
 *
 * Run alone: `npx tsx bench/poller.ts`. POLLER_PROFILE=<folder> writes a CPU profile of each
 * tracking child there (--cpu-prof).
 */
import { makeTempFolder } from '../test/support/pdf-files';
import { DEMO_CLIENT, startSimulator } from '../simulator/simulator';
import { DEFAULT_POLL_SCHEDULE } from '../main/tracking/poll-schedule';
import { bundleChild, runChild } from './support/child-runner';
import { createOpenRequests } from './support/open-requests';
import type { PollerJob, PollerResult } from './support/poller-child';
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
/** The app's defaults (StatusPollerOptions): the benchmark checks against them, never sets them. */
const BUDGET_PER_MINUTE = 60;
const BUDGET_BURST = 1;
const WINDOW_MS = 120_000;
const SLICE_MS = 10_000;
const SETTLE_MS = 1_000;
/** CPU per hour is extrapolated from the window after its first 20 s (first connection, JIT warm-up). */
const STEADY_AFTER_MS = 20_000;
/** A second, smaller run at the same read rate: what the number of tracked requests costs. */
const COMPARISON_REQUESTS = 100;
const COMPARISON_WINDOW_MS = 60_000;
/** At 1 read/s, two reads may fall in one second when one arrives a hair late and the next on time. */
const MAX_READS_PER_SECOND = 2;
/** In any 10 s: ten reads, plus one for the same edge effect. */
const MAX_READS_PER_TEN_SECONDS = 11;
const MINUTE = 60_000;

/** Most timestamps (sorted, ms) within any span shorter than `spanMs`. */
function maxInSpan(times: readonly number[], spanMs: number): number {
  let best = 0;
  let first = 0;
  for (let last = 0; last < times.length; last += 1) {
    while ((times[last] ?? 0) - (times[first] ?? 0) >= spanMs) first += 1;
    best = Math.max(best, last - first + 1);
  }
  return best;
}

const HOUR = 60 * MINUTE;

function describeInterval(ms: number): string {
  if (ms >= HOUR) return `${ms / HOUR} h`;
  return ms >= MINUTE ? `${ms / MINUTE} min` : `${ms / 1000} s`;
}

/** The default schedule, what it would ask of the service for 1,000 requests, and what the budget allows. */
function scheduleLines(): string[] {
  const schedule = DEFAULT_POLL_SCHEDULE;
  const jitter = `±${Math.round(schedule.jitter * 100)} %`;
  const fullRoundMs = (REQUESTS / BUDGET_PER_MINUTE) * MINUTE;
  const rows: string[][] = [
    ['request', 'interval', 'reads/min if all 1,000 were here', 'each request read every, within the budget'],
    [
      `attention (ceremony window open, or closed < ${describeInterval(schedule.attentionGraceMs)})`,
      `${describeInterval(schedule.attentionMs)} ${jitter}`,
      `(one request: ${(MINUTE / schedule.attentionMs).toFixed(0)})`,
      `${describeInterval(schedule.attentionMs)} (read first among those due)`,
    ],
  ];
  const add = (label: string, intervalMs: number) =>
    rows.push([
      label,
      `${describeInterval(intervalMs)} ${jitter}`,
      ((REQUESTS * MINUTE) / intervalMs).toFixed(0),
      intervalMs >= fullRoundMs
        ? describeInterval(intervalMs)
        : `≈ ${(fullRoundMs / MINUTE).toFixed(1)} min (budget-bound)`,
    ]);
  let previous = 0;
  for (const [limit, interval] of schedule.byAge) {
    add(
      `age ${previous === 0 ? '' : `${describeInterval(previous)} – `}< ${describeInterval(limit)}`,
      interval,
    );
    previous = limit;
  }
  add(`age ≥ ${describeInterval(previous)}`, schedule.oldestMs);
  return table(rows);
}

interface Tracking {
  readonly requests: number;
  readonly setupMs: number;
  /** Requests the service holds as prepared (open) when tracking starts. */
  readonly open: number;
  readonly result: PollerResult;
  readonly reads: readonly { readonly at: number; readonly path: string; readonly status: number | null }[];
  readonly stderr: string;
}

/**
 * Creates `requests` open requests through the engine against a fresh simulator, then runs
 * the desk's poller on them in a child process for `windowMs`.
 */
async function track(requests: number, windowMs: number): Promise<Tracking> {
  const folder = makeTempFolder('bench-poller-');
  const sim = await startSimulator({ seed: 13 });
  try {
    const dataDir = folder.file('data');
    const setupMs = await createOpenRequests(sim, folder, dataDir, requests, 'Poller');
    const open = sim.state.requests().filter((request) => request.status === 'prepared').length;
    const bundle = await bundleChild('support/poller-child.ts', folder.path);
    progress(
      `tracking ${requests} requests for ${windowMs / 1000} s in a child process (default schedule and budget)`,
    );
    const job: PollerJob = {
      baseUrl: sim.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      clientSecret: DEMO_CLIENT.clientSecret,
      dataDir,
      windowMs,
      settleMs: SETTLE_MS,
      steadyAfterMs: STEADY_AFTER_MS,
    };
    const profile = process.env.POLLER_PROFILE;
    const flags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
    const { result, stderr } = await runChild<PollerJob, PollerResult>(bundle, job, flags);
    const reads = sim.state
      .calls()
      .filter((call) => call.operation === 'readSigningRequest')
      .map((call) => ({ at: Date.parse(call.at), path: call.path, status: call.status }))
      .filter((call) => call.at >= result.windowStart && call.at <= result.windowEnd)
      .sort((a, b) => a.at - b.at);
    return { requests, setupMs, open, result, reads, stderr };
  } finally {
    await sim.close();
    folder.remove();
  }
}

/** CPU over the steady part of the window (after start-up), per hour and per read. */
function cpuOf(result: PollerResult): {
  readonly perHour: number;
  readonly perRead: number;
} {
  return {
    perHour: (result.steadyCpuMs / result.steadyWindowMs) * 3600,
    perRead: result.steadyCpuMs / Math.max(1, result.steadyReads),
  };
}

/** Runs the poller benchmark and returns its report. */
export async function runPollerBench(): Promise<BenchReport> {
  const main = await track(REQUESTS, WINDOW_MS);
  const small = await track(COMPARISON_REQUESTS, COMPARISON_WINDOW_MS);
  const { result, reads, setupMs, open, stderr } = main;
  const times = reads.map((read) => read.at);
  const windowMs = result.windowEnd - result.windowStart;
  const minutes = windowMs / MINUTE;
  const slices: string[][] = [['window', 'reads', 'reads/min', 'most in 1 s']];
  const sliceRates: number[] = [];
  for (let start = 0; start + SLICE_MS <= windowMs; start += SLICE_MS) {
    const inSlice = times.filter(
      (at) => at >= result.windowStart + start && at < result.windowStart + start + SLICE_MS,
    );
    const rate = (inSlice.length * MINUTE) / SLICE_MS;
    sliceRates.push(rate);
    slices.push([
      `${start / 1000}–${(start + SLICE_MS) / 1000} s`,
      String(inSlice.length),
      rate.toFixed(0),
      String(maxInSpan(inSlice, 1000)),
    ]);
  }
  const overallRate = reads.length / minutes;
  const allowed = BUDGET_PER_MINUTE * minutes + BUDGET_BURST;
  const maxSecond = maxInSpan(times, 1000);
  const maxTenSeconds = maxInSpan(times, SLICE_MS);
  const distinct = new Set(reads.map((read) => read.path)).size;
  const failedReads = reads.filter((read) => read.status !== 200).length;
  const cpu = cpuOf(result);
  const smallCpu = cpuOf(small.result);
  const idlePerHour = (result.idleCpuMs / result.idleWindowMs) * 3600;
  const fullRoundMinutes = REQUESTS / BUDGET_PER_MINUTE;
  const verdicts: Verdict[] = [
    {
      name: 'reads in the window',
      figure: `${reads.length} (${overallRate.toFixed(1)}/min over ${formatMs(windowMs)})`,
      target: `≤ ${BUDGET_PER_MINUTE}/min${BUDGET_BURST > 1 ? ` + the burst of ${BUDGET_BURST}` : ''} = ${Math.floor(allowed)}`,
      meets: reads.length <= allowed,
    },
    {
      name: 'most reads in any 10-s window',
      figure: String(maxTenSeconds),
      target: `≤ ${MAX_READS_PER_TEN_SECONDS} (budget 1/s)`,
      meets: maxTenSeconds <= MAX_READS_PER_TEN_SECONDS,
    },
    {
      name: 'most reads in any 1-s window (no bursts)',
      figure: String(maxSecond),
      target: `≤ ${MAX_READS_PER_SECOND}`,
      meets: maxSecond <= MAX_READS_PER_SECOND,
    },
  ];
  const events = Object.entries(result.events)
    .map(([type, count]) => `${type} ${count}`)
    .join(', ');
  const lines = [
    `  ${REQUESTS} requests created through the engine in ${formatMs(setupMs)} (setup, not measured); the service holds ${open} prepared, none complete; the child tracks ${result.tracked}.`,
    `  Poller: desk.poller with DEFAULT_POLL_SCHEDULE and the default budget (${BUDGET_PER_MINUTE} reads/min, no burst), run for real for ${formatMs(windowMs)} in a child process; reads timed by the simulator's call log.`,
    '',
    ...table(slices),
    '',
    `  Overall: ${reads.length} reads in ${formatMs(windowMs)} = ${overallRate.toFixed(1)}/min; the first reads come when the first requests are due (their age tier after preparation), then one per second; max ${Math.max(...sliceRates).toFixed(0)}/min in a 10-s slice.`,
    `  ${distinct} distinct requests read (${reads.length - distinct} read twice), ${failedReads} reads not answered 200; poller counted ${result.reads} reads; events: ${events || 'none'}.`,
    ...verdicts.map(verdictLine),
    '',
    `  CPU of the tracking process over the whole window: ${(result.cpuUserMs + result.cpuSystemMs).toFixed(0)} ms (user ${result.cpuUserMs.toFixed(0)}, system ${result.cpuSystemMs.toFixed(0)}) in ${formatMs(windowMs)}, start-up included; event loop busy ${(result.eventLoopUtilization * 100).toFixed(2)} %.`,
    `  After the first ${STEADY_AFTER_MS / 1000} s: ${result.steadyCpuMs.toFixed(0)} ms for ${result.steadyReads} reads in ${formatMs(result.steadyWindowMs)} = ${cpu.perRead.toFixed(1)} ms per read`,
    ...(result.steadyThreads
      ? [
          `     Of which the main thread (JavaScript) ${(result.steadyThreads.main / Math.max(1, result.steadyReads)).toFixed(1)} ms per read, the other threads (V8 compiler and collector helpers, libuv pool: fsync) ${(result.steadyThreads.others / Math.max(1, result.steadyReads)).toFixed(1)} ms (from /proc, 10-ms ticks).`,
        ]
      : []),
    `  → ${cpu.perHour.toFixed(1)} CPU seconds per hour of tracking (EXTRAPOLATED from those ${formatMs(result.steadyWindowMs)}: the budget holds the rate at ${BUDGET_PER_MINUTE} reads/min as long as ≥ ${BUDGET_PER_MINUTE} requests are due per minute, true for 1,000 requests at every age).`,
    `     Same rate with ${small.requests} tracked requests (${small.result.steadyReads} reads after the first ${STEADY_AFTER_MS / 1000} s): ${smallCpu.perRead.toFixed(1)} ms per read, ${smallCpu.perHour.toFixed(1)} CPU s/hour; tracking ${REQUESTS} instead costs ${(cpu.perRead - smallCpu.perRead).toFixed(1)} ms more per read.`,
    `     Same process idle with the desk open and the poller stopped: ${idlePerHour.toFixed(1)} CPU s/hour. RSS ${formatMiB(result.rssStart)} → ${formatMiB(result.rssEnd)}.`,
    '',
    '  Default schedule (poll-schedule.ts) and what 1,000 open requests would ask of it:',
    ...scheduleLines(),
    `  Reading all ${REQUESTS} once takes ≈ ${fullRoundMinutes.toFixed(1)} min within the budget (${BUDGET_PER_MINUTE} reads/min).`,
    `  Child stderr: ${`${stderr}${small.stderr}`.trim() === '' ? 'nothing (no warnings)' : `${stderr}${small.stderr}`.trim().split('\n').join(' | ')}`,
  ];
  return { title: 'Poller: 1,000 open requests, default schedule and budget', lines, verdicts };
}

if (isMainModule(import.meta.url)) runAlone(runPollerBench);
