import type { BatchDefaults, DocumentDraft, ItemError, TrackedStatus } from '../../shared/domain/batch';
import type { CreateSigningRequestBody } from '../../shared/service/wire';

/**
 * Everything that happens to a batch, as stored in its journal. State is the fold of these
 * events (batch-state.ts); an event is durable before anything that depends on it is sent.
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
      /** Local clock, ms: uploaded time + `expires_in_hours`. */
      readonly expiresAt: number;
    }
  | { readonly type: 'upload_discarded'; readonly documentId: string; readonly reason: string }
  /**
   * Stored before the first creation attempt. Every retry sends this key with this very body,
   * so a later edit of the batch can never reuse the key with another body.
   */
  | {
      readonly type: 'create_attempted';
      readonly documentId: string;
      readonly idempotencyKey: string;
      readonly uploadId: string;
      readonly body: CreateSigningRequestBody;
    }
  /**
   * The service refused the creation outright, so no request exists under the key: it is
   * released. The upload is kept when it can still be used, else it is uploaded again.
   */
  | {
      readonly type: 'create_abandoned';
      readonly documentId: string;
      readonly reason: string;
      readonly keepUpload?: boolean;
    }
  | {
      readonly type: 'request_created';
      readonly documentId: string;
      readonly requestId: string;
      readonly replayed: boolean;
    }
  | { readonly type: 'participant_attempted'; readonly documentId: string; readonly index: number }
  | {
      readonly type: 'participant_added';
      readonly documentId: string;
      readonly index: number;
      readonly participantId: string | undefined;
      /**
       * True when the service answered `participant_conflict` to a repeat of a call whose first
       * answer was lost: it already had the participant, so it is not added twice.
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
  | { readonly type: 'request_gone'; readonly documentId: string };
