import type {
  BatchDefaults,
  CheckReason,
  DocumentDraft,
  ItemError,
  TrackedStatus,
} from '../../shared/domain/batch';
import type { ServiceErrorCode } from '../../shared/service/error-codes';
import type { CreateSigningRequestBody } from '../../shared/service/wire';

/** Another document of the data folder, named in a check: its batch and file as they were then. */
export interface HolderRef {
  readonly batchId: string;
  readonly batchName: string;
  readonly documentId: string;
  readonly fileName: string;
  readonly requestId?: string;
  /** Its batch was deleted since (its request stays at the service). */
  readonly deleted?: boolean;
}

export type { CheckReason } from '../../shared/domain/batch';

/**
 * What made an attempt's outcome unknown: no answer came, the process stopped, the service
 * failed mid-way, or it said the key is still being processed (409).
 */
export type UnknownCause = 'no_answer' | 'interrupted' | 'server_error' | 'key_in_use';

/**
 * Everything that happens to a batch, as stored in its journal. State is the fold of these
 * events (apply-batch-event.ts); an event is durable before anything that depends on it is sent.
 */
export type BatchEvent =
  | {
      readonly type: 'batch_created';
      readonly batchId: string;
      readonly name: string;
      readonly defaults: BatchDefaults;
      /** The manifest a command-line batch was made from, so running it again resumes that batch. */
      readonly source?: string;
    }
  | { readonly type: 'batch_renamed'; readonly name: string }
  /** The service a batch is sent to, fixed at its first send so a resume never goes elsewhere. */
  | { readonly type: 'connection_bound'; readonly baseUrl: string; readonly clientId: string }
  /**
   * The manifest a command-line batch follows moved (its folder renamed or moved, or the user
   * chose to continue the batch from a copy): `send` finds it at its new path from now on.
   */
  | { readonly type: 'batch_source_changed'; readonly source: string }
  | { readonly type: 'defaults_changed'; readonly defaults: BatchDefaults }
  | { readonly type: 'document_added'; readonly document: DocumentDraft }
  | { readonly type: 'document_edited'; readonly document: DocumentDraft }
  | { readonly type: 'document_removed'; readonly documentId: string }
  | { readonly type: 'send_requested'; readonly documentIds: readonly string[] }
  | {
      readonly type: 'upload_completed';
      readonly documentId: string;
      readonly uploadId: string;
      readonly filename: string;
      readonly sha256: string;
      readonly sizeBytes: number;
      /** Local clock, ms: upload time + `expires_in_hours`; absent when the service did not say a readable lifetime. */
      readonly expiresAt?: number;
      /** When the service answered, by its own clock (`Date`, epoch ms); absent without one. */
      readonly serviceAt?: number;
    }
  | { readonly type: 'upload_discarded'; readonly documentId: string; readonly reason: string }
  /**
   * A new creation key with its frozen body, stored before any attempt under it. Every attempt
   * sends this key with this very body, so a later edit of the batch can never reuse the key
   * with another body.
   */
  | {
      readonly type: 'create_attempted';
      readonly documentId: string;
      readonly idempotencyKey: string;
      readonly uploadId: string;
      readonly body: CreateSigningRequestBody;
      /**
       * True for keys stored by this version, whose attempts each store their own marker. A key
       * from an earlier version (absent) counts as an attempt that may have left.
       */
      readonly attemptsMarked?: true;
      /**
       * The service's clock (`Date`) at the answer to the upload this key goes with, which came
       * before any attempt under it: how long the service has kept the key is judged on its own
       * clock too, not only on this computer's (absent when the service sent no date).
       */
      readonly serviceFirstAt?: number;
    }
  /** Stored right before a creation attempt under the key leaves (in its call slot): it may reach the service. */
  | { readonly type: 'create_attempt_started'; readonly documentId: string }
  /** The attempt in flight certainly did not apply (an answer came, or nothing left this computer). */
  | { readonly type: 'create_attempt_settled'; readonly documentId: string }
  /** An attempt under the key may have been applied: the key is never released by itself again. */
  | { readonly type: 'create_outcome_unknown'; readonly documentId: string; readonly cause: UnknownCause }
  /**
   * The service refused the creation and every attempt under the key provably did not apply,
   * so no request exists under it: the key is released. The upload is kept when it can still
   * be used, else it is uploaded again.
   */
  | {
      readonly type: 'create_abandoned';
      readonly documentId: string;
      readonly reason: string;
      readonly keepUpload?: boolean;
      /**
       * The generation of the document's next key: past every key this data folder made for the
       * same contract (absent in journals of earlier versions: one more than its own).
       */
      readonly generation?: number;
    }
  /**
   * The service answered a creation attempt with success but no id, in its body or its
   * `Location`: a request exists under the key. The key is replayed (once) to learn its id.
   */
  | {
      readonly type: 'create_answered_without_id';
      readonly documentId: string;
      /**
       * The answer may be a second request: it came after an attempt of unknown outcome, beyond
       * the time the service is known to keep keys, and said nothing of a replay.
       */
      readonly twoMayExist?: true;
      /**
       * The request a same-origin `Location` of the answer named, not confirmed by a read (it
       * failed, or the service had not stored it yet): a replay naming the same one is that
       * request, not a second one.
       */
      readonly locationId?: string;
    }
  | {
      readonly type: 'request_created';
      readonly documentId: string;
      readonly requestId: string;
      readonly replayed: boolean;
    }
  /** The app cannot know whether a request already exists for the document: it asks the user. */
  | {
      readonly type: 'check_needed';
      readonly documentId: string;
      readonly reason: CheckReason;
      /** The service's code and message when it refused. */
      readonly code?: ServiceErrorCode;
      readonly serviceMessage?: string;
      /**
       * The request the service answered with: just created (`new_request_after_unknown`), or
       * the one it holds for this contract (`held_at_service`, from a replay).
       */
      readonly newRequestId?: string;
      /** For `held_elsewhere`: the document of this data folder that holds the reference. */
      readonly holder?: HolderRef;
    }
  /**
   * The user linked the request the service holds (its reference checked, or confirmed by the
   * user when the service does not show it). `participantsMayExist` is false when the request
   * is already prepared: extra participants cannot be there by an attempt of ours since.
   */
  | {
      readonly type: 'check_resolved_linked';
      readonly documentId: string;
      readonly requestId: string;
      readonly participantsMayExist: boolean;
      /**
       * The request holds this very contract, made and prepared from another data folder or desk
       * (`held_at_service`): that desk added every participant before it prepared, so none is
       * added again here (absent: no).
       */
      readonly participantsThere?: boolean;
    }
  /**
   * The user chose, after a warning, to send the document as a new request (only after a
   * refused key): the key is released; the upload is kept unless the refusal named it.
   */
  | {
      readonly type: 'check_resolved_new';
      readonly documentId: string;
      readonly keepUpload: boolean;
      /**
       * The generation of the document's next key: higher than that of every key this data folder
       * made for the same contract (absent in journals of earlier versions: one more than its own).
       */
      readonly generation?: number;
    }
  /**
   * The user chose, after a warning naming the other document, to send this document although
   * another document of the data folder holds or may hold a request for its reference.
   */
  | { readonly type: 'reference_reuse_accepted'; readonly documentId: string; readonly generation: number }
  /** Stored right before an extra participant's call leaves, alone. */
  | { readonly type: 'participant_attempted'; readonly documentId: string; readonly index: number }
  /** The participant's attempt certainly did not apply. */
  | { readonly type: 'participant_attempt_settled'; readonly documentId: string; readonly index: number }
  /** The participant's attempt may have been applied. */
  | {
      readonly type: 'participant_outcome_unknown';
      readonly documentId: string;
      readonly index: number;
      readonly cause: UnknownCause;
    }
  | {
      readonly type: 'participant_added';
      readonly documentId: string;
      readonly index: number;
      readonly participantId: string | undefined;
      /**
       * True when the service answered `participant_conflict` to a repeat of an attempt whose
       * outcome was unknown: it already had the participant, so it is not added twice.
       */
      readonly alreadyThere?: boolean;
    }
  | {
      readonly type: 'request_prepared';
      readonly documentId: string;
      readonly revision: number | undefined;
      readonly sha256: string | undefined;
      readonly alreadyPrepared: boolean;
    }
  | { readonly type: 'item_failed'; readonly documentId: string; readonly error: ItemError }
  | { readonly type: 'item_retried'; readonly documentId: string }
  | { readonly type: 'status_read'; readonly documentId: string; readonly status: TrackedStatus }
  | { readonly type: 'request_gone'; readonly documentId: string }
  /** "Check again": the service answers for a request it had said was gone; tracking resumes. */
  | { readonly type: 'request_found'; readonly documentId: string };

/** An event as a batch's journal recorded it: its place in the journal, when (ISO time) and what happened. */
export interface RecordedBatchEvent {
  readonly seq: number;
  readonly at: string;
  readonly event: BatchEvent;
}
