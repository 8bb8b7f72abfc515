/**
 * One line of the client's uplink: it carries bytes at a set rate, one reservation after
 * another, and may stall (carry nothing for a while, then go on at its rate). The uplink is
 * made of such lines: one shared by every connection, and one per connection (uplink.ts).
 *
 * A reservation is the line's time given to some bytes: they have crossed once it is due. A
 * stall pushes back every reservation not yet due by the stall's length, so bytes on their
 * way when the line stalls arrive only after it comes back, as on a real line.
 */

/**
 * The slowest line the simulator plays: 1 kbit/s. Slower, a piece's crossing would pass
 * setTimeout's 24.8-day limit, which Node silently turns into 1 ms (an unlimited line).
 */
export const MIN_UPLINK_MBIT = 0.001;

/**
 * How much of the line's time a reservation may take back from the recent past when the line
 * was idle. Timers fire late (a ms or more), and a connection is read again only once its
 * previous piece has crossed; without this, each piece's lateness would be lost for good and
 * a fast line with one connection would carry well under its rate. The line then carries at
 * most rate × (elapsed + 10 ms), a shaper's burst of 10 ms.
 */
export const TIMER_SLACK_MS = 10;

/** The longest stall played: a day (a timer longer than 24.8 days would fire at once). */
export const MAX_STALL_MS = 86_400_000;

/** Throws RangeError unless `ms` is a stall the simulator can play (0 to MAX_STALL_MS). */
export function checkStallMs(ms: number, what: string): void {
  if (!(Number.isFinite(ms) && ms >= 0 && ms <= MAX_STALL_MS))
    throw new RangeError(`${what} must be 0 to ${MAX_STALL_MS} ms (a day), got ${ms}`);
}

/** Some line time given to bytes: they have crossed at `line.dueAt(reservation)`. */
export interface Reservation {
  /** When the bytes cross, as reserved (the line's time, line-time.ts), before any later stall. */
  readonly crossedAt: number;
  /** The line's stall shift when reserved: stalls after it push the reservation back. */
  readonly shiftWhenReserved: number;
}

/** Throws RangeError unless `mbit` is undefined, 0 (no limit), or a rate the simulator can play. */
export function checkMbit(mbit: number | undefined, what: string): void {
  if (mbit !== undefined && mbit !== 0 && !(Number.isFinite(mbit) && mbit >= MIN_UPLINK_MBIT))
    throw new RangeError(`${what} must be 0 (no limit) or at least ${MIN_UPLINK_MBIT} Mbit/s, got ${mbit}`);
}

/** A line with a rate (or none) that can stall; times are the line's monotonic milliseconds (line-time.ts). */
export class Line {
  /** Bytes a millisecond; undefined: no limit. */
  #bytesPerMs: number | undefined;
  /** When the line has carried every byte reserved on it so far. */
  #freeAt = 0;
  /** Until when the line carries nothing. */
  #stalledUntil = 0;
  /** Total time stalls pushed back the reservations made before them (negative when one was cut short). */
  #shift = 0;
  readonly #onChange = new Set<() => void>();

  constructor(mbit?: number) {
    this.setMbit(mbit);
  }

  /** Sets the rate in Mbit/s (10^6 bits a second); undefined or 0 removes the limit. */
  setMbit(mbit: number | undefined): void {
    checkMbit(mbit, 'the upload rate');
    this.#bytesPerMs = mbit ? (mbit * 1_000_000) / 8 / 1000 : undefined;
  }

  /** The rate in Mbit/s, undefined when unlimited. */
  get mbit(): number | undefined {
    return this.#bytesPerMs === undefined ? undefined : (this.#bytesPerMs * 8 * 1000) / 1_000_000;
  }

  /** Bytes a millisecond, undefined when unlimited. */
  get bytesPerMs(): number | undefined {
    return this.#bytesPerMs;
  }

  /** True when bytes handed to the line now cross at once: no limit and no stall. */
  carriesAtOnce(now: number): boolean {
    return this.#bytesPerMs === undefined && now >= this.#stalledUntil;
  }

  /**
   * The line carries nothing from `now` for `ms`, then goes on at its rate: it replaces any
   * stall under way (so 0 ends one now). What was reserved and not yet due moves back by the
   * difference.
   */
  stall(ms: number, now: number): void {
    checkStallMs(ms, 'a stall');
    const previousEnd = Math.max(this.#stalledUntil, now);
    const end = now + ms;
    const moved = end - previousEnd;
    this.#stalledUntil = end;
    this.#shift += moved;
    if (this.#freeAt > now) this.#freeAt += moved;
    for (const listener of [...this.#onChange]) listener();
  }

  /** How much longer the line carries nothing (0 when it carries). */
  stalledForMs(now: number): number {
    return Math.max(0, this.#stalledUntil - now);
  }

  /** Reserves the line's time for `bytes` handed over `now`. */
  reserve(bytes: number, now: number): Reservation {
    if (this.#bytesPerMs === undefined)
      return { crossedAt: Math.max(now, this.#stalledUntil), shiftWhenReserved: this.#shift };
    // An idle line keeps almost no credit: a line does not carry more later for having been idle.
    const start = Math.max(this.#freeAt, now - TIMER_SLACK_MS, this.#stalledUntil);
    this.#freeAt = start + bytes / this.#bytesPerMs;
    return { crossedAt: this.#freeAt, shiftWhenReserved: this.#shift };
  }

  /** When the reserved bytes have crossed, stalls since the reservation included. */
  dueAt(reservation: Reservation): number {
    return reservation.crossedAt + (this.#shift - reservation.shiftWhenReserved);
  }

  /** Calls `listener` whenever a stall starts or ends early (due times moved); returns its removal. */
  onChange(listener: () => void): () => void {
    this.#onChange.add(listener);
    return () => this.#onChange.delete(listener);
  }
}
