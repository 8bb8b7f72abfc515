/**
 * A simulator and a desk on one virtual clock: the service's time (token lifetimes, Retry-After,
 * the times it records, its latency) and the app's (backoff, spacing, the poller, the engine's
 * waits) move together, only when the test lets them. A test waits for outcomes with
 * `clock.runUntil(…)`, never for durations.
 */
import { READ_SPACING_MS } from '../../main/client/read-spacing';
import type { Desk, DeskOptions } from '../../main/desk-core';
import { VirtualClock } from '../../main/time/virtual-clock';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import type { SimulatorOptions } from '../../simulator/types';
import { openTestDesk } from './batch-harness';

/** Starts the simulator on a new virtual clock (starting at this computer's time), or on `clock`. */
export async function startVirtualSimulator(
  options: SimulatorOptions = {},
  clock: VirtualClock = new VirtualClock({ startAt: Date.now() }),
): Promise<{ readonly sim: Simulator; readonly clock: VirtualClock }> {
  return { sim: await startSimulator({ ...options, timeSource: clock }), clock };
}

/**
 * Opens a test desk on `clock`, then lets the read spacing pass: as if the app had started a
 * while ago, so its first reads are not held back for another process that might have just read
 * (the read-spacing tests cover that hold).
 */
export async function openVirtualDesk(
  sim: Simulator,
  clock: VirtualClock,
  dataDir: string,
  overrides: Partial<DeskOptions> = {},
): Promise<Desk> {
  const desk = await openTestDesk(sim, dataDir, { clock, ...overrides });
  await clock.advance(READ_SPACING_MS);
  return desk;
}
