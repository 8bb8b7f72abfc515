/**
 * The tray's counts (README "Using the app": sending, waiting for signatures, completed and
 * ended today, in a status the app does not know), from the batches' outlines: a batch at rest
 * is not read for them.
 */
import type { BatchOutline } from '../domain/batch-outline';

export interface TrayCounts {
  readonly sending: number;
  readonly waiting: number;
  readonly completedToday: number;
  /** Requests the app learned today had ended at their service without completion. */
  readonly endedToday: number;
  /** Requests in a status the app does not know (not final): still read, less often. */
  readonly unknownStatus: number;
}

/** The counts over `batches`; `today` is the person's local day, as `Date.prototype.toDateString` says it. */
export function trayCountsOf(batches: readonly BatchOutline[], today: string): TrayCounts {
  // "Today" is the user's local day, not UTC's.
  const todays = (times: Float64Array) => {
    let count = 0;
    for (const time of times) if (new Date(time).toDateString() === today) count += 1;
    return count;
  };
  const counts = { sending: 0, waiting: 0, completedToday: 0, endedToday: 0, unknownStatus: 0 };
  for (const { counts: of, completedAt, endedAt } of batches) {
    counts.sending += of.sending;
    // Waiting for signatures: opened by a signer already, or not yet.
    counts.waiting += of.waiting;
    counts.unknownStatus += of.unknown_status;
    counts.completedToday += todays(completedAt);
    counts.endedToday += todays(endedAt);
  }
  return counts;
}
