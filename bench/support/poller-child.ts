/**
 * Child process of the poller benchmark (bundled by esbuild, plain Node): opens the app's desk
 * on a data folder whose requests are prepared but not complete, runs the desk's status poller
 * (default schedule, default budget) for a real window of time and reports what it did and
 * what it cost. The simulator runs in the parent, so the CPU figures are the poller's process
 * alone.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { needsTracking } from '../../main/batch/document-class';
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
  /** CPU of the same process over the same time with the poller stopped, for comparison. */
  readonly idleCpuMs: number;
  readonly idleWindowMs: number;
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

async function main(): Promise<void> {
  const job = childJob<PollerJob>();
  const desk = await openChildDesk(job);
  try {
    const tracked = desk.store
      .list()
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
    const steadyStart = Date.now();
    const readsBeforeSteady = desk.poller.reads;
    await sleep(job.windowMs - job.steadyAfterMs);
    desk.poller.stop();
    const windowEnd = Date.now();
    const cpu = process.cpuUsage(cpuBefore);
    const steadyCpuMs = cpuMs(process.cpuUsage(steadyCpu));
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
