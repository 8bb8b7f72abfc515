import { SLOWEST_LINE_BYTES_PER_S } from '../client/upload-timing';

/**
 * How far one upload attempt is, as its progress bar shows it: never further than the line
 * could have carried its bytes to the service.
 *
 * The app sees the bytes the connection takes, and the system takes megabytes at once into its
 * buffers, on a slow line the whole of a small file. So the bar shows the bytes the line could
 * have carried since the attempt began, at the pace it is seen to take them once the buffers
 * are full (the slope of the bytes taken over the later half of the attempt), at the pace the
 * run measured on answered uploads, or at its share of the slowest line when neither is known
 * yet, whichever is slowest; and never more than the bytes taken.
 */
export class UploadProgress {
  readonly #total: number;
  #measuredBytesPerMs: number | undefined;
  /** Its share of the slowest line (bytes a millisecond): the pace while nothing else is known. */
  #slowestBytesPerMs: number;
  #beganAt: number;
  #handed = 0;
  /** Bytes the line could have carried so far, and when that was last moved on. */
  #carried = 0;
  #carriedAt: number;
  /** (time, bytes taken), oldest first, at most one every `SAMPLE_MS`. */
  #samples: { readonly at: number; readonly handed: number }[] = [];
  /** The connection's pace last read while it was still taking bytes: the line's pace after. */
  #lastSlope: number | undefined;

  /**
   * `measuredBytesPerMs`: the pace one upload got lately in this run (UploadPace), if known.
   * `sharing`: how many uploads may be on the line with this one, itself included (a file the
   * buffers take whole, before anything was measured, crosses at that share of the slowest line).
   */
  constructor(total: number, now: number, measuredBytesPerMs: number | undefined, sharing = 1) {
    this.#total = total;
    this.#measuredBytesPerMs = measuredBytesPerMs;
    this.#slowestBytesPerMs = slowestShareBytesPerMs(sharing);
    this.#beganAt = now;
    this.#carriedAt = now;
  }

  /**
   * A new attempt began: its bytes start again from the first. What the run measured and how
   * many share the line are read again (an upload may wait long for its lane).
   */
  restart(now: number, measuredBytesPerMs = this.#measuredBytesPerMs, sharing?: number): void {
    this.#measuredBytesPerMs = measuredBytesPerMs;
    if (sharing !== undefined) this.#slowestBytesPerMs = slowestShareBytesPerMs(sharing);
    this.#beganAt = now;
    this.#carriedAt = now;
    this.#handed = 0;
    this.#carried = 0;
    this.#samples = [];
    this.#lastSlope = undefined;
  }

  /** The connection has taken `handed` bytes of this attempt. */
  took(handed: number, now: number): void {
    this.#advance(now);
    this.#handed = Math.max(this.#handed, Math.min(handed, this.#total));
    const last = this.#samples.at(-1);
    if (!last || now - last.at >= SAMPLE_MS) this.#samples.push({ at: now, handed: this.#handed });
  }

  /** Every byte was handed over: what is left is the line's and the service's. */
  get allHanded(): boolean {
    return this.#handed >= this.#total;
  }

  /** When this attempt began. */
  get beganAt(): number {
    return this.#beganAt;
  }

  /** The bytes the bar shows now. */
  shown(now: number): number {
    this.#advance(now);
    return Math.floor(Math.min(this.#carried, this.#handed));
  }

  /** Moves what the line could have carried on to `now`, at the pace seen now. */
  #advance(now: number): void {
    const elapsed = now - this.#carriedAt;
    if (elapsed <= 0) return;
    this.#carried = Math.min(this.#handed, this.#carried + this.#bytesPerMs(now) * elapsed);
    this.#carriedAt = now;
  }

  /** The slowest of the paces known now (bytes a millisecond). */
  #bytesPerMs(now: number): number {
    // The connection's own pace only ever slows the bar: on the way in, the system's buffers take
    // bytes far faster than the line carries them, for seconds (megabytes at the receiving end too).
    const pace = this.#measuredBytesPerMs ?? this.#slowestBytesPerMs;
    const slope = this.#slope(now);
    return slope === undefined ? pace : Math.min(pace, slope);
  }

  /**
   * The pace the connection takes bytes at over the later half of the attempt, once it has gone
   * on for `SLOPE_AFTER_MS` and while bytes are still being handed over (its buffers are full by
   * then, so it takes them as the line carries them on); after the last byte, the last one read.
   */
  #slope(now: number): number | undefined {
    const elapsed = now - this.#beganAt;
    if (elapsed < SLOPE_AFTER_MS || this.allHanded) return this.#lastSlope;
    const from = now - elapsed / 2;
    // What had been taken by then: the last sample at or before it. Up to now: a connection that
    // has taken nothing since is taking nothing (a stalled line).
    let takenThen = 0;
    for (const sample of this.#samples) {
      if (sample.at > from) break;
      takenThen = sample.handed;
    }
    this.#lastSlope = (this.#handed - takenThen) / (now - from);
    return this.#lastSlope;
  }
}

/** The slowest line's share for one of `sharing` uploads on it (bytes a millisecond). */
function slowestShareBytesPerMs(sharing: number): number {
  return SLOWEST_LINE_BYTES_PER_S / 1000 / Math.max(1, sharing);
}

/** Bytes taken are sampled at most this often (ms). */
const SAMPLE_MS = 100;

/**
 * The connection's own pace is read only after this long into an attempt (ms): the system
 * grows its buffers for a second or two, and until they are full the connection takes bytes far
 * faster than the line carries them (5.3 MiB taken in the first second of a 2 Mbit/s upload).
 */
const SLOPE_AFTER_MS = 5_000;
