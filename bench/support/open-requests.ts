import type { Simulator } from '../../simulator/simulator';
import { makeBatch, openTestDesk } from '../../test/support/batch-harness';
import type { TempFolder } from '../../test/support/pdf-files';
import { progress } from './report';

/**
 * Leaves `count` signing requests open at `sim` and recorded in `dataDir`, as the tracking
 * benchmarks start from: one batch of small PDFs sent through the engine (8 calls in flight),
 * prepared and not signed. Answers the time it took (setup, not measured).
 */
export async function createOpenRequests(
  sim: Simulator,
  folder: TempFolder,
  dataDir: string,
  count: number,
  name: string,
): Promise<number> {
  progress(`creating ${count} open requests through the engine (small PDFs, no latency)`);
  const started = performance.now();
  const desk = await openTestDesk(sim, dataDir, { concurrency: 8 });
  try {
    const batch = await makeBatch(desk, folder, count, name);
    const summary = await desk.engine.send(batch.id);
    if (summary.prepared !== count) throw new Error(`setup prepared ${summary.prepared} of ${count}`);
  } finally {
    await desk.close();
  }
  return performance.now() - started;
}
