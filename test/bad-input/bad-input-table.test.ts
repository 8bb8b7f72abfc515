/**
 * Every bad input of the table (cases.ts) through every entry point it reaches, each run in a fresh
 * child process: the exact answer, at most 200 MiB above idle. Prints the figures (case, entry, ms,
 * MiB above idle, verdict) and the whole table's run time. How fast each answer comes (within 2 s)
 * is a speed target, so it is checked where speed is measured alone on the machine: `npm run bench`
 * (bench/bad-input.ts), not here, where the table shares the cores with other suites (README "Time
 * in tests": no test asserts an elapsed time).
 * BAD_INPUT_CASES=id,id… runs only those cases (while adding or fixing one).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { entryName } from './case-kit';
import { TARGETS, figuresTable, runBadInputTable, summaryLines, type TableResult } from './case-runner';
import { CASES } from './cases';

const only = process.env['BAD_INPUT_CASES']?.split(',');
const SELECTED = only ? CASES.filter((badInput) => only.includes(badInput.id)) : CASES;
const RUNS = SELECTED.flatMap((badInput) =>
  badInput.runs.map((run) => ({ id: badInput.id, entry: entryName(run) })),
).map((run, index) => ({ ...run, index }));

let table: TableResult;

beforeAll(async () => {
  table = await runBadInputTable(SELECTED);
  console.log(['Bad-input table', ...figuresTable(table.results), ...summaryLines(table)].join('\n'));
}, 600_000);

describe('the bad-input table', () => {
  it('holds at least 40 cases, each with a unique id and at least one run', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(CASES.map((badInput) => badInput.id)).size).toBe(CASES.length);
    for (const badInput of CASES) expect(badInput.runs.length, badInput.id).toBeGreaterThan(0);
  });

  it.each(RUNS)('$id through $entry: the exact answer, at most 200 MiB above idle', ({ index }) => {
    const result = table.results[index];
    expect(result?.failure).toBeUndefined();
    expect(result?.observed).toEqual(result?.expected);
    expect(result?.aboveIdleBytes).toBeLessThanOrEqual(TARGETS.aboveIdleBytes);
  });
});
