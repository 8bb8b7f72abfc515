/**
 * A simulator and a desk on one virtual clock: the service's time (token lifetimes, Retry-After,
 * the times it records, its latency) and the app's (backoff, spacing, the poller, the engine's
 * waits) move together, only when the test lets them. A test waits for outcomes with
 * `clock.runUntil(…)`, never for durations.
 */
import { READ_SPACING_MS } from '../../main/client/read-spacing';
import type { Desk, DeskOptions } from '../../main/app/desk-core';
import { sleepOn, type Cancel, type Clock } from '../../main/time/clock';
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

/**
 * `clock`'s timers with a wall clock `aheadMs()` ahead of it (behind when negative): a desk whose
 * computer's clock is wrong, or is set back by NTP, while the service keeps the right time.
 */
export function clockAheadOf(clock: VirtualClock, aheadMs: () => number): Clock {
  return {
    now: () => clock.now() + aheadMs(),
    monotonic: () => clock.monotonic(),
    sleep: (ms, signal) => clock.sleep(ms, signal),
    timer: (ms, run) => clock.timer(ms, run),
    every: (ms, run) => clock.every(ms, run),
    busy: () => clock.busy(),
  };
}

/**
 * `clock` counting the timers set on it (every sleep and nap sets one): a component that loops
 * without waiting sets thousands at one virtual instant. Past `spinLimit` of them, reading the
 * time throws: a busy loop of promises (which no timer can interrupt) ends with that error
 * instead of starving the process, and the test counts the timers.
 */
export function countingTimers(
  clock: VirtualClock,
  spinLimit = 10_000,
): { readonly clock: Clock; readonly set: () => number } {
  let set = 0;
  let instant = -1;
  let atInstant = 0;
  const spinning = (): boolean => atInstant > spinLimit;
  const read = (time: () => number) => (): number => {
    if (spinning()) throw new Error(`${spinLimit} timers set at one instant: a busy loop`);
    return time();
  };
  const timer = (ms: number, run: () => void): Cancel => {
    set += 1;
    atInstant = clock.monotonic() === instant ? atInstant + 1 : 1;
    instant = clock.monotonic();
    return clock.timer(ms, run);
  };
  return {
    clock: {
      now: read(() => clock.now()),
      monotonic: read(() => clock.monotonic()),
      sleep: (ms, signal) => sleepOn(timer, ms, signal),
      timer,
      every: (ms, run) => clock.every(ms, run),
      busy: () => clock.busy(),
    },
    set: () => set,
  };
}
