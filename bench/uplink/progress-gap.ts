import type { SendEngineEvent } from '../../main/engine/send-events';
import type { SendPhase } from '../../shared/domain/batch';
import type { UploadWatch } from './upload-watch';

/**
 * How far each upload's progress, as the engine tells it to the renderer's bars
 * (`item-progress` events), runs ahead of what the service received of that upload. The gap
 * of a document can only grow when its progress moves (the bytes received only grow between
 * two events), so it is measured at every event, exactly, not by sampling; `sample()` adds the
 * readings between events for how far behind progress lags.
 */

/** Phases after the upload: the document's bytes are all at the service. */
const UPLOADED: ReadonlySet<SendPhase> = new Set([
  'creating',
  'adding_participants',
  'preparing',
  'prepared',
]);

/** The worst moment of one measure: which document, when, and the two figures. */
export interface GapMoment {
  readonly gapBytes: number;
  readonly documentId: string;
  readonly atMs: number;
  readonly shownBytes: number;
  readonly receivedBytes: number;
  /** The document's upload attempt that was on its way (1 for the first). */
  readonly attempt: number;
}

interface Shown {
  phase: SendPhase;
  bytes: number;
}

/** See the file comment. Feed it every engine event with `observe`. */
export class ProgressGap {
  readonly #watch: UploadWatch;
  readonly #sizes: ReadonlyMap<string, number>;
  readonly #elapsed: () => number;
  readonly #shown = new Map<string, Shown>();
  #ahead: GapMoment | undefined;
  #behind: GapMoment | undefined;
  /** When the first upload of the run was answered (from then on the old engine knows a pace). */
  #firstAnsweredAtMs: number | undefined;
  #aheadAfterFirstAnswer: GapMoment | undefined;
  #events = 0;

  constructor(watch: UploadWatch, sizes: ReadonlyMap<string, number>, elapsed: () => number) {
    this.#watch = watch;
    this.#sizes = sizes;
    this.#elapsed = elapsed;
  }

  /** Takes one engine event: an `item-progress` moves a document's bar, and its gap is read at once. */
  observe(event: SendEngineEvent): void {
    if (event.type !== 'item-progress') return;
    const before = this.#shown.get(event.documentId);
    const size = this.#sizes.get(event.documentId) ?? 0;
    // What a bar shows: the bytes the event says; after the upload, the whole file; before it, nothing.
    const bytes =
      event.sentBytes ??
      (UPLOADED.has(event.phase) ? size : event.phase === 'uploading' ? (before?.bytes ?? 0) : 0);
    this.#shown.set(event.documentId, { phase: event.phase, bytes });
    this.#events += 1;
    if (UPLOADED.has(event.phase)) this.#firstAnsweredAtMs ??= this.#elapsed();
    this.#measure(event.documentId, this.#watch.connections());
  }

  /** Reads every document's gap now (between events: how far behind progress lags). */
  sample(): void {
    const reading = this.#watch.connections();
    for (const documentId of this.#shown.keys()) this.#measure(documentId, reading);
  }

  /** Progress events seen. */
  get events(): number {
    return this.#events;
  }

  /** The largest lead of a bar over the bytes the service received of its upload, if any. */
  get ahead(): GapMoment | undefined {
    return this.#ahead;
  }

  /** The same, counted only once the run's first upload was answered. */
  get aheadAfterFirstAnswer(): GapMoment | undefined {
    return this.#aheadAfterFirstAnswer;
  }

  /** The largest lag of a bar behind the bytes received of an attempt on its way (gapBytes counts the lag, positive). */
  get behind(): GapMoment | undefined {
    return this.#behind;
  }

  get firstAnsweredAtMs(): number | undefined {
    return this.#firstAnsweredAtMs;
  }

  #measure(documentId: string, reading: ReturnType<UploadWatch['connections']>): void {
    const shown = this.#shown.get(documentId);
    if (!shown) return;
    const received = this.#watch.receivedOf(documentId, reading);
    const atMs = this.#elapsed();
    const moment = (gapBytes: number): GapMoment => ({
      gapBytes,
      documentId,
      atMs,
      shownBytes: shown.bytes,
      receivedBytes: received,
      attempt: this.#watch.attemptsOf(documentId),
    });
    const lead = shown.bytes - received;
    if (lead > (this.#ahead?.gapBytes ?? 0)) this.#ahead = moment(lead);
    if (this.#firstAnsweredAtMs !== undefined && lead > (this.#aheadAfterFirstAnswer?.gapBytes ?? 0))
      this.#aheadAfterFirstAnswer = moment(lead);
    // A lag counts while an attempt is on its way: between two attempts the bar starts over
    // before the next one leaves, when the service still holds the last one's bytes.
    if (
      shown.phase === 'uploading' &&
      this.#watch.isOnItsWay(documentId) &&
      -lead > (this.#behind?.gapBytes ?? 0)
    )
      this.#behind = moment(-lead);
  }
}
