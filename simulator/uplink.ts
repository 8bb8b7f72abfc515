/**
 * The client's uplink, as one link shared by every connection: upload bodies pass through it
 * at a set rate (bits a second), one chunk after another, whichever connection sent them. A
 * chunk counts as received once the link would have carried its last byte; until then its
 * connection is not read, so the client feels the link through TCP flow control, as on a real
 * line. Unthrottled (the default), bytes pass at once.
 */
/**
 * The slowest link the simulator plays: 1 kbit/s. Slower, a 64 KiB chunk's crossing would pass
 * setTimeout's 24.8-day limit, which Node silently turns into 1 ms (an unlimited link).
 */
export const MIN_UPLINK_MBIT = 0.001;

export class Uplink {
  /** Bytes a millisecond; undefined: no limit. */
  #bytesPerMs: number | undefined;
  /** When the link has carried every byte handed to it so far (performance.now() time). */
  #freeAt = 0;
  #received = 0;

  constructor(mbit?: number) {
    this.setMbit(mbit);
  }

  /** Sets the rate in Mbit/s (10^6 bits a second); undefined or 0 removes the limit. */
  setMbit(mbit: number | undefined): void {
    if (mbit !== undefined && mbit !== 0 && !(Number.isFinite(mbit) && mbit >= MIN_UPLINK_MBIT))
      throw new RangeError(
        `the upload rate must be 0 (no limit) or at least ${MIN_UPLINK_MBIT} Mbit/s, got ${mbit}`,
      );
    this.#bytesPerMs = mbit ? (mbit * 1_000_000) / 8 / 1000 : undefined;
  }

  /** The rate in Mbit/s, undefined when unthrottled. */
  get mbit(): number | undefined {
    return this.#bytesPerMs === undefined ? undefined : (this.#bytesPerMs * 8 * 1000) / 1_000_000;
  }

  /** Upload body bytes that passed the link so far, every connection together. */
  get receivedBytes(): number {
    return this.#received;
  }

  /**
   * Ms until a chunk of `bytes` handed over now has crossed the link, the link's time being
   * reserved for it (0 when unthrottled or the link is idle and the chunk is tiny).
   */
  reserve(bytes: number): number {
    if (this.#bytesPerMs === undefined) return 0;
    const now = performance.now();
    // An idle link keeps no credit: a line does not carry more later for having been idle.
    this.#freeAt = Math.max(this.#freeAt, now) + bytes / this.#bytesPerMs;
    return this.#freeAt - now;
  }

  /** Counts bytes that crossed the link (after their `reserve` delay). */
  arrived(bytes: number): void {
    this.#received += bytes;
  }
}
