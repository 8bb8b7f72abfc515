/**
 * Child process of the memory benchmark (bundled by esbuild, run on plain Node with
 * --expose-gc): opens the app's desk, prepares the batch (copies the PDFs into the data
 * folder) and sends it, sampling its own memory every few milliseconds throughout. The
 * simulator runs in the parent, so these figures are the app's alone.
 */
import { prepareBatch, type BenchDocument } from './batch-setup';
import { childJob, collectGarbage, openChildDesk, sendToParent, type ChildConnection } from './child-channel';
import { RssSampler, type PhaseMemory } from './rss-sampler';

export interface MemoryJob extends ChildConnection {
  readonly documents: readonly BenchDocument[];
  readonly concurrency: number;
  readonly sampleEveryMs: number;
  /** Quiet time sampled before preparation and before sending, for the idle figures. */
  readonly idleMs: number;
}

export interface MemoryResult {
  readonly phases: readonly PhaseMemory[];
  readonly prepared: number;
  readonly failed: number;
  readonly state: string;
  readonly engineEvents: number;
}

async function main(): Promise<void> {
  const job = childJob<MemoryJob>();
  const sampler = new RssSampler(job.sampleEveryMs);
  sampler.phase('startup');
  const desk = await openChildDesk(job, { concurrency: job.concurrency });
  try {
    await sampler.idle('idle before preparation', job.idleMs, collectGarbage);
    const batch = await sampler.during('preparation', () => prepareBatch(desk, 'Memory', job.documents));
    await sampler.idle('idle before sending', job.idleMs, collectGarbage);
    let engineEvents = 0;
    desk.engine.subscribe(() => {
      engineEvents += 1;
    });
    const summary = await sampler.during('sending', () => desk.engine.send(batch.id));
    await sampler.idle('idle after sending', job.idleMs, collectGarbage);
    const result: MemoryResult = {
      phases: sampler.stop(),
      prepared: summary.prepared,
      failed: summary.failed,
      state: summary.state,
      engineEvents,
    };
    await sendToParent(result);
  } finally {
    await desk.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  // The sampler's timer would keep a failed child alive.
  process.exit(1);
});
