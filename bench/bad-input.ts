/**
 * The bad-input table (test/bad-input/cases.ts): every bad input through every entry point it
 * reaches (command line, the app's channels), each run alone in a child process by the same runner
 * as the vitest table (test/bad-input/case-runner.ts). Figures per run: time of the case alone
 * (target ≤ 2 s) and peak RSS above idle (target ≤ 200 MiB), whether the answer is the table's,
 * word for word; then the whole table's run time on the machine that runs it.
 *
 * Then how responsive the desk stays while a large manifest is checked: the longest turn of the
 * event loop while 50,000 rows are checked (a valid manifest, and one with 25,000 problems), in
 * this process, as the app's main process does it.
 *
 * Then how fast files that only look like big PDFs are refused: 100 sparse files of 49 MiB (under
 * the limit, zeros from the first byte) named by a manifest, and added to a batch's data folder.
 * Each is refused by its first bytes, never read whole (they once took 14.6 s, read and hashed).
 *
 * Run alone: `npx tsx bench/bad-input.ts`.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkManifest, MAX_MANIFEST_ROWS } from '../main/manifest/manifest';
import { BlobStore } from '../main/store/blob-store';
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
  MIB,
  progress,
  runAlone,
  verdictLine,
  type BenchReport,
  type Verdict,
} from './support/report';

/** The desk stays responsive when no turn of its event loop lasts longer than this. */
const LOOP_TURN_TARGET_MS = 100;

/** The longest turn of the event loop (beyond a 10 ms tick) while `manifest` is checked, and the check's time. */
async function loopLagDuring(
  manifest: string,
): Promise<{ readonly worstMs: number; readonly checkMs: number }> {
  let last = performance.now();
  let worstMs = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    worstMs = Math.max(worstMs, now - last - 10);
    last = now;
  }, 10);
  const started = performance.now();
  await checkManifest(manifest);
  const checkMs = performance.now() - started;
  clearInterval(tick);
  return { worstMs, checkMs };
}

/** Two manifests of the largest size accepted, one valid, one with a problem on every other row. */
async function measureResponsiveness(): Promise<{ readonly lines: string[]; readonly verdicts: Verdict[] }> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-manifest-'));
  try {
    writeFileSync(join(folder, 'a.pdf'), '%PDF-1.7\n%%EOF\n');
    const header = 'document,external_reference,participant_type,role,name,email,signing_order';
    const rows = Array.from(
      { length: MAX_MANIFEST_ROWS },
      (_, index) =>
        `a.pdf,REF-${Math.floor(index / 5)},signer,Employee ${index},Person ${index},p${index}@example.com,${(index % 5) + 1}`,
    );
    writeFileSync(join(folder, 'valid.csv'), `${header}\n${rows.join('\n')}\n`);
    const broken = rows.map((row, index) => (index % 2 ? row.replace('@example.com', '@') : row));
    writeFileSync(join(folder, 'broken.csv'), `${header}\n${broken.join('\n')}\n`);
    const lines: string[] = [];
    const verdicts: Verdict[] = [];
    for (const [name, label] of [
      ['valid.csv', `${MAX_MANIFEST_ROWS.toLocaleString('en')} valid rows`],
      ['broken.csv', `${MAX_MANIFEST_ROWS.toLocaleString('en')} rows, a problem on every other one`],
    ] as const) {
      const { worstMs, checkMs } = await loopLagDuring(join(folder, name));
      lines.push(`  manifest of ${label}: checked in ${formatMs(checkMs)}`);
      verdicts.push({
        name: `responsiveness, longest event-loop turn while checking ${label}`,
        figure: formatMs(worstMs),
        target: `≤ ${formatMs(LOOP_TURN_TARGET_MS)}`,
        meets: worstMs <= LOOP_TURN_TARGET_MS,
      });
    }
    return { lines, verdicts };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Files of the refusal figure, each this size: under the 50 MiB limit, so only its header refuses it. */
const SPARSE_FILES = 100;
const SPARSE_BYTES = 49 * MIB;
/** 100 such files are refused within a second, in a manifest and when added alike. */
const SPARSE_TARGET_MS = 1_000;

/** 100 sparse 49 MiB "PDFs" (zeros, no header), checked in a manifest, then added to a data folder. */
async function measureSparseRefusals(): Promise<{ readonly lines: string[]; readonly verdicts: Verdict[] }> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-sparse-'));
  try {
    const names = Array.from({ length: SPARSE_FILES }, (_, index) => `scan-${index}.pdf`);
    for (const name of names) {
      writeFileSync(join(folder, name), '');
      truncateSync(join(folder, name), SPARSE_BYTES);
    }
    const header = 'document,external_reference,participant_type,role,name,email';
    const rows = names.map(
      (name, index) => `${name},REF-${index},signer,Employee,Person,p${index}@example.com`,
    );
    writeFileSync(join(folder, 'manifest.csv'), `${header}\n${rows.join('\n')}\n`);

    let started = performance.now();
    const check = await checkManifest(join(folder, 'manifest.csv'));
    const manifestMs = performance.now() - started;
    const blobs = new BlobStore(join(folder, 'data'));
    let refusedWhenAdded = 0;
    started = performance.now();
    for await (const group of blobs.intakeMany(names.map((name) => ({ path: join(folder, name) })))) {
      refusedWhenAdded += group.results.filter((result) => !result.ok).length;
    }
    const addMs = performance.now() - started;
    const label = `${SPARSE_FILES} sparse ${formatMiB(SPARSE_BYTES)} files that are not PDFs`;
    return {
      lines: [
        `  ${label}: ${check.issues.length} refused in a manifest, ${refusedWhenAdded} when added to a batch`,
      ],
      verdicts: [
        {
          name: `refusal, ${label}, named by a manifest`,
          figure: formatMs(manifestMs),
          target: `≤ ${formatMs(SPARSE_TARGET_MS)}, every one refused`,
          meets: manifestMs <= SPARSE_TARGET_MS && check.issues.length === SPARSE_FILES,
        },
        {
          name: `refusal, ${label}, added to a batch`,
          figure: formatMs(addMs),
          target: `≤ ${formatMs(SPARSE_TARGET_MS)}, every one refused`,
          meets: addMs <= SPARSE_TARGET_MS && refusedWhenAdded === SPARSE_FILES,
        },
      ],
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

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
  progress('bad-input: the event loop while the largest manifests are checked');
  const responsiveness = await measureResponsiveness();
  verdicts.push(...responsiveness.verdicts);
  progress(`bad-input: ${SPARSE_FILES} sparse files that only look like big PDFs`);
  const sparse = await measureSparseRefusals();
  verdicts.push(...sparse.verdicts);
  const missed = results.filter((run) => !verdictOf(run));
  return {
    title: 'Bad input: every case through every entry point, one child process each',
    lines: [
      ...figuresTable(results),
      '',
      ...summaryLines(result),
      ...responsiveness.lines,
      ...sparse.lines,
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
