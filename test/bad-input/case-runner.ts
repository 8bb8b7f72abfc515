/**
 * The one place that runs bad-input cases: each run of each case in a fresh child process
 * (test/bad-input/case-child.ts), two at a time (the build machine has 2 cores), with its figures
 * checked against the targets (`TARGETS`) and what the entry point answered next to what the table
 * expects. The vitest table (bad-input-table.test.ts) and `npm run bench` (bench/bad-input.ts) both
 * call `runBadInputTable`.
 *
 * The child is bundled with esbuild once per table and runs on plain Node, as the benchmarks'
 * children do (bench/support/child-runner.ts): under tsx each child spent about a second of CPU
 * resolving and transpiling the modules before its case even started, which made a table of
 * ~100 children take minutes on 2 cores; bundled, a child starts in a third of that, and no
 * transpiler thread shares the process whose memory is measured.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { MIB, formatMs, table, verdictWord } from '../../bench/support/report';
import { makeTempFolder } from '../support/pdf-files';
import type { CaseChildReport } from './case-child';
import { makeCaseFiles } from './case-files';
import { WARM_UP_FILES, entryName, inFolder, type BadInputCase, type CaseRun } from './case-kit';
import { CASES } from './cases';

/** The targets: every bad input answered within 2 s, using at most 200 MiB above idle. */
export const TARGETS = { ms: 2_000, aboveIdleBytes: 200 * MIB } as const;
/** The whole table on the 2-core build machine: small enough for every CI run. */
export const TABLE_TARGET_MS = 90_000;
/** A child still running after this is stopped (SIGKILL: a process blocked on a FIFO ignores SIGTERM). */
const CHILD_LIMIT_MS = 20_000;
const PARALLELISM = 2;

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD_ENTRY = fileURLToPath(new URL('./case-child.ts', import.meta.url));
const VITEST_STAND_IN = fileURLToPath(new URL('./vitest-stand-in.ts', import.meta.url));
const require = createRequire(import.meta.url);

/**
 * Native modules stay outside the bundle, imported from node_modules by absolute path (the bundle
 * lives in a temporary folder). The desk service harness imports vitest for a helper the child
 * never calls: the bundle gets a stand-in instead of loading vitest in every child.
 */
const childModules: Plugin = {
  name: 'bad-input-child-modules',
  setup(builder) {
    builder.onResolve({ filter: /^(keytar|fs-native-extensions)$/ }, (args) => ({
      path: require.resolve(args.path),
      external: true,
    }));
    builder.onResolve({ filter: /^vitest$/ }, () => ({ path: VITEST_STAND_IN }));
  },
};

/** The child, bundled into `folder`; its path. */
async function bundleChild(folder: string): Promise<string> {
  const outfile = join(folder, 'case-child.mjs');
  await build({
    entryPoints: [CHILD_ENTRY],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    logLevel: 'error',
    plugins: [childModules],
    // Bundled CommonJS dependencies call require() for Node built-ins.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  return outfile;
}

/** One run of one case: its figures, and whether each meets its target. */
export interface RunResult {
  readonly caseId: string;
  readonly runIndex: number;
  readonly entry: string;
  readonly description: string;
  /** The case alone, from the call to the entry point's answer; undefined when the child failed. */
  readonly ms: number | undefined;
  readonly aboveIdleBytes: number | undefined;
  readonly idleBytes: number | undefined;
  /** The table's expectation, and the entry point's answer, both with the folder filled in. */
  readonly expected: unknown;
  readonly observed: unknown;
  /** Why the child gave no figures (crash, time limit), with its stderr. */
  readonly failure: string | undefined;
  readonly answersAsExpected: boolean;
  readonly meetsTime: boolean;
  readonly meetsMemory: boolean;
}

export interface TableResult {
  readonly results: readonly RunResult[];
  /** Wall time of the whole table, child start-ups included. */
  readonly totalMs: number;
}

/** The bundled child, and V8's cache of its compiled code (shared by the children of one table). */
export interface ChildBundle {
  readonly script: string;
  readonly compileCache: string;
}

/** Bundles the child into a temporary folder for `use`, then removes it. */
export async function withChildBundle<T>(use: (bundle: ChildBundle) => Promise<T>): Promise<T> {
  const folder = makeTempFolder('bad-input-child-');
  try {
    return await use({
      script: await bundleChild(folder.path),
      compileCache: join(folder.path, 'compile-cache'),
    });
  } finally {
    folder.remove();
  }
}

function runChild(
  bundle: ChildBundle,
  folder: string,
  run: CaseRun,
): Promise<{ report?: CaseChildReport; failure?: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', bundle.script, folder, JSON.stringify(run)], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_COMPILE_CACHE: bundle.compileCache },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, CHILD_LIMIT_MS);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').pop() ?? '';
      if (timedOut) return resolve({ failure: `no answer within ${CHILD_LIMIT_MS} ms (stopped)\n${stderr}` });
      try {
        if (code === 0) return resolve({ report: JSON.parse(last) as CaseChildReport });
      } catch {
        // Reported below with what the child printed.
      }
      resolve({ failure: `child exited (${signal ?? code}) without figures:\n${stdout}\n${stderr}` });
    });
  });
}

