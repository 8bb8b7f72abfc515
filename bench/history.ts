/**
 * A year of history: 50 batches, 50,000 documents in one data folder. How fast the app is ready
 * over it, how much memory it takes, and what its journals look like.
 *
 * The folder is made by bench/support/history-data.ts through the app's own store (BatchStore
 * `create`/`record`, BlobStore's layout): its snapshot.json and journal.log files are exactly
 * what the app writes, compacted by the app's own policy while the year is written, one record
 * per step of a document as the engine and the poller make them. Driving the real engine
 * against the simulator for 50,000 documents would take an hour here; the events it records are
 * few and known (main/domain/batch-events.ts), so they are written directly. Its PDFs are small
 * real PDFs, one per document. 44 batches are finished (signed, gone at the service, a few
 * failed), 4 were sent these last weeks (many still waiting for signatures), 2 are drafts.
 * Generating takes a minute or so and is not measured.
 *
 * Measured, each start in a fresh process (bundled by esbuild, plain Node):
 * - the browser host (bench/support/history-host-child.ts): ready when it answered its first
 *   `batches.list`, the call the page makes to draw the batch list, counted from the process's
 *   start. Chromium is left out: its own start (about a second here) does not depend on the
 *   data folder, and the page draws 50 rows. The first start is the first after the year was
 *   written (cold-ish: it folds what the year left unfolded); the others are warm.
 * - the command line: `status --data-dir DIR`, which reads every batch and prints every document
 *   (50,000 lines), from spawning the process to its first line and to its exit.
 * Memory: the host's RSS at ready and its peak (VmHWM) over the start and a second after; the
 * command line's peak RSS. Journals: the data folder's size, the biggest journal, the finished
 * batches whose journal was never folded, and the batches a start takes from their rest file.
 *
 * Run alone: `npx tsx bench/history.ts`. With DESK_BENCH_HISTORY_DIR=/some/folder the year is
 * written there once and kept, and later runs start from it (its journals as earlier runs left them).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { classOf } from '../main/domain/document-class';
import { BatchStore } from '../main/store/batch-store';
import { makeTempFolder } from '../test/support/pdf-files';
import { bundleChild, runChild } from './support/child-runner';
import { generateHistory, YEAR_OF_HISTORY } from './support/history-data';
import type { HostJob, HostResult } from './support/history-host-child';
import {
  formatMiB,
  formatMs,
  isMainModule,
  median,
  MIB,
  progress,
  runAlone,
  table,
  verdictLine,
  type BenchReport,
  type Verdict,
} from './support/report';

const STARTS = 5;
const SETTLE_MS = 1_000;
const TARGET_READY_MS = 1_500;
/** A year of history in the browser host: batches at rest are kept as their outlines (issue 13). */
const TARGET_HOST_RSS_BYTES = 200 * MIB;
const TARGET_CLI_RSS_BYTES = 250 * MIB;
/** The store's own bound: a journal is folded into its snapshot once it holds this many entries. */
const COMPACT_AFTER_ENTRIES = 2_000;

interface CliRun {
  readonly firstOutputMs: number;
  readonly exitMs: number;
  readonly peakRss: number;
  readonly cpuMs: number;
  readonly lines: number;
}

/** Runs the bundled command line once and times it from spawn to its first output and its exit. */
function runCli(bundle: string, dataDir: string, reportFile: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstOutputMs: number | undefined;
    let lines = 0;
    const child = spawn(process.execPath, [bundle, 'status', '--data-dir', dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DESK_BENCH_REPORT: reportFile },
    });
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      firstOutputMs ??= performance.now() - started;
      for (const byte of chunk) if (byte === 10) lines += 1;
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => {
      const exitMs = performance.now() - started;
      if (code !== 0) {
        reject(new Error(`status exited with ${code}: ${stderr}`));
        return;
      }
      const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { peakRss: number; cpuMs: number };
      resolve({
        firstOutputMs: firstOutputMs ?? exitMs,
        exitMs,
        peakRss: report.peakRss,
        cpuMs: report.cpuMs,
        lines,
      });
    });
  });
}

/** Bytes of every file under `path`. */
function folderBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  return total;
}

interface JournalFigures {
  readonly batchesBytes: number;
  readonly blobsBytes: number;
  readonly biggestJournalBytes: number;
  readonly biggestJournalEntries: number;
  readonly biggestSnapshotBytes: number;
  readonly withJournal: number;
  readonly finished: number;
  /** Finished batches (every document signed, gone or failed) whose journal still holds entries. */
  readonly finishedUnfolded: number;
  /** Batches whose folder holds a rest file (main/store/rest-file.ts): a start does not parse them. */
  readonly restFiles: number;
}

