import type { TrackedStatus } from '../../shared/domain/batch';
import { stageOfStored } from '../../shared/service/status';
import { Listeners } from '../base/listeners';

/** What the status poller tells its listeners (the app, the tray, `watch`). */
export type PollerEvent =
  | {
      readonly type: 'status-changed';
      readonly batchId: string;
      readonly documentId: string;
      readonly externalReference: string;
      readonly status: TrackedStatus;
    }
  | {
      readonly type: 'completed';
      readonly batchId: string;
      readonly documentId: string;
      readonly externalReference: string;
    }
  | {
      /** Its request ended at the service without completion; `status` is the service's word. */
      readonly type: 'ended';
      readonly batchId: string;
      readonly documentId: string;
      readonly externalReference: string;
      readonly status: string;
    }
  | {
      readonly type: 'gone';
      readonly batchId: string;
      readonly documentId: string;
      readonly externalReference: string;
    }
  | {
      /** A request was read (whatever it answered), said once its answer is stored: when it was last checked. */
      readonly type: 'checked';
      readonly batchId: string;
      readonly documentId: string;
      readonly at: string;
    }
  | {
      readonly type: 'poller-state';
      /** `refused`: the service refused this connection's credentials or scope; reads go on at their pace. */
      readonly state: 'tracking' | 'paused' | 'waiting' | 'idle' | 'refused';
      readonly reason?: string;
    };

/** What "Check again" found. */
export type CheckAgainOutcome =
  { readonly found: true } | { readonly found: false; readonly message: string };

/** The poller's listeners: each hears every event; a final status is said as completed or ended. */
export class PollerListeners extends Listeners<PollerEvent> {
  /** Says a final status: completed, or ended with the service's word. */
  emitFinal(
    about: { readonly batchId: string; readonly documentId: string; readonly externalReference: string },
    status: TrackedStatus,
  ): void {
    const { batchId, documentId, externalReference } = about;
    const stage = stageOfStored(status);
    if (stage === 'completed') this.emit({ type: 'completed', batchId, documentId, externalReference });
    if (stage === 'ended')
      this.emit({ type: 'ended', batchId, documentId, externalReference, status: status.status });
  }
}
