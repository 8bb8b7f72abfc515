/**
 * When to read a request next. The spec gives no rate limit, so the schedule is polite by
 * design: quick while someone waits for a ceremony, slower as a request ages, never in step.
 */
export interface PollSchedule {
  /** Interval while a ceremony window is open or was closed within `attentionGraceMs`. */
  readonly attentionMs: number;
  readonly attentionGraceMs: number;
  /** [age limit, interval]: the first whose limit exceeds the request's age applies. */
  readonly byAge: readonly (readonly [ageLimitMs: number, intervalMs: number])[];
  /** The interval for requests older than every limit (peers publish one read per 15 min). */
  readonly oldestMs: number;
  /** Each interval is stretched or shrunk by up to this fraction, at random. */
  readonly jitter: number;
  /** No interval is shorter: the client never reads one request twice within its read spacing anyway. */
  readonly minimumMs: number;
  /**
   * A status this app does not know, and nothing says is final: the wait before the next read
   * is as long as the status has stood unchanged, between these bounds (see `unrecognizedInterval`).
   */
  readonly unrecognized: { readonly firstMs: number; readonly longestMs: number };
}

import { READ_SPACING_MS } from '../client/read-spacing';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const DEFAULT_POLL_SCHEDULE: PollSchedule = {
  attentionMs: 5_000,
  attentionGraceMs: 2 * MINUTE,
  byAge: [
    [10 * MINUTE, 30_000],
    [HOUR, 2 * MINUTE],
    [24 * HOUR, 5 * MINUTE],
  ],
  oldestMs: 15 * MINUTE,
  jitter: 0.2,
  minimumMs: READ_SPACING_MS,
  // 15 min is the pace peers publish for one request (and this schedule's oldest); a day keeps a
  // request left on hold for weeks at one read a day, yet still notices when it moves on.
  unrecognized: { firstMs: 15 * MINUTE, longestMs: 24 * HOUR },
};

/** The interval before the next read of a request of age `ageMs`, jitter included. */
export function nextInterval(
  schedule: PollSchedule,
  ageMs: number,
  attention: boolean,
  random: () => number,
): number {
  const base = attention
    ? schedule.attentionMs
    : (schedule.byAge.find(([limit]) => ageMs < limit)?.[1] ?? schedule.oldestMs);
  const factor = 1 + schedule.jitter * (2 * random() - 1);
  return Math.max(schedule.minimumMs, Math.round(base * factor));
}

/**
 * The interval before the next read of a request in a status this app does not know (not
 * final): as long as that status has stood unchanged (`unchangedMs`, since it was first read),
 * at least `firstMs` and at most `longestMs`, jitter included. Reads of a status that stays put
 * thus come at 15 min, 30 min, 1 h, 2 h… — the wait doubles with each unchanged read — up to one a
 * day. It needs no count of reads: the journal keeps when the status was first read, so a
 * restart keeps the pace. A status that changes starts again at `firstMs`; a known one goes
 * back to the age schedule (`nextInterval`).
 */
export function unrecognizedInterval(
  schedule: PollSchedule,
  unchangedMs: number,
  random: () => number,
): number {
  const { firstMs, longestMs } = schedule.unrecognized;
  const base = Math.min(longestMs, Math.max(firstMs, unchangedMs));
  const factor = 1 + schedule.jitter * (2 * random() - 1);
  return Math.max(schedule.minimumMs, Math.round(base * factor));
}
