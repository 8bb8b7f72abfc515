/**
 * One batch's run: its two stops (`controller`: now, calls on their way are abandoned;
 * `departures`: nothing more leaves, calls on their way may finish), its call slots and upload
 * line, this run's own facts per document, the references its decisions claim, its schedule,
 * and why it stopped when it stopped before its end.
 */
import type { Clock } from '../time/clock';
import type { RunFacts } from '../domain/step-machine';
import { engineReasonText, type EngineReason } from '../domain/send-messages';
import { CallSlots } from './call-slots';
import { RunSchedule } from './run-schedule';
import type { SendSummary } from './send-events';
import type { WaitBounds } from './service-waits';
import { SlowCalls } from './slow-calls';
import { UploadLine } from './upload-line';

/** Why a run stopped before its end: nothing more can be sent until the user acts. */
export interface RunStop {
  readonly code: EngineReason['code'];
  readonly message: string;
  readonly serviceMessage?: string;
}

/** A write to the data folder failed: nothing more may be sent until it works again. */
export function storageFailure(error: unknown): RunStop {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const full = code === 'ENOSPC' || code === 'EDQUOT';
  return {
    code: full ? 'storage_full' : 'storage_failed',
    message: engineReasonText({ code: full ? 'storage_full' : 'storage_failed' }),
  };
}

export interface SendRunSettings {
  /** Service calls in flight at once. */
  readonly concurrency: number;
  readonly clock: Clock;
  /** Told when the run's calls become slow to answer, or no longer are. */
  readonly onSlow: (slow: boolean) => void;
  /** A call with no answer for this long (ms) is slow (default SLOW_CALL_MS). */
  readonly slowAfterMs: number | undefined;
  readonly waitBounds: WaitBounds;
  readonly random: () => number;
}

export class SendRun {
  readonly batchId: string;
  /** Aborted when the run must end now: calls on their way are abandoned. */
  readonly controller = new AbortController();
  /** Aborted by a pause or a quit: no new call leaves, calls on their way may finish (DRAIN_MS). */
  readonly departures = new AbortController();
  /** Aborted by either: no new step starts. */
  readonly stopping: AbortSignal;
  readonly slots: CallSlots;
  /** The documents a worker is taking steps of now. */
  readonly inFlight = new Set<string>();
  /** This run's own facts per document (fresh uploads, backoffs). */
  readonly facts = new Map<string, RunFacts>();
  /** This run's calls that the service keeps waiting. */
  readonly slow: SlowCalls;
  /** The uploads on the line at once, and the pace they reach the service at. */
  readonly line: UploadLine;
  /** References claimed by a document's decision until its events are stored. */
  readonly claims = new Map<string, () => void>();
  readonly schedule: RunSchedule;
  fatal: RunStop | undefined;
  done: Promise<SendSummary> = Promise.resolve(undefined as unknown as SendSummary);
  readonly #clock: Clock;

  constructor(batchId: string, settings: SendRunSettings) {
    this.batchId = batchId;
    this.#clock = settings.clock;
    this.stopping = AbortSignal.any([this.controller.signal, this.departures.signal]);
    this.slots = new CallSlots(settings.concurrency);
    this.slow = new SlowCalls(settings.onSlow, {
      ...(settings.slowAfterMs === undefined ? {} : { afterMs: settings.slowAfterMs }),
      clock: settings.clock,
    });
    this.line = new UploadLine(this.slots.size);
    this.schedule = new RunSchedule(settings.clock, this.stopping, settings.waitBounds, settings.random);
  }

  /**
   * A pause or a quit: nothing more leaves; calls on their way get `drainMs` to be answered,
   * then are abandoned. `onDraining` is told how many are on their way, when any is.
   */
  drain(drainMs: number, onDraining: (calls: number) => void): void {
    if (this.departures.signal.aborted) return;
    this.departures.abort(new Error('paused'));
    const onTheWire = this.slow.pending;
    if (onTheWire > 0) onDraining(onTheWire);
    const cancel = this.#clock.timer(drainMs, () => this.controller.abort(new Error('paused')));
    this.controller.signal.addEventListener('abort', cancel, { once: true });
    void this.done.finally(cancel);
  }

  /** Releases the reference a document's decision claimed (its events are stored, or not). */
  releaseClaims(documentId: string): void {
    this.claims.get(documentId)?.();
    this.claims.delete(documentId);
  }
}