/**
 * Runs one run of one case in a fresh child process, over its files made in a fresh folder
 * (removed afterwards). The files are made here, so the child loads no PDF maker, and a socket's
 * server listens here while the child runs.
 */
export async function runCase(
  bundle: ChildBundle,
  badInput: BadInputCase,
  runIndex: number,
): Promise<RunResult> {
  const run = badInput.runs[runIndex];
  if (!run) throw new Error(`${badInput.id} has no run ${runIndex}`);
  const folder = makeTempFolder(`bad-input-${badInput.id}-`);
  try {
    const made = await makeCaseFiles(folder.path, [...WARM_UP_FILES, ...badInput.files]);
    const { report, failure } = await runChild(bundle, folder.path, inFolder(run, folder.path)).finally(() =>
      made.close(),
    );
    const expected = inFolder(run.expect, folder.path);
    const aboveIdleBytes = report ? Math.max(0, report.peakBytes - report.idleBytes) : undefined;
    return {
      caseId: badInput.id,
      runIndex,
      entry: entryName(run),
      description: badInput.description,
      ms: report?.ms,
      aboveIdleBytes,
      idleBytes: report?.idleBytes,
      expected,
      observed: report?.observed,
      failure,
      answersAsExpected: report !== undefined && isDeepStrictEqual(report.observed, expected),
      meetsTime: report !== undefined && report.ms <= TARGETS.ms,
      meetsMemory: aboveIdleBytes !== undefined && aboveIdleBytes <= TARGETS.aboveIdleBytes,
    };
  } finally {
    folder.remove();
  }
}

/** Every run of every case, `PARALLELISM` children at a time; results in table order. */
export async function runBadInputTable(cases: readonly BadInputCase[] = CASES): Promise<TableResult> {
  const started = performance.now();
  const jobs = cases.flatMap((badInput) => badInput.runs.map((_, runIndex) => ({ badInput, runIndex })));
  const results: RunResult[] = new Array<RunResult>(jobs.length);
  await withChildBundle(async (bundle) => {
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let index = next++; index < jobs.length; index = next++) {
        const job = jobs[index];
        if (job) results[index] = await runCase(bundle, job.badInput, job.runIndex);
      }
    };
    await Promise.all(Array.from({ length: PARALLELISM }, worker));
  });
  return { results, totalMs: performance.now() - started };
}

/** MEETS when the answer is the expected one and both figures meet their targets. */
export function verdictOf(result: RunResult): boolean {
  return result.answersAsExpected && result.meetsTime && result.meetsMemory;
}

/** The figures as a plain text table: case, entry, ms, MiB above idle, verdict. */
export function figuresTable(results: readonly RunResult[]): string[] {
  return table([
    ['case', 'entry', 'ms', 'MiB above idle', 'verdict'],
    ...results.map((result) => [
      result.caseId,
      result.entry,
      result.ms === undefined ? '—' : result.ms.toFixed(1),
      result.aboveIdleBytes === undefined ? '—' : (result.aboveIdleBytes / MIB).toFixed(1),
      `${verdictWord(verdictOf(result))}${result.answersAsExpected ? '' : ' (answer differs)'}`,
    ]),
  ]);
}

/** The worst figures of the table and its run time, against the targets. */
export function summaryLines(table: TableResult): string[] {
  const { results } = table;
  const worst = (figure: (result: RunResult) => number | undefined) =>
    Math.max(...results.map((result) => figure(result) ?? Number.POSITIVE_INFINITY));
  const cases = new Set(results.map((result) => result.caseId)).size;
  return [
    `  ${cases} cases, ${results.length} runs; ${results.filter(verdictOf).length} meet every target.`,
    `  Slowest run ${formatMs(worst((result) => result.ms))} (target ${formatMs(TARGETS.ms)} each); most memory ${(worst((result) => result.aboveIdleBytes) / MIB).toFixed(1)} MiB above idle (target ${TARGETS.aboveIdleBytes / MIB} MiB each).`,
    `  Whole table ${formatMs(table.totalMs)} with ${PARALLELISM} children at a time (target under ${formatMs(TABLE_TARGET_MS)}).`,
  ];
}
