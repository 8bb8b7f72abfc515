/**
 * Memory of the app while it prepares and sends 10 PDFs of 45 MiB (real bytes, not sparse
 * files). The app runs in a child process (bundled by esbuild, plain Node) against the
 * simulator running here, so the child's RSS is the app's alone; the child samples
 * `process.memoryUsage()` every 20 ms. Figures: idle RSS after setup, peak while sending,
 * peak − idle (target ≤ 150 MiB), and the same for the preparation (copy into the data folder).
 *
 * Run alone: `npx tsx bench/memory.ts`.
 */
import { makeTempFolder } from '../test/support/pdf-files';
import { DEMO_CLIENT, startSimulator } from '../simulator/simulator';
import { bundleChild, runChild } from './support/child-runner';
import type { MemoryJob, MemoryResult } from './support/memory-child';
import { writeBenchDocuments } from './support/bench-documents';
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

const DOCUMENTS = 10;
const DOCUMENT_BYTES = 45 * MIB;
const CONCURRENCY = 4;
const LATENCY_MS = 25;
const SAMPLE_EVERY_MS = 20;
const IDLE_MS = 500;
const TARGET_GROWTH_BYTES = 150 * MIB;

function phase(result: MemoryResult, name: string): PhaseMemory {
  const found = result.phases.find((candidate) => candidate.phase === name);
  if (!found) throw new Error(`the memory child reported no phase "${name}"`);
  return found;
}

function warningsOf(stderr: string): string[] {
  return stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/** Runs the memory benchmark and returns its report. */
export async function runMemoryBench(): Promise<BenchReport> {
  const folder = makeTempFolder('bench-memory-');
  const sim = await startSimulator({ seed: 9 });
  try {
    sim.faults.set({ latencyMs: LATENCY_MS });
    progress(`writing ${DOCUMENTS} PDFs of ${DOCUMENT_BYTES / MIB} MiB (real bytes)`);
    const documents = await writeBenchDocuments(folder, {
      count: DOCUMENTS,
      sizeBytes: DOCUMENT_BYTES,
      title: 'Large benchmark contract',
      referencePrefix: 'BIG',
    });
    const bundle = await bundleChild('support/memory-child.ts', folder.path);
    progress('preparing and sending in a child process, sampling its memory every 20 ms');
    const job: MemoryJob = {
      baseUrl: sim.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      clientSecret: DEMO_CLIENT.clientSecret,
      dataDir: folder.file('data'),
      documents,
      concurrency: CONCURRENCY,
      sampleEveryMs: SAMPLE_EVERY_MS,
      idleMs: IDLE_MS,
    };
    const { result, stderr } = await runChild<MemoryJob, MemoryResult>(bundle, job, ['--expose-gc']);
    if (result.prepared !== DOCUMENTS || result.failed !== 0) {
      throw new Error(`the memory child did not send every document: ${JSON.stringify(result)}`);
    }
    const uploads = sim.state.uploads();
    const uploadedBytes = uploads.reduce((sum, upload) => sum + upload.sizeBytes, 0);

    const idlePrep = phase(result, 'idle before preparation');
    const prep = phase(result, 'preparation');
    const idleSend = phase(result, 'idle before sending');
    const send = phase(result, 'sending');
    const after = phase(result, 'idle after sending');
    const sendGrowth = send.peakRss - idleSend.medianRss;
    const prepGrowth = prep.peakRss - idlePrep.medianRss;
    const totalBytes = DOCUMENTS * DOCUMENT_BYTES;
    const verdicts: Verdict[] = [
      {
        name: 'sending, peak RSS − idle RSS',
        figure: formatMiB(sendGrowth),
        target: `≤ ${formatMiB(TARGET_GROWTH_BYTES)}`,
        meets: sendGrowth <= TARGET_GROWTH_BYTES,
      },
      {
        name: 'preparation, peak RSS − idle RSS',
        figure: formatMiB(prepGrowth),
        target: `≤ ${formatMiB(TARGET_GROWTH_BYTES)}, the same budget`,
        meets: prepGrowth <= TARGET_GROWTH_BYTES,
      },
    ];
    const rows = [
      [
        'phase',
        'duration',
        'samples',
        'median RSS',
        'peak RSS',
        'peak heap used',
        'peak external',
        'peak ArrayBuffers',
      ],
      ...result.phases.map((entry) => [
        entry.phase,
        formatMs(entry.durationMs),
        String(entry.samples),
        formatMiB(entry.medianRss),
        formatMiB(entry.peakRss),
        formatMiB(entry.peakHeapUsed),
        formatMiB(entry.peakExternal),
        formatMiB(entry.peakArrayBuffers),
      ]),
    ];
    const warnings = warningsOf(stderr);
    const lines = [
      `  ${DOCUMENTS} PDFs × ${DOCUMENT_BYTES / MIB} MiB (${formatMiB(totalBytes)}, real random bytes after a pdf-lib page), 2 participants each, concurrency ${CONCURRENCY}, simulator latency ${LATENCY_MS} ms.`,
      `  The app runs in a child process (esbuild bundle, Node ${process.version}, --expose-gc: idle figures are taken after a GC and ${IDLE_MS} ms of quiet); the simulator runs in this process.`,
      `  Service received ${uploads.length} uploads, ${formatMiB(uploadedBytes)}; summary ${result.state}, ${result.prepared} prepared, ${result.failed} failed; ${result.engineEvents} engine events.`,
      '',
      ...table(rows),
      '',
      `  Sending:     idle ${formatMiB(idleSend.medianRss)} → peak ${formatMiB(send.peakRss)} (+${formatMiB(sendGrowth)}) in ${formatMs(send.durationMs)}, ${(totalBytes / MIB / (send.durationMs / 1000)).toFixed(0)} MiB/s uploaded; ${formatMiB(after.medianRss)} after.`,
      `  Preparation: idle ${formatMiB(idlePrep.medianRss)} → peak ${formatMiB(prep.peakRss)} (+${formatMiB(prepGrowth)}) in ${formatMs(prep.durationMs)}, ${(totalBytes / MIB / (prep.durationMs / 1000)).toFixed(0)} MiB/s hashed and copied with fsync.`,
      ...verdicts.map(verdictLine),
      `  Child stderr: ${warnings.length === 0 ? 'nothing (no warnings)' : warnings.join(' | ')}`,
    ];
    return { title: 'Memory: 10 × 45 MiB, app in a child process', lines, verdicts };
  } finally {
    await sim.close();
    folder.remove();
  }
}

if (isMainModule(import.meta.url)) runAlone(runMemoryBench);
