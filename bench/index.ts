/**
 * `npm run bench`: the benchmarks of the signing batch desk, one after the other, then a
 * summary of every figure against its target. Prints figures; writes nothing to the
 * repository (every file lives in a temporary folder that is removed afterwards). Exits 0
 * whatever the verdicts: these are measurements, not tests.
 */
import { runBadInputBench } from './bad-input';
import { runHistoryBench } from './history';
import { runIntakeBench } from './intake';
import { runMemoryBench } from './memory';
import { runPollerBench } from './poller';
import { runRendererBench } from './renderer';
import { runThroughputBench } from './throughput';
import { runTrayWeekBench } from './tray-week';
import { UPLINK_BENCHES } from './uplink/index';
import {
  formatMs,
  loadLine,
  machineLine,
  printReport,
  verdictLine,
  type BenchReport,
} from './support/report';

const BENCHES: readonly (() => Promise<BenchReport>)[] = [
  runThroughputBench,
  ...UPLINK_BENCHES,
  runIntakeBench,
  runMemoryBench,
  runPollerBench,
  runTrayWeekBench,
  runRendererBench,
  runBadInputBench,
  runHistoryBench,
];

async function main(): Promise<void> {
  const started = performance.now();
  console.log('Signing batch desk — benchmarks');
  console.log(machineLine());
  console.log(`${loadLine()} at start`);
  const reports: BenchReport[] = [];
  for (const bench of BENCHES) {
    const report = await bench();
    printReport(report);
    reports.push(report);
  }
  console.log('');
  console.log('== Summary ==');
  for (const report of reports) {
    console.log(`  ${report.title}`);
    for (const verdict of report.verdicts) console.log(`  ${verdictLine(verdict)}`);
  }
  console.log(`  Total time ${formatMs(performance.now() - started)}. ${loadLine()} at end.`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
