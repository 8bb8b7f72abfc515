/**
 * What the send engine tells its listeners (progress bars, the desk's banners, the command
 * line's --json) and how a run ends, and the telling itself: each document's progress and the
 * batch's, read from the batch as the data folder holds it.
 */
import { SEND_PHASES, type ItemError, type SendPhase } from '../../shared/domain/batch';
import { Listeners } from '../base/listeners';
import type { BatchEvent } from '../domain/batch-events';
import { phaseOf, type BatchState, type NeedsCheck } from '../domain/batch-state';
import type { EngineReason } from '../domain/send-messages';
import type { BatchStore } from '../store/batch-store';
import { batchOf, documentOf } from './batch-reads';

export type EngineState = 'running' | 'waiting' | 'paused' | 'finished' | 'stopped';

/** What the engine tells its listeners (progress bars, the command line's --json). */
export type SendEngineEvent =
  | {
      readonly type: 'item-progress';
      readonly batchId: string;
      readonly documentId: string;
      readonly externalReference: string;
      readonly phase: SendPhase;
      readonly sentBytes?: number;
      readonly totalBytes?: number;
      /** While uploading (with `sentBytes`): where the attempt is (UploadStage). */
      readonly upload?: UploadStage;
    }
  | {
      readonly type: 'batch-progress';
      readonly batchId: string;
      readonly counts: Readonly<Record<SendPhase, number>>;
      readonly total: number;
    }
  | {
      readonly type: 'engine-state';
      readonly batchId: string;
      readonly state: EngineState;
      /** Why the queue waits or stopped, in plain English words (the command line, logs). */
      readonly reason?: string;
      /** The same reason as a code, for a view to word it in the person's language. */
      readonly cause?: EngineReason;
      /** While waiting: the service cannot be reached (no answer at all), rather than asked to wait. */
      readonly unreachable?: boolean;
      readonly resumesAt?: number;
    }
  | {
      /**
       * A call of the batch has had no answer for longer than a normal one takes (the service
       * is slow, or silent), or none is that late any more.
       */
      readonly type: 'service-slow';
      readonly batchId: string;
      readonly slow: boolean;
    }
  | {
      /**
       * A wait for the service is over: sending tries it again (its "next try at" is gone by).
       * Nothing is known of the service yet: its answers, or its silence, are told as they come.
       */
      readonly type: 'trying-again';
      readonly batchId: string;
    }
  | {
      /**
       * A pause or a quit: nothing more is sent, and `calls` calls already on their way are given
       * a moment to be answered (DRAIN_MS), so their outcome is known rather than "may have been
       * applied".
       */
      readonly type: 'draining';
      readonly batchId: string;
      readonly calls: number;
    }
  | {
      readonly type: 'item-failed';
      readonly batchId: string;
      readonly documentId: string;
      readonly externalReference: string;
      readonly error: ItemError;
    }
  | {
      readonly type: 'item-needs-check';
      readonly batchId: string;
      readonly documentId: string;
      readonly externalReference: string;
      readonly check: NeedsCheck;
    };

export interface SendSummary {
  readonly batchId: string;
  readonly state: 'finished' | 'paused' | 'stopped';
  readonly prepared: number;
  readonly failed: number;
  readonly needsCheck: number;
  readonly reason?: string;
}

/**
 * Where an upload attempt is: its bytes `sending`; all of them handed over and the service's
 * answer awaited (`confirming`); or `sending_again` from the first byte after an attempt that
 * did not succeed (the line dropped or stopped, the service was busy).
 */
export type UploadStage = 'sending' | 'confirming' | 'sending_again';

/** How many documents of the batch are prepared, failed and waiting for the user's check. */
export function tally(
  batch: BatchState | undefined,
): Pick<SendSummary, 'prepared' | 'failed' | 'needsCheck'> {
  if (!batch) return { prepared: 0, failed: 0, needsCheck: 0 }; // deleted meanwhile
  const count = (phase: SendPhase) => batch.documents.filter((d) => phaseOf(d) === phase).length;
  return { prepared: count('prepared'), failed: count('failed'), needsCheck: count('needs_check') };
}

/** The engine's listeners, and what it tells them of a batch as the data folder holds it now. */
export class SendEvents extends Listeners<SendEngineEvent> {
  readonly #store: BatchStore;

  constructor(store: BatchStore) {
    super();
    this.#store = store;
  }

  /** A document's phase, and while it uploads how far its bytes are and where the attempt is. */
  item(
    batchId: string,
    documentId: string,
    sentBytes?: number,
    totalBytes?: number,
    upload?: UploadStage,
  ): void {
    const document = documentOf(this.#store, batchId, documentId);
    if (!document) return;
    this.emit({
      type: 'item-progress',
      batchId,
      documentId,
      externalReference: document.draft.externalReference,
      phase: phaseOf(document),
      ...(sentBytes === undefined ? {} : { sentBytes, totalBytes }),
      ...(upload === undefined ? {} : { upload }),
    });
  }

  /** How many documents of the batch are in each phase. */
  batchProgress(batchId: string): void {
    const batch = batchOf(this.#store, batchId);
    const counts = Object.fromEntries(SEND_PHASES.map((phase) => [phase, 0])) as Record<SendPhase, number>;
    for (const document of batch.documents) counts[phaseOf(document)] += 1;
    this.emit({ type: 'batch-progress', batchId, counts, total: batch.documents.length });
  }

  /** The failures and checks the step machine just recorded for a document. */
  outcomes(batchId: string, documentId: string, events: readonly BatchEvent[]): void {
    const document = documentOf(this.#store, batchId, documentId);
    if (!document) return;
    const externalReference = document.draft.externalReference;
    for (const event of events) {
      if (event.type === 'item_failed')
        this.emit({ type: 'item-failed', batchId, documentId, externalReference, error: event.error });
      if (event.type === 'check_needed' && document.send.check)
        this.emit({
          type: 'item-needs-check',
          batchId,
          documentId,
          externalReference,
          check: document.send.check,
        });
    }
  }
}
