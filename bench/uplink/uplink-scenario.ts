import type { BenchReport } from '../support/report';
import type { UplinkMode } from './run-size';

/** One scenario of the uplink benchmarks: a line, documents, and the targets it is printed against. */
export interface UplinkScenario {
  /** Runs it alone: `npx tsx bench/uplink/index.ts <name>`. */
  readonly name: string;
  /** Sends, measures, and returns the printed section with its verdicts. */
  run(mode: UplinkMode): Promise<BenchReport>;
}
