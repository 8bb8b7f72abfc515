/**
 * What the run has measured of its line, from the uploads the service answered: the pace one
 * upload gets (its share of the line) and the pace of the line itself (the shares of every
 * upload that was on it together). It says how far an upload on its way can be (progress), how
 * long its last bytes may still take (the answer deadline), and how many uploads the line takes
 * at once with profit (`lanesFor`).
 */
export class UploadPace {
  #bytesPerMs: number | undefined;
  #lineBytesPerMs: number | undefined;

  /**
   * An upload of `bytes` was answered `elapsedMs` after its attempt began, while `sharing`
   * uploads (itself included) were on the line on average.
   */
  finished(bytes: number, elapsedMs: number, sharing = 1): void {
    if (!(bytes > 0) || !(elapsedMs > 0)) return;
    const rate = bytes / elapsedMs;
    const line = rate * Math.max(1, sharing);
    // The latest uploads weigh most: the line, and how many uploads share it, change.
    this.#bytesPerMs = this.#bytesPerMs === undefined ? rate : (this.#bytesPerMs + rate) / 2;
    this.#lineBytesPerMs = this.#lineBytesPerMs === undefined ? line : (this.#lineBytesPerMs + line) / 2;
  }

  /** Forgets what was measured (an upload was given up: the line may have changed). */
  forget(): void {
    this.#bytesPerMs = undefined;
    this.#lineBytesPerMs = undefined;
  }

  /** The pace of the whole line lately (bytes a millisecond); undefined until an upload was answered. */
  get lineBytesPerMs(): number | undefined {
    return this.#lineBytesPerMs;
  }

  /** The pace one upload got lately (bytes a millisecond); undefined until one was answered. */
  get bytesPerMs(): number | undefined {
    return this.#bytesPerMs;
  }

  /** The bytes to show for an attempt that handed `handed` bytes and began `elapsedMs` ago. */
  shown(handed: number, elapsedMs: number): number {
    if (this.#bytesPerMs === undefined) return handed;
    return Math.max(0, Math.min(handed, Math.floor(this.#bytesPerMs * elapsedMs)));
  }

  /**
   * How many uploads to have on the line at once, at most `most`, for documents of about
   * `typicalBytes`. Before anything was measured: two. On a line where one such document alone
   * takes `SLOW_LINE_UPLOAD_MS` or more, the line is the limit: two at a time keep it busy
   * while one waits for its answer, and each finishes in its own share of time, so the first
   * documents are created early; one alone when it takes far longer than any answer. On a fast
   * line, up to `most`, which hides the latency of each answer.
   */
  lanesFor(most: number, typicalBytes: number): number {
    const cap = Math.max(1, most);
    if (this.#lineBytesPerMs === undefined) return Math.min(cap, 2);
    const aloneMs = typicalBytes / this.#lineBytesPerMs;
    if (aloneMs >= ONE_LANE_UPLOAD_MS) return 1;
    if (aloneMs >= SLOW_LINE_UPLOAD_MS) return Math.min(cap, 2);
    return cap;
  }
}

/** A document that takes this long alone on the line (ms) makes the line the limit. */
export const SLOW_LINE_UPLOAD_MS = 1_000;

/**
 * A document that takes this long alone on the line (ms) goes alone: the moment between its
 * last byte and its answer, when the line carries nothing, is then under 1 % of its time.
 */
export const ONE_LANE_UPLOAD_MS = 10_000;
