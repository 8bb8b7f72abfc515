import type { TrackedStatus } from '../../shared/domain/batch';
import { stageOfStored } from '../../shared/service/status';
import type { Clock } from '../time/clock';
import { DueQueue } from './due-queue';
import { nextInterval, unrecognizedInterval, type PollSchedule } from './poll-schedule';
import type { Tracked, TrackedRequests } from './tracked-requests';

/**
 * When each tracked request is read next: by its age, by attention (someone is watching its
 * ceremony), and for a status this app does not know, by how long it has stood. Requests read
 * for the first time are spread out, not read all at once.
 *
 * Its two times: wall-clock time says how old a request is and when it was last read (its times
 * are wall times); monotonic time says when each read is due and how long attention lasts. A
 * computer's clock set back an hour must not stop every read for that hour, nor one set forward
 * read everything at once.
 */
export class NextReads {
  readonly #schedule: PollSchedule;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #due = new DueQueue();
  readonly #attentionUntil = new Map<string, number>();

  constructor(schedule: PollSchedule, clock: Clock, random: () => number) {
    this.#schedule = schedule;
    this.#clock = clock;
    this.#random = random;
  }

  /** Someone watches `key` until `until` (monotonic time); it is due now. */
  attend(key: string, until: number): void {
    this.#attentionUntil.set(key, until);
    this.#due.set(key, this.#clock.monotonic());
  }

  /** `key` is due at `due` (monotonic time). */
  dueAt(key: string, due: number): void {
    this.#due.set(key, due);
  }

  /** `key` is read no more (its request is final or gone). */
  forget(key: string): void {
    this.#due.delete(key);
  }

  /** Schedules a request just taken from the store, unless it already has a time. */
  scheduleFirst(tracked: Tracked): void {
    if (this.#due.dueOf(tracked.key) === undefined) this.#due.set(tracked.key, this.#firstDue(tracked));
  }

  /**
   * Schedules the next read of `tracked` after a read at `tick` (monotonic) whose answer says
   * `status`, first read at `statusSince` (wall time).
   */
  readAgain(tracked: Tracked, tick: number, status: TrackedStatus | undefined, statusSince: number): void {
    this.#due.set(tracked.key, tick + this.#intervalAfter(tracked, status, statusSince));
  }

  /**
   * The tracked request to read next and when it is due: requests someone is watching go first
   * among those due, then the one due first. Attention that ran out is forgotten here.
   */
  next(
    now: number,
    requests: TrackedRequests,
  ): { readonly tracked: Tracked; readonly due: number } | undefined {
    let watched: { tracked: Tracked; due: number } | undefined;
    for (const [key, until] of this.#attentionUntil) {
      if (until <= now) {
        this.#attentionUntil.delete(key);
        continue;
      }
      const tracked = requests.get(key);
      const due = this.#due.dueOf(key);
      if (tracked && due !== undefined && due <= now && (!watched || due < watched.due))
        watched = { tracked, due };
    }
    if (watched) return watched;
    const first = this.#due.first((key) => requests.has(key));
    const tracked = first && requests.get(first.key);
    return first && tracked ? { tracked, due: first.due } : undefined;
  }

  /**
   * Among `keys` only (a "Refresh now" while tracking is paused reads just those, once): the
   * tracked request due first, and when. Keys no longer tracked or scheduled are skipped.
   */
  nextAmong(
    keys: ReadonlySet<string>,
    requests: TrackedRequests,
  ): { readonly tracked: Tracked; readonly due: number } | undefined {
    let first: { tracked: Tracked; due: number } | undefined;
    for (const key of keys) {
      const tracked = requests.get(key);
      const due = this.#due.dueOf(key);
      if (tracked && due !== undefined && (!first || due < first.due)) first = { tracked, due };
    }
    return first;
  }

  /** When `key` is due next (monotonic time); undefined when it is read no more. */
  dueOf(key: string): number | undefined {
    return this.#due.dueOf(key);
  }

  #hasAttention(key: string): boolean {
    return (this.#attentionUntil.get(key) ?? 0) > this.#clock.monotonic();
  }

  /** When a request is first due after it appears; requests never read are spread over the first interval, not all at once. */
  #firstDue(tracked: Tracked): number {
    const lastRead = tracked.last ? Date.parse(tracked.last.readAt) : tracked.since;
    const interval = this.#intervalAfter(tracked, tracked.last, lastRead);
    // Its next read by the wall clock (the last read's time is a wall time), as a delay from now:
    // never more than one interval away, even when the clock was set back since that read.
    const untilNextRead = Math.min(lastRead + interval - this.#clock.now(), interval);
    return this.#clock.monotonic() + Math.max(untilNextRead, this.#random() * Math.min(interval, 10_000));
  }

  /**
   * The wait before the next read of `tracked`, whose last read said `status`, first read at
   * `statusSince`: a status this app does not know waits as long as it has stood unchanged
   * (unless someone is watching its ceremony); any other follows the request's age.
   */
  #intervalAfter(tracked: Tracked, status: TrackedStatus | undefined, statusSince: number): number {
    const attention = this.#hasAttention(tracked.key);
    if (!attention && status !== undefined && stageOfStored(status) === 'unrecognized')
      return unrecognizedInterval(this.#schedule, this.#clock.now() - statusSince, this.#random);
    return nextInterval(this.#schedule, this.#clock.now() - tracked.since, attention, this.#random);
  }
}
