import { cpus, loadavg, totalmem } from 'node:os';
import { pathToFileURL } from 'node:url';

/** One figure checked against its target, for the summary at the end of a run. */
export interface Verdict {
  readonly name: string;
  readonly figure: string;
  readonly target: string;
  readonly meets: boolean;
}

/** What a benchmark hands back: its printed section and the verdicts in it. */
export interface BenchReport {
  readonly title: string;
  readonly lines: readonly string[];
  readonly verdicts: readonly Verdict[];
}

export const MIB = 1024 * 1024;

/** The machine the figures were measured on. */
export function machineLine(): string {
  const cores = cpus();
  const model = cores[0]?.model.trim() ?? 'unknown CPU';
  return `Machine: ${cores.length} cores (${model}), ${(totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}`;
}

/** The load average (1, 5, 15 min): other work on the machine skews timings. */
export function loadLine(): string {
  return `Load average (1 / 5 / 15 min): ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ')}`;
}

/** "MEETS" or "MISSES", padded so columns line up. */
export function verdictWord(meets: boolean): string {
  return meets ? 'MEETS ' : 'MISSES';
}

/** A figure with its target, as printed: `name  figure  (target …)  MEETS`. */
export function verdictLine(verdict: Verdict): string {
  return `  ${verdictWord(verdict.meets)}  ${verdict.name}: ${verdict.figure}   (target ${verdict.target})`;
}

/** Milliseconds as `1,234 ms` or `12.3 s`. */
export function formatMs(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms).toLocaleString('en-US')} ms`;
}

/** Bytes as MiB with one decimal. */
export function formatMiB(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB`;
}

/** A plain text table: first row is the header, columns padded to their widest cell. */
export function table(rows: readonly (readonly string[])[], indent = '  '): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  }
  const render = (row: readonly string[]) =>
    indent +
    row
      .map((cell, index) =>
        index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0),
      )
      .join('  ')
      .trimEnd();
  const [header, ...body] = rows;
  if (!header) return [];
  const rule = indent + widths.map((width) => '-'.repeat(width)).join('  ');
  return [render(header), rule, ...body.map(render)];
}

/** Prints a benchmark's section. */
export function printReport(report: BenchReport): void {
  console.log('');
  console.log(`== ${report.title} ==`);
  for (const line of report.lines) console.log(line);
}

/** Progress notes go to stderr, so stdout holds only the report. */
export function progress(message: string): void {
  process.stderr.write(`  … ${message}\n`);
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? upper) + upper) / 2;
}

/** True when the module at `moduleUrl` is the script Node was asked to run. */
export function isMainModule(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(script).href === moduleUrl;
}

/** Runs one benchmark as a script: machine line, its section, exit code 0 (figures, not a test). */
export function runAlone(bench: () => Promise<BenchReport>): void {
  console.log(machineLine());
  console.log(`${loadLine()} at start`);
  bench().then(
    (report) => {
      printReport(report);
      console.log(`${loadLine()} at end`);
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
