/**
 * A batch's state as its journal's events make it (apply-batch-event.ts folds them), and what
 * that state says of a document: its send phase, whether the service may hold a request for it,
 * whether its content is locked.
 */
import type {
  BatchDefaults,
  DocumentDraft,
  ItemError,
  SendPhase,
  TrackedStatus,
} from '../../shared/domain/batch';
import type { ServiceErrorCode } from '../../shared/service/error-codes';
import type { CreateSigningRequestBody } from '../../shared/service/wire';
import type { CheckReason, HolderRef } from './batch-events';

export interface UploadRecord {
  readonly uploadId: string;
  readonly filename: string;
  readonly sha256: string;
  readonly sizeBytes: number;
  /** Local clock, ms; undefined when the service gave no readable lifetime (the upload is then used as is). */
  readonly expiresAt: number | undefined;
  /** The service's clock at its answer (`Date`, epoch ms); absent without one, or in batches of earlier versions. */
  readonly serviceAt?: number | undefined;
}

/**
 * The Idempotency-Key of a document's creation and what is known of its attempts. `inFlight`
 * says an attempt may be on its way (set before it leaves, cleared by a definite answer);
 * `unknown` says some attempt may have been applied without the app hearing of it: from then on
 * the key is never released by itself.
 */
export interface CreationKey {
  readonly idempotencyKey: string;
  readonly uploadId: string;
  readonly body: CreateSigningRequestBody;
  /** When the key was stored, just before its first attempt could leave (ISO 8601). */
  readonly firstAttemptAt: string;
  /** The service's clock before the first attempt (its upload answer's `Date`, epoch ms), when known. */
  readonly serviceFirstAt?: number | undefined;
  readonly inFlight: boolean;
  readonly unknown: boolean;
  /**
   * The service answered an attempt with success but without the request's id (absent in
   * batches of earlier versions): a request exists under the key, and a replay tells its id.
   */
  readonly appliedWithoutId?: boolean;
  /** That answer may have been a second request (see `create_answered_without_id`). */
  readonly twoMayExist?: boolean;
  /** The request that answer's `Location` named, unconfirmed (see `create_answered_without_id`). */
  readonly locationId?: string;
}

/** What is known of one extra participant's call (spec §4.5, which has no idempotency key). */
export interface ParticipantProgress {
  /** An attempt may be on its way (its marker was stored right before it left). */
  readonly inFlight: boolean;
  /** An attempt may have been applied without the app hearing of it. */
  readonly unknown: boolean;
  /** Set once the service holds the participant: added now, or found already there after an unknown outcome. */
  readonly done: 'added' | 'already_there' | undefined;
}

/** A document the app will not send further by itself until the user says how (README "Sending exactly once"). */
export interface NeedsCheck {
  readonly reason: CheckReason;
  readonly code: ServiceErrorCode | undefined;
  readonly serviceMessage: string | undefined;
  /** The request the service answered with (`new_request_after_unknown`, `held_at_service`). */
  readonly newRequestId: string | undefined;
  /** For `held_elsewhere`: the document of the data folder that holds the reference. */
  readonly holder?: HolderRef | undefined;
  /** When the first creation attempt under the key could leave. */
  readonly firstAttemptAt: string | undefined;
  readonly at: string;
}

/** What sending has achieved for one document so far; only events change it. */
export interface SendRecord {
  readonly queued: boolean;
  readonly upload: UploadRecord | undefined;
  readonly create: CreationKey | undefined;
  readonly requestId: string | undefined;
  /** Per extra participant index. */
  readonly participants: Readonly<Record<number, ParticipantProgress>>;
  readonly prepared:
    | { readonly revision: number | undefined; readonly sha256: string | undefined; readonly at: string }
    | undefined;
  readonly error: ItemError | undefined;
  readonly check: NeedsCheck | undefined;
  /**
   * Keys this document gave up (the service refused one and applied nothing, or the user sent
   * anew on purpose): its next key is derived with this generation. Absent in batches of
   * earlier versions: 0.
   */
  readonly generation?: number;
  /**
   * The user chose to send it although another document of the data folder holds or may hold
   * a request for its reference (absent: no).
   */
  readonly reuseAccepted?: boolean;
  /**
   * When the user linked a request the service showed as already prepared (ISO 8601): it has a
   * ceremony to track whatever happens to the steps after the link (an extra participant it
   * refuses, since a prepared request takes none).
   */
  readonly linkedPreparedAt: string | undefined;
}

/** True once the service holds the participant. */
export function participantDone(progress: ParticipantProgress | undefined): boolean {
  return progress?.done !== undefined;
}

/**
 * A document as the journal folds it: its `DocumentDraft` (what the person prepared), where its
 * sending is, and its request's status at the service. The page sees it as a `DocumentView`
 * (shared/ipc/views.ts, made by main/app/batch-views.ts).
 */
export interface DocumentState {
  readonly draft: DocumentDraft;
  readonly send: SendRecord;
  readonly tracking: TrackedStatus | undefined;
  readonly gone: boolean;
  readonly updatedAt: string;
}

export interface BatchState {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly defaults: BatchDefaults;
  readonly source: string | undefined;
  readonly connection: { readonly baseUrl: string; readonly clientId: string } | undefined;
  readonly documents: readonly DocumentState[];
}

/** The send phase of a document, derived from what its journal records. */
export function phaseOf(document: DocumentState): SendPhase {
  const { send } = document;
  if (send.prepared) return 'prepared';
  if (send.check) return 'needs_check';
  if (send.error) return 'failed';
  if (!send.queued) return 'draft';
  if (send.requestId) {
    const pending = document.draft.extraParticipants.some(
      (_, index) => !participantDone(send.participants[index]),
    );
    return pending ? 'adding_participants' : 'preparing';
  }
  if (send.create) return 'creating';
  return send.upload ? 'creating' : 'uploading';
}

/**
 * True when the service holds, or may hold, a request made for `document`: it has a creation
 * key (whatever became of its attempts), a request, a pending check about one, or is prepared.
 * A document held back because another one holds its reference holds nothing itself.
 */
export function mayHoldRequest(document: DocumentState): boolean {
  const { send } = document;
  if (send.check?.reason === 'held_elsewhere') return false;
  return (
    send.create !== undefined ||
    send.requestId !== undefined ||
    send.check !== undefined ||
    send.prepared !== undefined
  );
}

/** True once sending has reached the service, after which a document's content is locked. */
export function isLocked(document: DocumentState): boolean {
  const { send } = document;
  return send.create !== undefined || send.requestId !== undefined || send.check !== undefined;
}
