/**
 * Import and durable copies, for the target of 10,000 documents in one batch: small distinct
 * one-page PDFs (2 KiB, real bytes, each its own SHA-256) imported into one batch of a fresh data
 * folder through the app's own path, each run in a child process (bundled by esbuild, plain Node)
 * sampling its memory every 20 ms:
 *
 * - the command line's `validate` of a manifest of 30,000 rows (10,000 documents × 3 people):
 *   in the child (`validateCommand`, timed and sampled), and the command itself run as a
 *   process from start to exit;
 * - 1,000 and 10,000 PDFs through `addPdfDocuments` ("Add PDFs", "Add a folder");
 * - the same manifest: `checkManifest` then `importManifest` ("Import a manifest"); the check
 *   is reported apart, the import is timed.
 *
 * The import is done when every copy is durable (fsynced with its folder) and every document is
 * recorded in the batch's journal. Targets: validate in ≤ 5 s, 10,000 documents imported in
 * ≤ 20 s, peak RSS ≤ 300 MiB above the idle RSS before the work.
 *
 * Run alone: `npx tsx bench/intake.ts`.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { makeTempFolder, type TempFolder } from '../test/support/pdf-files';
import { bundleChild, runChild } from './support/child-runner';
import type { IntakeJob, IntakeResult } from './support/intake-child';
import { makePaddedPdfTemplate, writePaddedPdf } from './support/pdf-fixtures';
import type { PhaseMemory } from './support/rss-sampler';
import {
  formatMiB,
  formatMs,
  isMainModule,
  MIB,
  progress,
  runAlone,
  table,
  verdictLine,
  type BenchReport,
  type Verdict,
} from './support/report';

const DOCUMENTS = 10_000;
const SMALL_RUN = 1_000;
const DOCUMENT_BYTES = 2 * 1024;
const ROWS_PER_DOCUMENT = 3;
const SAMPLE_EVERY_MS = 20;
const IDLE_MS = 500;
const TARGET_MS = 20_000;
const VALIDATE_TARGET_MS = 5_000;
const TARGET_GROWTH_BYTES = 300 * MIB;

interface Scenario {
  readonly name: string;
  readonly documents: number;
  readonly job: (dataDir: string) => IntakeJob;
  /** Whether the scenario is one with targets (10,000 documents). */
  readonly targeted: boolean;
  /** The figure's name in the verdicts, and its time target. */
  readonly what: 'import' | 'validate';
}

interface Measured {
  readonly scenario: Scenario;
  readonly result: IntakeResult;
  readonly idle: PhaseMemory;
  readonly growthBytes: number;
}

/** Writes `count` distinct small PDFs into `folder`, named contract-00001.pdf… */
async function writeSources(folder: TempFolder, count: number): Promise<string[]> {
  const template = await makePaddedPdfTemplate(DOCUMENT_BYTES, 'Employment contract');
  const paths: string[] = [];
  for (let index = 1; index <= count; index += 1) {
    const path = folder.file(`contract-${String(index).padStart(5, '0')}.pdf`);
    await writePaddedPdf(path, template);
    paths.push(path);
  }
  return paths;
}

/** A manifest of one row per person, three people (two signers, an observer) per document. */
function writeManifest(folder: TempFolder, paths: readonly string[]): string {
  const lines = ['document,external_reference,participant_type,role,name,email,signing_order'];
  paths.forEach((path, index) => {
    const reference = `HR-2026-${String(index + 1).padStart(5, '0')}`;
    const person = (type: string, n: number, order: string) =>
      `${basename(path)},${reference},${type},Role ${n},Person ${index}-${n},p${index}-${n}@example.com,${order}`;
    lines.push(person('signer', 1, '1'), person('signer', 2, '2'), person('observer', 3, ''));
  });
  const manifest = folder.file('manifest.csv');
  writeFileSync(manifest, `${lines.join('\n')}\n`);
  return manifest;
}

/** How long `node bundle args…` takes from spawn to exit (its output dropped). */
function timeProcess(bundle: string, args: readonly string[]): Promise<number> {
  return new Promise((resolveTime, rejectTime) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bundle, ...args], { stdio: 'ignore' });
    child.on('error', rejectTime);
    child.on('exit', (code) => {
      if (code === 0) resolveTime(performance.now() - started);
      else rejectTime(new Error(`${args.join(' ')} exited with ${code}`));
    });
  });
}

function phase(result: IntakeResult, name: string): PhaseMemory | undefined {
  return result.phases.find((candidate) => candidate.phase === name);
}

