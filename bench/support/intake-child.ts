/**
 * Child process of the intake benchmark (bundled by esbuild, run on plain Node with
 * --expose-gc): opens a fresh data folder and imports the job's PDFs into one batch through the
 * app's own path, sampling its own memory every few milliseconds: `addPdfDocuments` (what
 * "Add PDFs" and "Add a folder" call) or a manifest checked with `checkManifest` then
 * imported with `importManifest` (what "Import a manifest" calls); or the command line's
 * `validate` of a manifest.
 */
import { readFile } from 'node:fs/promises';
import { addPdfDocuments, importManifest } from '../../main/engine/batch-preparation';
import { checkManifest } from '../../main/manifest/manifest';
import { parseCliArgs } from '../../main/cli/cli-args';
import { EXIT, type CliOutput } from '../../main/cli/cli-output';
import { validateCommand } from '../../main/cli/commands';
import { openDataDir } from '../../main/app/desk-core';
import { childJob, collectGarbage, sendToParent } from './child-channel';
import { RssSampler, type PhaseMemory } from './rss-sampler';

export type IntakeJob = {
  readonly dataDir: string;
  readonly sampleEveryMs: number;
  /** Quiet time sampled before the import, for the idle figure. */
  readonly idleMs: number;
} & (
  | {
      readonly kind: 'pdfs';
      /** A file of the PDFs' paths, one a line (too many for a command line). */ readonly pathList: string;
    }
  | { readonly kind: 'manifest'; readonly manifest: string }
  /** The command line's `validate MANIFEST`, its output dropped: no data folder is touched. */
  | { readonly kind: 'validate'; readonly manifest: string }
);

export interface IntakeResult {
  readonly phases: readonly PhaseMemory[];
  readonly added: number;
  readonly rejected: number;
  readonly documents: number;
  /** The manifest's check (read, parse, every PDF hashed once), before the import; 0 for PDFs. */
  readonly checkMs: number;
  /** The import itself: every copy made durable and recorded; for `validate`, the command's run. */
  readonly importMs: number;
}

/** Output that keeps nothing: the figures are the command's own work, not the terminal's. */
const quiet: CliOutput = {
  json: false,
  say: () => undefined,
  error: () => undefined,
  event: () => undefined,
};

async function validate(job: IntakeJob & { readonly kind: 'validate' }): Promise<void> {
  const sampler = new RssSampler(job.sampleEveryMs);
  sampler.phase('startup');
  await sampler.idle('idle', job.idleMs, collectGarbage);
  const started = performance.now();
  const args = parseCliArgs(['validate', job.manifest]);
  if (!args.ok) throw new Error(args.error.message);
  const exit = await sampler.during('check', () => validateCommand(args.value, quiet));
  const importMs = performance.now() - started;
  if (exit !== EXIT.ok) throw new Error(`validate found problems in the manifest (exit ${exit})`);
  // Counted again apart from the timed run (the command prints its totals, it returns none).
  const check = await checkManifest(job.manifest);
  const result: IntakeResult = {
    phases: sampler.stop(),
    added: check.documents.length,
    rejected: 0,
    documents: check.documents.length,
    checkMs: importMs,
    importMs,
  };
  await sendToParent(result);
}

async function main(): Promise<void> {
  const job = childJob<IntakeJob>();
  if (job.kind === 'validate') return validate(job);
  const sampler = new RssSampler(job.sampleEveryMs);
  sampler.phase('startup');
  const opened = await openDataDir(job.dataDir);
  if (!opened.ok) throw new Error(opened.error);
  const { store, blobs } = opened.value;
  try {
    const batch = await store.create('Intake benchmark', { defaultRecipients: [] });
    await sampler.idle('idle', job.idleMs, collectGarbage);
    let checkMs = 0;
    let importMs: number;
    let added: number;
    let rejected: number;
    if (job.kind === 'pdfs') {
      const paths = (await readFile(job.pathList, 'utf8')).split('\n').filter(Boolean);
      const started = performance.now();
      const result = await sampler.during('import', () => addPdfDocuments(store, blobs, batch.id, paths));
      importMs = performance.now() - started;
      added = result.added.length;
      rejected = result.rejected.length;
    } else {
      const { manifest } = job;
      const checkStarted = performance.now();
      const check = await sampler.during('check', () => checkManifest(manifest));
      checkMs = performance.now() - checkStarted;
      if (check.issues.length > 0) throw new Error(`the manifest has problems: ${check.issues[0]?.message}`);
      const started = performance.now();
      const result = await sampler.during('import', () =>
        importManifest(store, blobs, batch.id, check.documents),
      );
      importMs = performance.now() - started;
      added = result.added;
      rejected = result.rejected.length;
    }
    await sampler.idle('idle after', job.idleMs, collectGarbage);
    const result: IntakeResult = {
      phases: sampler.stop(),
      added,
      rejected,
      documents: store.get(batch.id)?.documents.length ?? 0,
      checkMs,
      importMs,
    };
    await sendToParent(result);
  } finally {
    await opened.value.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  // The sampler's timer would keep a failed child alive.
  process.exit(1);
});
