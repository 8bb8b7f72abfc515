/**
 * The browser host started over a data folder, in a process of its own (bundled, plain Node),
 * the way `node dist/browser-host/index.js` starts it: data folder opened, desk service built
 * and started, server listening. "Ready" is when the host has answered its first `batches.list`
 * call (the call the page makes to draw the batch list); the time is counted from this process's
 * start (`performance.now()`: Node's time origin is the process's start), so loading the code
 * counts too. Memory: the RSS at ready, and the peak (VmHWM) over ready plus a settle time in
 * which the folds that follow a start run.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { launchBrowserHost, profileRegistry } from '../../main/browser-host/launch';
import { createMemoryCredentialStore } from '../../main/credentials/credential-store';

export interface HostJob {
  readonly dataDir: string;
  readonly home: string;
  readonly settleMs: number;
  /** The page-side bridge the host serves (built by the benchmark) and the renderer folder. */
  readonly bridgeScriptPath: string;
  readonly rendererDir: string;
}

export interface HostResult {
  readonly readyMs: number;
  readonly launchedMs: number;
  readonly batches: number;
  readonly documents: number;
  readonly rssAtReady: number;
  readonly peakRss: number;
  /** CPU time (user + system) spent until ready: what the start costs whatever else the machine runs. */
  readonly cpuMsAtReady: number;
}

/** The process's peak RSS so far, in bytes (Linux: VmHWM). */
export function peakRssOfThisProcess(): number {
  const kib = /VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  return kib === undefined ? process.memoryUsage().rss : Number(kib) * 1024;
}

const job = JSON.parse(process.argv[2] ?? '{}') as HostJob;
const launched = await launchBrowserHost({
  dataDir: job.dataDir,
  home: job.home,
  port: 0,
  demo: false,
  profiles: profileRegistry(job.dataDir, createMemoryCredentialStore()),
  ceremonyOpener: { open: () => Promise.resolve() },
  bridgeScriptPath: job.bridgeScriptPath,
  rendererDir: job.rendererDir,
});
const launchedMs = performance.now();
const list = await launched.service.handlers['batches.list']();
const readyMs = performance.now();
const rssAtReady = process.memoryUsage().rss;
const cpu = process.cpuUsage();
await sleep(job.settleMs);
const result: HostResult = {
  readyMs,
  launchedMs,
  batches: list.length,
  documents: list.reduce((sum, batch) => sum + batch.documentCount, 0),
  rssAtReady,
  peakRss: peakRssOfThisProcess(),
  cpuMsAtReady: (cpu.user + cpu.system) / 1000,
};
await launched.close();
process.send?.(result);