async function journalFigures(dataDir: string): Promise<JournalFigures> {
  const root = join(dataDir, 'batches');
  const store = await BatchStore.open(dataDir, { readOnly: true });
  let biggestJournalBytes = 0;
  let biggestJournalEntries = 0;
  let biggestSnapshotBytes = 0;
  let withJournal = 0;
  let finished = 0;
  let finishedUnfolded = 0;
  let restFiles = 0;
  // A read-only store holds every batch in memory.
  for (const batch of store.loaded()) {
    const folder = join(root, batch.id);
    const journal = readFileSync(join(folder, 'journal.log'), 'utf8');
    const entries = journal === '' ? 0 : journal.split('\n').length - 1;
    const snapshotBytes = (() => {
      try {
        return statSync(join(folder, 'snapshot.json')).size;
      } catch {
        return 0;
      }
    })();
    biggestJournalBytes = Math.max(biggestJournalBytes, Buffer.byteLength(journal));
    biggestJournalEntries = Math.max(biggestJournalEntries, entries);
    biggestSnapshotBytes = Math.max(biggestSnapshotBytes, snapshotBytes);
    if (entries > 0) withJournal += 1;
    const isFinished = batch.documents.every((document) =>
      ['completed', 'gone', 'failed'].includes(classOf(document)),
    );
    if (isFinished) finished += 1;
    if (isFinished && entries > 0) finishedUnfolded += 1;
    if (existsSync(join(folder, 'rest.json'))) restFiles += 1;
  }
  await store.close();
  return {
    batchesBytes: folderBytes(root),
    blobsBytes: folderBytes(join(dataDir, 'blobs')),
    biggestJournalBytes,
    biggestJournalEntries,
    biggestSnapshotBytes,
    withJournal,
    finished,
    finishedUnfolded,
    restFiles,
  };
}

function journalRows(label: string, figures: JournalFigures): string[] {
  return [
    label,
    formatMiB(figures.batchesBytes + figures.blobsBytes),
    formatMiB(figures.batchesBytes),
    `${figures.withJournal}`,
    `${figures.finishedUnfolded} of ${figures.finished}`,
    `${figures.restFiles}`,
    `${figures.biggestJournalEntries.toLocaleString('en-US')} (${formatMiB(figures.biggestJournalBytes)})`,
    formatMiB(figures.biggestSnapshotBytes),
  ];
}

/** The page-side bridge the browser host serves, built into `outDir` (what `npm run build` makes). */
async function buildBridge(outDir: string): Promise<string> {
  const outfile = join(outDir, 'desk-bridge.js');
  await build({
    entryPoints: [fileURLToPath(new URL('../renderer/browser-host-bridge.ts', import.meta.url))],
    outfile,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'chrome130',
    logLevel: 'error',
  });
  return outfile;
}

