/**
 * The command line, bundled and run on plain Node as a user runs it, with one addition: when it
 * exits it writes its peak RSS (VmHWM) and the CPU time it used to the file named by
 * DESK_BENCH_REPORT, for bench/history.ts. Everything else is main/cli/index.ts unchanged.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const reportFile = process.env.DESK_BENCH_REPORT;
process.on('exit', () => {
  if (!reportFile) return;
  const kib = /VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  const cpu = process.cpuUsage();
  writeFileSync(
    reportFile,
    JSON.stringify({ peakRss: Number(kib ?? 0) * 1024, cpuMs: (cpu.user + cpu.system) / 1000 }),
  );
});
await import('../../main/cli/index');
