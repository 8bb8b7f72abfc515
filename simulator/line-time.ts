/**
 * The time the client's uplink runs on (uplink.ts, body-crossing.ts): when a piece of a body
 * has crossed its lines, when a stall or a held call ends. By default this computer's
 * monotonic clock and Node's timers, as a real line.
 *
 * A test of the line's own rules (rates, sharing, stalls) may put it on a virtual clock
 * (main/time/virtual-clock.ts fits as it is), so every crossing happens at the instant the line
 * reserved for it and the test reads the line's time instead of a stopwatch. Only when the
 * client is not on that clock too: a client that marks its calls on the wire as busy would keep
 * the virtual clock from moving the line, and the upload would never end.
 */
export interface LineTime {
  /** Monotonic milliseconds. */
  monotonic(): number;
  /** Runs `run` once after `ms`; returns its cancellation. */
  timer(ms: number, run: () => void): () => void;
}

/** This computer's monotonic clock and Node's timers. */
export const realLineTime: LineTime = Object.freeze({
  monotonic: () => performance.now(),
  timer(ms: number, run: () => void): () => void {
    const handle = setTimeout(run, ms);
    return () => clearTimeout(handle);
  },
});
