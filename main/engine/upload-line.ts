/**
 * A run's upload line: the uploads let on it at once (its lanes: as many as the line takes with
 * profit, `UploadPace.lanesFor`) and the pace measured on it (upload-pace.ts), and what that
 * pace lets an upload on its way assume: how fast its bytes may cross (its answer deadline and
 * the slow banner allow for it) and its share of the line (its progress bar).
 */
import { SLOWEST_LINE_BYTES_PER_S } from '../client/upload-timing';
import { CallSlots } from './call-slots';
import { UploadPace } from './upload-pace';
import { UploadProgress } from './upload-progress';

export class UploadLine {
  /** How fast this run's uploads reach the service (what upload progress may show). */
  readonly pace = new UploadPace();
  /** The uploads on the line at once. */
  readonly lanes: CallSlots;
  /** The most uploads at once: as many as the run's calls in flight. */
  readonly #most: number;

  constructor(most: number) {
    this.#most = most;
    this.lanes = new CallSlots(new UploadPace().lanesFor(most, 0));
  }

  /** The progress of an upload of `total` bytes beginning at `now`, at the pace measured so far. */
  progress(total: number, now: number): UploadProgress {
    return new UploadProgress(total, now, this.pace.bytesPerMs, this.lanes.size);
  }

  /**
   * A new attempt of an upload began at `at`: its share of the line as measured, among as many
   * as are on it or the lanes let on it now (fewer lanes leave the uploads under way going), 10 %
   * held back for what a measure cannot promise.
   */
  restart(progress: UploadProgress, at: number): void {
    const line = this.pace.lineBytesPerMs;
    const sharing = Math.max(this.lanes.size, this.lanes.busy);
    progress.restart(at, line === undefined ? undefined : (0.9 * line) / sharing, sharing);
  }

  /**
   * The pace an upload's bytes may cross the line at (bytes a second), as its answer deadline
   * and the slow banner allow for: half the pace one upload got lately; before one was measured,
   * the slowest line shared by as many uploads as the lanes let on it (each crosses at its share
   * only).
   */
  crossingBytesPerS(): number {
    const measured = this.pace.bytesPerMs;
    return measured === undefined ? this.slowestShareBytesPerS() : measured * 1000 * 0.5;
  }

  /** The slowest line shared by as many uploads as the lanes let on it (bytes a second). */
  slowestShareBytesPerS(): number {
    return SLOWEST_LINE_BYTES_PER_S / this.lanes.size;
  }

  /**
   * An upload of `bytes` was answered `elapsedMs` after its attempt began, while `sharing`
   * uploads were on the line on average: the pace is measured, and the lanes follow it.
   */
  answered(bytes: number, elapsedMs: number, sharing: number): void {
    this.pace.finished(bytes, elapsedMs, sharing);
    this.lanes.resize(this.pace.lanesFor(this.#most, bytes));
  }

  /** An upload of `bytes` was given up: the line may have got slower than measured; it is measured again. */
  gaveUp(bytes: number): void {
    this.pace.forget();
    this.lanes.resize(this.pace.lanesFor(this.#most, bytes));
  }
}
