/**
 * The bad-input table of issue 12 (test/bad-input/cases.ts): every bad input through every entry
 * point it reaches (command line, the app's channels), each run alone in a child process by the
 * same runner as the vitest table (test/bad-input/case-runner.ts). Figures per run: time of the
 * case alone (target ≤ 2 s) and peak RSS above idle (target ≤ 200 MiB), whether the answer is
 * the table's, word for word; then the whole table's run time on this machine.
 *
 * Run alone: `npx tsx bench/bad-input.ts`.
 */
import {
  TABLE_TARGET_MS,
  TARGETS,
  figuresTable,
  runBadInputTable,
  summaryLines,
  verdictOf,
} from '../test/bad-input/case-runner';
import {
  formatMiB,
  formatMs,
  isMainModule,
  progress,
  runAlone,
  verdictLine,
  type BenchReport,
  type Verdict,
} from './support/report';

export async function runBadInputBench(): Promise<BenchReport> {
  progress('bad-input table: each run of each case in a child process of its own, 2 at a time');
  const result = await runBadInputTable();
  const { results } = result;
  const worstMs = Math.max(...results.map((run) => run.ms ?? Number.POSITIVE_INFINITY));
  const worstBytes = Math.max(...results.map((run) => run.aboveIdleBytes ?? Number.POSITIVE_INFINITY));
  const answered = results.filter((run) => run.answersAsExpected).length;
  const verdicts: Verdict[] = [
    {
      name: 'bad input, answers word for word as the table says',
      figure: `${answered} of ${results.length} runs`,
      target: 'every run',
      meets: answered === results.length,
    },
    {
      name: 'bad input, slowest run (the case alone)',
      figure: formatMs(worstMs),
      target: `≤ ${formatMs(TARGETS.ms)} each`,
      meets: results.every((run) => run.meetsTime),
    },
    {
      name: 'bad input, most memory (peak RSS − idle RSS)',
      figure: formatMiB(worstBytes),
      target: `≤ ${formatMiB(TARGETS.aboveIdleBytes)} each`,
      meets: results.every((run) => run.meetsMemory),
    },
    {
      name: 'bad input, whole table (2 children at a time)',
      figure: formatMs(result.totalMs),
      target: `< ${formatMs(TABLE_TARGET_MS)}`,
      meets: result.totalMs < TABLE_TARGET_MS,
    },
  ];
  const missed = results.filter((run) => !verdictOf(run));
  return {
    title: 'Bad input: every case through every entry point, one child process each',
    lines: [
      ...figuresTable(results),
      '',
      ...summaryLines(result),
      ...verdicts.map(verdictLine),
      ...missed.map(
        (run) =>
          `  ${run.caseId} (${run.entry}): ${run.failure ?? (run.answersAsExpected ? 'over its target' : `answered ${JSON.stringify(run.observed)}`)}`,
      ),
    ],
    verdicts,
  };
}

if (isMainModule(import.meta.url)) runAlone(runBadInputBench);
