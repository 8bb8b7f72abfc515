/**
 * The uplink benchmarks (targets a) to c) for slow and shared lines), one scenario per file:
 *
 * - `slow-shared`: a) 3 × 20 MiB through a shared 2 Mbit/s line (about 4 minutes);
 * - `many-0.5`, `many-2`, `many-20`, `many-100`: b) 5 MiB documents at each rate (reduced by
 *   default to about 2½ minutes of line each, 3 documents and 4 minutes at 0.5 Mbit/s; 100
 *   documents with BENCH_UPLINK=full: 2.3 h at 0.5 Mbit/s);
 * - `long-upload`, `stall`: c) one long upload at 0.5 Mbit/s, then the same with a one-minute
 *   stall (reduced by default to 10 MiB, about 3 and 4 minutes; 50 MiB with BENCH_UPLINK=full,
 *   14 and 15 minutes).
 *
 * Each prints its figures against its target, and whether it ran reduced. `npm run bench` runs
 * them all (about 25 minutes reduced, more when targets are missed: an unfinished run is paused
 * at 1.5 × what its line needs). Run some alone: `npx tsx bench/uplink/index.ts [name…]`, every
 * one when no name is given; `BENCH_UPLINK=full` for the targets' sizes.
 */
import {
  isMainModule,
  loadLine,
  machineLine,
  printReport,
  verdictLine,
  type BenchReport,
} from '../support/report';
import { longUpload } from './long-upload';
import { MANY_DOCUMENTS_MBIT, manyDocuments } from './many-documents';
import { uplinkMode } from './run-size';
import { slowSharedLine } from './slow-shared-line';
import { stalledLine } from './stalled-line';
import type { UplinkScenario } from './uplink-scenario';

export const UPLINK_SCENARIOS: readonly UplinkScenario[] = [
  slowSharedLine,
  ...MANY_DOCUMENTS_MBIT.map(manyDocuments),
  longUpload,
  stalledLine,
];

/** Every scenario as `npm run bench` runs it, in the mode `BENCH_UPLINK` asks for. */
export const UPLINK_BENCHES: readonly (() => Promise<BenchReport>)[] = UPLINK_SCENARIOS.map(
  (scenario) => () => scenario.run(uplinkMode()),
);

async function runNamed(names: readonly string[]): Promise<void> {
  const unknown = names.filter((name) => !UPLINK_SCENARIOS.some((scenario) => scenario.name === name));
  if (unknown.length > 0) {
    console.error(
      `Unknown scenario ${unknown.join(', ')}; the scenarios: ${UPLINK_SCENARIOS.map((scenario) => scenario.name).join(', ')}.`,
    );
    process.exitCode = 2;
    return;
  }
  const chosen =
    names.length === 0
      ? UPLINK_SCENARIOS
      : UPLINK_SCENARIOS.filter((scenario) => names.includes(scenario.name));
  console.log(machineLine());
  console.log(`${loadLine()} at start; BENCH_UPLINK=${uplinkMode()}`);
  const reports: BenchReport[] = [];
  for (const scenario of chosen) {
    const report = await scenario.run(uplinkMode());
    printReport(report);
    reports.push(report);
  }
  if (reports.length > 1) {
    console.log('');
    console.log('== Summary ==');
    for (const report of reports) {
      console.log(`  ${report.title}`);
      for (const verdict of report.verdicts) console.log(`  ${verdictLine(verdict)}`);
    }
  }
  console.log(`${loadLine()} at end`);
}

if (isMainModule(import.meta.url)) {
  runNamed(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
