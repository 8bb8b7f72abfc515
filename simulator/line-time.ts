/**
 * The time the client's uplink runs on (uplink.ts, body-crossing.ts): when a piece of a body
 * has crossed its lines, when a stall or a held call ends. By default this computer's
 * monotonic clock and Node's timers, as a real line.
 *
 * A test of the line's own rules (rates, sharing, stalls) may put it on a virtual clock
 * (main/time/virtual-clock.ts fits as it is), so every crossing happens at the instant the line
 * reserved for it and the test reads the line's time instead of a stopwatch. The client may be
 * on that clock too: a client marks its calls on the wire as busy, which keeps a virtual clock
 * from jumping over them, so while a piece crosses (or a stall holds a call) the line tells the
 * clock that the call is held at this end (`holdsCall`), not real work, and time moves on.
 */
export interface LineTime {
  /** Monotonic milliseconds. */
  monotonic(): number;
  /** Runs `run` once after `ms`; returns its cancellation. */
  timer(ms: number, run: () => void): () => void;
  /**
   * A call on the wire is held here on this time until the returned release (a virtual clock's
   * own, so it may move while the call waits for the line); absent on real time.
   */
  holdsCall?(): () => void;
}

/** This computer's monotonic clock and Node's timers. */
export const realLineTime: LineTime = Object.freeze({
  monotonic: () => performance.now(),
  timer(ms: number, run: () => void): () => void {
    const handle = setTimeout(run, ms);
    return () => clearTimeout(handle);
  },
});
