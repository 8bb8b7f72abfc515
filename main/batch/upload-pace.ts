/**
 * How fast this run's uploads reach the service, learnt from the uploads it finished: bytes a
 * millisecond of one upload, as it shared the line with the others in flight. Bytes handed to
 * the connection can wait megabytes deep in the system's socket buffers, which the app cannot
 * see; the service has only what the line carried. An upload's progress shows the lesser of
 * the bytes handed and the bytes this pace could have carried since the attempt began, so a
 * bar does not reach its end seconds before the service has the file. Until an upload of the
 * run has finished, nothing is known of the line: progress is the bytes handed.
 */
export class UploadPace {
  #bytesPerMs: number | undefined;

  /** An upload of `bytes` was answered `elapsedMs` after its attempt began. */
  finished(bytes: number, elapsedMs: number): void {
    if (!(bytes > 0) || !(elapsedMs > 0)) return;
    const rate = bytes / elapsedMs;
    // The latest uploads weigh most: the line, and how many uploads share it, change.
    this.#bytesPerMs = this.#bytesPerMs === undefined ? rate : (this.#bytesPerMs + rate) / 2;
  }

  /** The bytes to show for an attempt that handed `handed` bytes and began `elapsedMs` ago. */
  shown(handed: number, elapsedMs: number): number {
    if (this.#bytesPerMs === undefined) return handed;
    return Math.max(0, Math.min(handed, Math.floor(this.#bytesPerMs * elapsedMs)));
  }
}