/** Runs the year-of-history benchmark and returns its report. */
export async function runHistoryBench(): Promise<BenchReport> {
  const folder = makeTempFolder('bench-history-');
  const kept = process.env.DESK_BENCH_HISTORY_DIR;
  const dataDir = kept ?? folder.file('data');
  try {
    const shape = YEAR_OF_HISTORY;
    const generatedAt = performance.now();
    const reused = kept !== undefined && existsSync(join(kept, 'batches'));
    if (!reused)
      progress(
        `writing a year of history: ${shape.batches} batches, ${shape.documents.toLocaleString('en-US')} documents`,
      );
    const generated = reused
      ? { batches: shape.batches, documents: shape.documents, events: 0, blobs: shape.documents }
      : await generateHistory(dataDir, shape, (index) => {
          if ((index + 1) % 10 === 0) progress(`${index + 1} batches written`);
        });
    const generationMs = performance.now() - generatedAt;
    const written = await journalFigures(dataDir);
    const bridgeScriptPath = await buildBridge(folder.path);
    const rendererDir = folder.file('renderer');
    mkdirSync(rendererDir);

    const hostBundle = await bundleChild('support/history-host-child.ts', folder.path);
    const cliBundle = await bundleChild('support/history-cli-child.ts', folder.path);
    const hosts: HostResult[] = [];
    for (let start = 1; start <= STARTS; start += 1) {
      progress(`browser host start ${start} of ${STARTS}`);
      const job: HostJob = {
        dataDir,
        home: folder.file('home'),
        settleMs: SETTLE_MS,
        bridgeScriptPath,
        rendererDir,
      };
      hosts.push((await runChild<HostJob, HostResult>(hostBundle, job)).result);
    }
    const afterStarts = await journalFigures(dataDir);
    const clis: CliRun[] = [];
    for (let run = 1; run <= STARTS; run += 1) {
      progress(`command line status ${run} of ${STARTS}`);
      clis.push(await runCli(cliBundle, dataDir, folder.file('cli-report.json')));
    }

    const hostReady = hosts.map((host) => host.readyMs);
    const hostPeak = Math.max(...hosts.map((host) => host.peakRss));
    const cliExit = clis.map((cli) => cli.exitMs);
    const cliPeak = Math.max(...clis.map((cli) => cli.peakRss));
    const verdicts: Verdict[] = [
      {
        name: 'Year of history: browser host ready (median / max)',
        figure: `${formatMs(median(hostReady))} / ${formatMs(Math.max(...hostReady))}`,
        target: `≤ ${formatMs(TARGET_READY_MS)}`,
        meets: Math.max(...hostReady) <= TARGET_READY_MS,
      },
      {
        name: 'Year of history: browser host peak RSS',
        figure: formatMiB(hostPeak),
        target: `≤ ${formatMiB(TARGET_HOST_RSS_BYTES)}`,
        meets: hostPeak <= TARGET_HOST_RSS_BYTES,
      },
      {
        name: 'Year of history: command line status, start to exit (median / max)',
        figure: `${formatMs(median(cliExit))} / ${formatMs(Math.max(...cliExit))}`,
        target: `≤ ${formatMs(TARGET_READY_MS)}`,
        meets: Math.max(...cliExit) <= TARGET_READY_MS,
      },
      {
        name: 'Year of history: command line peak RSS',
        figure: formatMiB(cliPeak),
        target: `≤ ${formatMiB(TARGET_CLI_RSS_BYTES)}`,
        meets: cliPeak <= TARGET_CLI_RSS_BYTES,
      },
      {
        name: 'Year of history: finished batches with an unfolded journal, after a start',
        figure: `${afterStarts.finishedUnfolded} of ${afterStarts.finished}`,
        target: '0',
        meets: afterStarts.finishedUnfolded === 0,
      },
      {
        name: 'Year of history: biggest journal, after a start',
        figure: `${afterStarts.biggestJournalEntries.toLocaleString('en-US')} entries (${formatMiB(afterStarts.biggestJournalBytes)})`,
        target: `≤ ${COMPACT_AFTER_ENTRIES.toLocaleString('en-US')} entries`,
        meets: afterStarts.biggestJournalEntries <= COMPACT_AFTER_ENTRIES,
      },
    ];
    const lines = [
      reused
        ? `  The year kept in ${dataDir} (written by an earlier run).`
        : `  ${generated.batches} batches, ${generated.documents.toLocaleString('en-US')} documents, ${generated.events.toLocaleString('en-US')} events recorded, ${generated.blobs.toLocaleString('en-US')} PDF copies; written in ${formatMs(generationMs)} (not measured).`,
      '',
      '  Browser host, each start a new process ("ready": first batches.list answered, from process start):',
      ...table([
        [
          'start',
          'server up',
          'ready',
          'CPU until ready',
          'RSS at ready',
          'peak RSS',
          'batches',
          'documents',
        ],
        ...hosts.map((host, index) => [
          index === 0 ? '1 (first after the year)' : `${index + 1}`,
          formatMs(host.launchedMs),
          formatMs(host.readyMs),
          formatMs(host.cpuMsAtReady),
          formatMiB(host.rssAtReady),
          formatMiB(host.peakRss),
          `${host.batches}`,
          host.documents.toLocaleString('en-US'),
        ]),
      ]),
      '',
      '  Command line `status --data-dir DIR` (every document of every batch, one line each):',
      ...table([
        ['run', 'first output', 'exit', 'CPU', 'peak RSS', 'lines'],
        ...clis.map((cli, index) => [
          `${index + 1}`,
          formatMs(cli.firstOutputMs),
          formatMs(cli.exitMs),
          formatMs(cli.cpuMs),
          formatMiB(cli.peakRss),
          cli.lines.toLocaleString('en-US'),
        ]),
      ]),
      '',
      '  Data folder and journals:',
      ...table([
        [
          'when',
          'data folder',
          'batches/',
          'journals not empty',
          'finished, unfolded',
          'rest files',
          'biggest journal (entries)',
          'biggest snapshot',
        ],
        journalRows('as the year left it', written),
        journalRows(`after ${STARTS} starts`, afterStarts),
      ]),
      '',
      ...verdicts.map(verdictLine),
      '',
      "  Where the host's memory goes: a batch at rest (every document signed, ended, gone or failed,",
      "  and bound to its connection) is kept as its outline and its documents' contract digests, taken",
      '  at a start from its rest.json (about a tenth of its snapshot) without parsing its snapshot; it is',
      '  read whole only when opened. The batches still sending or tracked are held whole. The first',
      '  start over batches written without rest files parses them once, and writes the files.',
    ];
    return { title: 'A year of history (50 batches, 50,000 documents)', lines, verdicts };
  } finally {
    folder.remove();
  }
}

if (isMainModule(import.meta.url)) runAlone(runHistoryBench);
