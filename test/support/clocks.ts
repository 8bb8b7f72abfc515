import { systemClock, type Clock } from '../../main/time/clock';

/**
 * The system's timers with a time a test sets by hand: for a unit test of a rule about instants
 * (a hold, a spacing, an expiry) that waits for nothing. Monotonic and wall time are both `now`.
 * Tests that wait go on a `VirtualClock` instead.
 */
export function clockReading(now: () => number): Clock {
  return { ...systemClock, now, monotonic: now };
}

/**
 * `clockReading` whose sleeps are the test's own: a test that moves the service's clock by hand
 * as the poller waits. Tests written since go on a `VirtualClock`.
 */
export function clockSteppedBy(
  now: () => number,
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
): Clock {
  return { ...clockReading(now), sleep };
}
