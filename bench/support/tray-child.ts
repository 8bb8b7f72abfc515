/**
 * Child process of the week-in-the-tray benchmark (bundled by esbuild, plain Node, started
 * with --expose-gc): opens the app's desk on a data folder of open requests and tracks them
 * with the real StatusPoller and store for `days` simulated days. Time is a clock this process
 * moves: the poller's waits move it forward instead of sleeping, and the client (token lifetime, read
 * spacing) and the read budget read it, so a day lasts as long as its reads take over real
 * HTTP. The parent's simulator follows the clock (`tick` messages) and completes or forgets
 * requests as simulated time passes. At the end of each day: reads, CPU, memory after a full
 * garbage collection, and the data folder's bytes.
 */
import { systemClock } from '../../main/time/clock';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { needsTracking } from '../../main/domain/document-class';
import { openDesk } from '../../main/app/desk-core';
import { Secret } from '../../main/base/secret';
import { StatusPoller, type PollerEvent } from '../../main/tracking/status-poller';
import { childJob, collectGarbage, type ChildConnection } from './child-channel';
import type { TrayDay, TrayJob, TrayMessage, TrayResult } from './tray-channel';

const DAY_MS = 24 * 60 * 60_000;

/** Bytes of every file under `path`, how many files, and how many journal entries await compaction. */
function folderBytes(path: string): { bytes: number; files: number; journalEntries: number } {
  let bytes = 0;
  let files = 0;
  let journalEntries = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) {
      const inner = folderBytes(full);
      bytes += inner.bytes;
      files += inner.files;
      journalEntries += inner.journalEntries;
    } else {
      bytes += statSync(full).size;
      files += 1;
      if (entry.name === 'journal.log') journalEntries += readFileSync(full, 'utf8').split('\n').length - 1;
    }
  }
  return { bytes, files, journalEntries };
}

function send(message: TrayMessage): void {
  process.send?.(message);
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

async function main(): Promise<void> {
  const job = childJob<TrayJob & ChildConnection>();
  // This computer's time moved forward by every wait of the poller: anything else that waits
  // (the client's read spacing for another process's reads) still sees time pass.
  let offsetMs = 0;
  const now = () => Date.now() + offsetMs;
  const start = now();
  const opening = await openDesk({
    dataDir: job.dataDir,
    connection: { baseUrl: job.baseUrl, clientId: job.clientId, clientSecret: new Secret(job.clientSecret) },
    clock: { ...systemClock, now, monotonic: now },
  });
  if (!opening.ok) throw new Error(opening.error);
  const desk = opening.value;
  const tracked = desk.store
    .loaded()
    .reduce((sum, batch) => sum + batch.documents.filter(needsTracking).length, 0);

  const events: Record<string, number> = {};
  const days: TrayDay[] = [];
  let dayStartCpu = process.cpuUsage();
  let dayStartReads = 0;
  let dayStartReal = performance.now();
  let nextTick = start + job.tickMs;
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finished = resolve));

  const endDay = (reads: number) => {
    // CPU of the day is taken before this bookkeeping (collection, folder walk) runs.
    const cpu = cpuMs(process.cpuUsage(dayStartCpu));
    const realMs = performance.now() - dayStartReal;
    collectGarbage();
    const memory = process.memoryUsage();
    const batches = folderBytes(join(job.dataDir, 'batches'));
    const whole = folderBytes(job.dataDir);
    const open = desk.store
      .loaded()
      .reduce((sum, batch) => sum + batch.documents.filter(needsTracking).length, 0);
    days.push({
      day: days.length + 1,
      reads: reads - dayStartReads,
      cpuMs: cpu,
      realMs,
      heapUsed: memory.heapUsed,
      rss: memory.rss,
      batchesBytes: batches.bytes,
      batchesFiles: batches.files,
      journalEntries: batches.journalEntries,
      dataBytes: whole.bytes,
      open,
      events: { ...events },
    });
    dayStartReads = reads;
    dayStartReal = performance.now();
    dayStartCpu = process.cpuUsage();
  };

  const poller = new StatusPoller({
    store: desk.store,
    client: desk.client,
    // Waiting moves the clock: the next read comes as soon as this one is done.
    clock: {
      ...systemClock,
      now,
      monotonic: now,
      sleep: (ms: number) => {
        offsetMs += ms;
        const clock = now();
        if (clock >= nextTick) {
          send({ type: 'tick', now: clock });
          nextTick = clock + job.tickMs;
        }
        if (clock >= start + (days.length + 1) * DAY_MS) {
          endDay(poller.reads);
          if (days.length >= job.days) finished();
        }
        return new Promise((resolve) => setImmediate(resolve));
      },
    },
  });
  poller.subscribe((event: PollerEvent) => {
    events[event.type] = (events[event.type] ?? 0) + 1;
  });
  collectGarbage();
  const startMemory = process.memoryUsage();
  const startData = folderBytes(job.dataDir);
  const startBatches = folderBytes(join(job.dataDir, 'batches'));
  send({ type: 'tick', now: start });
  poller.start();
  await done;
  poller.stop();
  const result: TrayResult = {
    tracked,
    reads: poller.reads,
    startHeapUsed: startMemory.heapUsed,
    startRss: startMemory.rss,
    startDataBytes: startData.bytes,
    startBatchesBytes: startBatches.bytes,
    days,
  };
  send({ type: 'result', result });
  await desk.close();
  process.disconnect?.();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
