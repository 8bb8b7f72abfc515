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