/** Runs the intake benchmark and returns its report. */
export async function runIntakeBench(): Promise<BenchReport> {
  const folder = makeTempFolder('bench-intake-');
  try {
    progress(`writing ${DOCUMENTS.toLocaleString('en-US')} distinct PDFs of ${DOCUMENT_BYTES / 1024} KiB`);
    const paths = await writeSources(folder, DOCUMENTS);
    const manifest = writeManifest(folder, paths);
    const pathLists = [SMALL_RUN, DOCUMENTS].map((count) => {
      const list = folder.file(`paths-${count}.txt`);
      writeFileSync(list, paths.slice(0, count).join('\n'));
      return list;
    });
    const common = { sampleEveryMs: SAMPLE_EVERY_MS, idleMs: IDLE_MS };
    const scenarios: Scenario[] = [
      {
        name: `validate, manifest of ${(DOCUMENTS * ROWS_PER_DOCUMENT).toLocaleString('en-US')} rows (${DOCUMENTS.toLocaleString('en-US')} PDFs)`,
        documents: DOCUMENTS,
        job: () => ({ ...common, kind: 'validate', manifest, dataDir: '' }),
        targeted: true,
        what: 'validate',
      },
      {
        name: `${SMALL_RUN.toLocaleString('en-US')} PDFs, addPdfDocuments`,
        documents: SMALL_RUN,
        job: (dataDir) => ({ ...common, dataDir, kind: 'pdfs', pathList: pathLists[0]! }),
        targeted: false,
        what: 'import',
      },
      {
        name: `${DOCUMENTS.toLocaleString('en-US')} PDFs, addPdfDocuments`,
        documents: DOCUMENTS,
        job: (dataDir) => ({ ...common, dataDir, kind: 'pdfs', pathList: pathLists[1]! }),
        targeted: true,
        what: 'import',
      },
      {
        name: `manifest of ${(DOCUMENTS * ROWS_PER_DOCUMENT).toLocaleString('en-US')} rows (${DOCUMENTS.toLocaleString('en-US')} PDFs), importManifest`,
        documents: DOCUMENTS,
        job: (dataDir) => ({ ...common, dataDir, kind: 'manifest', manifest }),
        targeted: true,
        what: 'import',
      },
    ];
    const bundle = await bundleChild('support/intake-child.ts', folder.path);
    const cli = await bundleChild('../main/cli/index.ts', folder.path);
    progress('validate, as the command line runs it: a process from start to exit');
    const cliMs = await timeProcess(cli, ['validate', manifest]);
    const measured: Measured[] = [];
    for (const [index, scenario] of scenarios.entries()) {
      progress(`importing: ${scenario.name}, in a child process`);
      const { result } = await runChild<IntakeJob, IntakeResult>(
        bundle,
        scenario.job(folder.file(`data-${index}`)),
        ['--expose-gc'],
      );
      if (
        result.added !== scenario.documents ||
        result.rejected !== 0 ||
        result.documents !== scenario.documents
      ) {
        throw new Error(
          `the intake child did not add every document: ${JSON.stringify({ ...result, phases: [] })}`,
        );
      }
      const idle = phase(result, 'idle');
      if (!idle) throw new Error('the intake child reported no idle phase');
      const peak = Math.max(...['check', 'import'].map((name) => phase(result, name)?.peakRss ?? 0));
      measured.push({ scenario, result, idle, growthBytes: peak - idle.medianRss });
    }

    const verdicts: Verdict[] = measured
      .filter(({ scenario }) => scenario.targeted)
      .flatMap(({ scenario, result, growthBytes }) => [
        scenario.what === 'validate'
          ? {
              name: `${scenario.name}, the command from start to exit`,
              figure: formatMs(cliMs),
              target: `≤ ${formatMs(VALIDATE_TARGET_MS)}`,
              meets: cliMs <= VALIDATE_TARGET_MS,
            }
          : {
              name: `import, ${scenario.name}`,
              figure: formatMs(result.importMs),
              target: `≤ ${formatMs(TARGET_MS)}`,
              meets: result.importMs <= TARGET_MS,
            },
        {
          name: `${scenario.what === 'validate' ? '' : 'import, '}${scenario.name}, peak RSS − idle RSS`,
          figure: formatMiB(growthBytes),
          target: `≤ ${formatMiB(TARGET_GROWTH_BYTES)}`,
          meets: growthBytes <= TARGET_GROWTH_BYTES,
        },
      ]);
    const rows = [
      [
        'work',
        'documents',
        'time',
        'per document',
        'manifest check',
        'idle RSS',
        'peak RSS − idle',
        'peak heap used',
        'peak external',
      ],
      ...measured.map(({ scenario, result, idle, growthBytes }) => [
        scenario.name,
        result.documents.toLocaleString('en-US'),
        formatMs(result.importMs),
        `${(result.importMs / result.documents).toFixed(2)} ms`,
        scenario.what === 'import' && result.checkMs > 0 ? formatMs(result.checkMs) : '—',
        formatMiB(idle.medianRss),
        formatMiB(growthBytes),
        formatMiB(Math.max(...result.phases.map((phase) => phase.peakHeapUsed))),
        formatMiB(Math.max(...result.phases.map((phase) => phase.peakExternal))),
      ]),
    ];
    const lines = [
      `  Distinct one-page PDFs of ${DOCUMENT_BYTES / 1024} KiB (pdf-lib, random filler), into a fresh data folder each time, one batch; the manifest has ${ROWS_PER_DOCUMENT} rows per document (two signers, an observer). Time: validate until its verdict; an import until every copy is durable and every document recorded. Memory: the child's RSS every ${SAMPLE_EVERY_MS} ms, peak during validate, the manifest's check and the import, above the median RSS of ${IDLE_MS} ms idle before.`,
      `  validate as a command (\`node cli.mjs validate manifest.csv\`, bundled, Node's start included): ${formatMs(cliMs)}.`,
      '',
      ...table(rows),
      '',
      ...verdicts.map(verdictLine),
    ];
    return {
      title: 'Intake: validate, import and durable copies of 1,000 and 10,000 PDFs',
      lines,
      verdicts,
    };
  } finally {
    folder.remove();
  }
}

if (isMainModule(import.meta.url)) runAlone(runIntakeBench);
