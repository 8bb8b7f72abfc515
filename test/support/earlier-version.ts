import { vi } from 'vitest';
import { connect, type DataDir } from '../../main/app/desk-core';
import { Secret } from '../../main/base/secret';
import type { BatchStore } from '../../main/store/batch-store';
import type { VirtualClock } from '../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../simulator/simulator';

/**
 * Runs `send` as a version before batches were bound to their connection did: `store` records
 * no binding meanwhile (the batch stays unbound, as that version left it).
 */
export async function sendingAsEarlierVersion<T>(store: BatchStore, send: () => Promise<T>): Promise<T> {
  const unrecorded = vi
    .spyOn(store, 'bindConnection')
    .mockImplementation((_batchId, address) => Promise.resolve(address));
  try {
    return await send();
  } finally {
    unrecorded.mockRestore();
  }
}

/**
 * Sends `documentIds` (default: all) of `batchId` to `sim` with the demo client, as an earlier
 * version did: the batch stays unbound.
 */
export async function sendAsEarlierVersion(
  at: { readonly dataDir: DataDir; readonly clock: VirtualClock },
  sim: Simulator,
  batchId: string,
  documentIds?: string[],
): Promise<void> {
  const { dataDir, clock } = at;
  const earlier = connect(
    dataDir,
    {
      baseUrl: sim.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      clientSecret: new Secret(DEMO_CLIENT.clientSecret),
    },
    { clock },
  );
  await sendingAsEarlierVersion(dataDir.store, () =>
    clock.complete(earlier.engine.send(batchId, documentIds)),
  );
  await clock.complete(earlier.close());
}
