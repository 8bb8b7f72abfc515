/**
 * Child process of the poller benchmark (bundled by esbuild, plain Node): opens the app's desk
 * on a data folder whose requests are prepared but not complete, runs the desk's status poller
 * (default schedule, default budget) for a real window of time and reports what it did and
 * what it cost. The simulator runs in the parent, so the CPU figures are the poller's process
 * alone.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { needsTracking } from '../../main/domain/document-class';
import type { PollerEvent } from '../../main/tracking/status-poller';
import { childJob, openChildDesk, sendToParent, type ChildConnection } from './child-channel';

export interface PollerJob extends ChildConnection {
  readonly windowMs: number;
  /** Quiet time after opening the desk, before the window starts. */
  readonly settleMs: number;
  /** CPU is also measured from this far into the window, after the start-up costs (first connection, JIT). */
  readonly steadyAfterMs: number;
}

export interface PollerResult {
  readonly tracked: number;
  /** Wall-clock (epoch ms) bounds of the window, to match the simulator's call log. */
  readonly windowStart: number;
  readonly windowEnd: number;
  readonly reads: number;
  readonly cpuUserMs: number;
  readonly cpuSystemMs: number;
  /** CPU and reads from `steadyAfterMs` into the window to its end. */
  readonly steadyCpuMs: number;
  readonly steadyReads: number;
  readonly steadyWindowMs: number;
  readonly eventLoopUtilization: number;
  readonly rssStart: number;
  readonly rssEnd: number;
  readonly events: Readonly<Record<string, number>>;
  /** Of `steadyCpuMs`: the main thread's, and the other threads' (Linux only). */
  readonly steadyThreads?: { readonly main: number; readonly others: number };
  /** CPU of the same process over the same time with the poller stopped, for comparison. */
  readonly idleCpuMs: number;
  readonly idleWindowMs: number;
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

/**
 * CPU of the main thread (JavaScript, and what it does synchronously) and of every other
 * thread of this process (V8's compiler and collector helpers, libuv's pool: fsync), in ms,
 * from /proc (Linux; 10-ms ticks). Undefined elsewhere.
 */
function threadCpuMs(): { readonly main: number; readonly others: number } | undefined {
  try {
    let main = 0;
    let others = 0;
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      if (Number(tid) === process.pid) main += ms;
      else others += ms;
    }
    return { main, others };
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const job = childJob<PollerJob>();
  const desk = await openChildDesk(job);
  try {
    const tracked = desk.store
      .loaded()
      .reduce((sum, batch) => sum + batch.documents.filter(needsTracking).length, 0);
    await sleep(job.settleMs);
    const idleWindowMs = Math.min(10_000, job.windowMs);
    const idleCpu = process.cpuUsage();
    await sleep(idleWindowMs);
    const idleCpuMs = cpuMs(process.cpuUsage(idleCpu));

    const events: Record<string, number> = {};
    desk.poller.subscribe((event: PollerEvent) => {
      events[event.type] = (events[event.type] ?? 0) + 1;
    });
    const rssStart = process.memoryUsage.rss();
    const loopBefore = performance.eventLoopUtilization();
    const cpuBefore = process.cpuUsage();
    const windowStart = Date.now();
    desk.poller.start();
    await sleep(job.steadyAfterMs);
    const steadyCpu = process.cpuUsage();
    const steadyThreadsBefore = threadCpuMs();
    const steadyStart = Date.now();
    const readsBeforeSteady = desk.poller.reads;
    await sleep(job.windowMs - job.steadyAfterMs);
    desk.poller.stop();
    const windowEnd = Date.now();
    const cpu = process.cpuUsage(cpuBefore);
    const steadyCpuMs = cpuMs(process.cpuUsage(steadyCpu));
    const steadyThreadsAfter = threadCpuMs();
    const loop = performance.eventLoopUtilization(loopBefore);
    const result: PollerResult = {
      tracked,
      windowStart,
      windowEnd,
      reads: desk.poller.reads,
      cpuUserMs: cpu.user / 1000,
      cpuSystemMs: cpu.system / 1000,
      steadyCpuMs,
      steadyReads: desk.poller.reads - readsBeforeSteady,
      steadyWindowMs: windowEnd - steadyStart,
      ...(steadyThreadsBefore && steadyThreadsAfter
        ? {
            steadyThreads: {
              main: steadyThreadsAfter.main - steadyThreadsBefore.main,
              others: steadyThreadsAfter.others - steadyThreadsBefore.others,
            },
          }
        : {}),
      eventLoopUtilization: loop.utilization,
      rssStart,
      rssEnd: process.memoryUsage.rss(),
      events,
      idleCpuMs,
      idleWindowMs,
    };
    await sendToParent(result);
  } finally {
    await desk.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
