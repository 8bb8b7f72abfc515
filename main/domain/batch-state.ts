import type {
  BatchDefaults,
  DocumentDraft,
  ItemError,
  SendPhase,
  TrackedStatus,
} from '../../shared/domain/batch';
import type { CreateSigningRequestBody } from '../../shared/service/wire';
import type { CheckReason, HolderRef, RecordedBatchEvent } from './batch-events';

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

/** A document the app will not send further by itself until the user says how (PRODUCT.md §3). */
export interface NeedsCheck {
  readonly reason: CheckReason;
  readonly code: string | undefined;
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

const EMPTY_SEND: SendRecord = {
  queued: false,
  upload: undefined,
  create: undefined,
  requestId: undefined,
  participants: {},
  prepared: undefined,
  error: undefined,
  check: undefined,
  linkedPreparedAt: undefined,
};

const NO_PARTICIPANT_PROGRESS: ParticipantProgress = { inFlight: false, unknown: false, done: undefined };

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

function updateDocument(
  state: BatchState,
  documentId: string,
  at: string,
  change: (document: DocumentState) => DocumentState,
): BatchState {
  const index = state.documents.findIndex((document) => document.draft.id === documentId);
  const current = state.documents[index];
  if (!current) return state;
  const documents = state.documents.slice();
  documents[index] = { ...change(current), updatedAt: at };
  return { ...state, documents, updatedAt: at };
}

function updateSend(
  state: BatchState,
  documentId: string,
  at: string,
  change: (send: SendRecord) => SendRecord,
) {
  return updateDocument(state, documentId, at, (document) => ({ ...document, send: change(document.send) }));
}

function updateCreate(
  state: BatchState,
  documentId: string,
  at: string,
  change: (create: CreationKey) => CreationKey,
): BatchState {
  return updateSend(state, documentId, at, (send) =>
    send.create ? { ...send, create: change(send.create) } : send,
  );
}

function updateParticipant(
  state: BatchState,
  documentId: string,
  index: number,
  at: string,
  change: (progress: ParticipantProgress) => ParticipantProgress,
): BatchState {
  return updateSend(state, documentId, at, (send) => ({
    ...send,
    participants: {
      ...send.participants,
      [index]: change(send.participants[index] ?? NO_PARTICIPANT_PROGRESS),
    },
  }));
}

/** The state of a batch before its first event. */
export function emptyBatch(id: string): BatchState {
  return {
    id,
    name: '',
    createdAt: '',
    updatedAt: '',
    defaults: { defaultRecipients: [] },
    source: undefined,
    connection: undefined,
    documents: [],
  };
}

/** Applies one journal entry to a batch's state. Pure: the same entries always give the same state. */
export function applyBatchEvent(state: BatchState, entry: RecordedBatchEvent): BatchState {
  const { event, at } = entry;
  switch (event.type) {
    case 'batch_created':
      return {
        ...state,
        id: event.batchId,
        name: event.name,
        defaults: event.defaults,
        source: event.source,
        createdAt: at,
        updatedAt: at,
      };
    case 'batch_renamed':
      return { ...state, name: event.name, updatedAt: at };
    case 'batch_source_changed':
      return { ...state, source: event.source, updatedAt: at };
    case 'connection_bound':
      // Bound once: the first binding stands (BatchStore.bindConnection records no second one).
      if (state.connection) return state;
      return { ...state, connection: { baseUrl: event.baseUrl, clientId: event.clientId }, updatedAt: at };
    case 'defaults_changed':
      return { ...state, defaults: event.defaults, updatedAt: at };
    case 'document_added':
      return {
        ...state,
        updatedAt: at,
        documents: [
          ...state.documents,
          { draft: event.document, send: EMPTY_SEND, tracking: undefined, gone: false, updatedAt: at },
        ],
      };
    case 'document_edited':
      return updateDocument(state, event.document.id, at, (document) => ({
        ...document,
        draft: event.document,
      }));
    case 'document_removed':
      return {
        ...state,
        updatedAt: at,
        documents: state.documents.filter((d) => d.draft.id !== event.documentId),
      };
    case 'send_requested':
      return event.documentIds.reduce(
        (next, documentId) => updateSend(next, documentId, at, (send) => ({ ...send, queued: true })),
        state,
      );
    case 'upload_completed':
      return updateSend(state, event.documentId, at, (send) => ({
        ...send,
        upload: {
          uploadId: event.uploadId,
          filename: event.filename,
          sha256: event.sha256,
          sizeBytes: event.sizeBytes,
          expiresAt: event.expiresAt,
          ...(event.serviceAt === undefined ? {} : { serviceAt: event.serviceAt }),
        },
      }));
    case 'upload_discarded':
      return updateSend(state, event.documentId, at, (send) => ({ ...send, upload: undefined }));
    case 'create_attempted':
      return updateSend(state, event.documentId, at, (send) => ({
        ...send,
        create: {
          idempotencyKey: event.idempotencyKey,
          uploadId: event.uploadId,
          body: event.body,
          firstAttemptAt: at,
          ...(event.serviceFirstAt === undefined ? {} : { serviceFirstAt: event.serviceFirstAt }),
          inFlight: event.attemptsMarked !== true,
          unknown: false,
        },
      }));
    case 'create_attempt_started':
      return updateCreate(state, event.documentId, at, (create) => ({ ...create, inFlight: true }));
    case 'create_attempt_settled':
      return updateCreate(state, event.documentId, at, (create) => ({ ...create, inFlight: false }));
    case 'create_outcome_unknown':
      return updateCreate(state, event.documentId, at, (create) => ({
        ...create,
        inFlight: false,
        unknown: true,
      }));
    case 'create_abandoned':
      return updateSend(state, event.documentId, at, (send) => ({
        ...send,
        create: undefined,
        upload: event.keepUpload === true ? send.upload : undefined,
        generation: event.generation ?? (send.generation ?? 0) + 1,
      }));
    case 'create_answered_without_id':
      return updateCreate(state, event.documentId, at, (create) => ({
        ...create,
        inFlight: false,
        appliedWithoutId: true,
        ...(event.twoMayExist === true ? { twoMayExist: true } : {}),
        ...(event.locationId === undefined ? {} : { locationId: event.locationId }),
      }));
    case 'request_created':
      return updateSend(state, event.documentId, at, (send) => ({
        ...send,
        requestId: event.requestId,
        create: send.create && { ...send.create, inFlight: false },
      }));
    case 'check_needed':
      return updateSend(state, event.documentId, at, (send) => ({
        ...send,
        create: send.create && { ...send.create, inFlight: false },
        check: {
          reason: event.reason,
          code: event.code,
          serviceMessage: event.serviceMessage,
          newRequestId: event.newRequestId,
          ...(event.holder ? { holder: event.holder } : {}),
          firstAttemptAt: send.create?.firstAttemptAt,
          at,
        },
      }));
    case 'check_resolved_linked':
      // A resolution only answers a pending check (two answers racing: the first one wins).
      return updateDocument(state, event.documentId, at, (document) =>
        document.send.check === undefined
          ? document
          : {
              ...document,
              send: {
                ...document.send,
                queued: true,
                check: undefined,
                error: undefined,
                requestId: event.requestId,
                linkedPreparedAt: event.participantsMayExist ? undefined : at,
                // Nobody knows which extra participants a request found this way already has,
                // unless it is already prepared (then none can have been added since).
                participants: Object.fromEntries(
                  document.draft.extraParticipants.map((_, index) => {
                    const progress = document.send.participants[index] ?? NO_PARTICIPANT_PROGRESS;
                    if (event.participantsThere === true)
                      return [
                        index,
                        { ...progress, inFlight: false, done: progress.done ?? 'already_there' },
                      ];
                    return [index, { ...progress, unknown: progress.unknown || event.participantsMayExist }];
                  }),
                ),
              },
            },
      );
    case 'check_resolved_new':
      return updateSend(state, event.documentId, at, (send) =>
        send.check === undefined
          ? send
          : {
              ...send,
              queued: true,
              check: undefined,
              error: undefined,
              create: undefined,
              upload: event.keepUpload ? send.upload : undefined,
              generation: event.generation ?? (send.generation ?? 0) + 1,
              // Sent anew on purpose although another document holds its reference: the user chose.
              reuseAccepted: send.reuseAccepted === true || send.check.reason === 'held_elsewhere',
              linkedPreparedAt: undefined,
            },
      );
    case 'reference_reuse_accepted':
      return updateSend(state, event.documentId, at, (send) => ({
        ...send,
        generation: Math.max(send.generation ?? 0, event.generation),
        reuseAccepted: true,
      }));
    case 'participant_attempted':
      return updateParticipant(state, event.documentId, event.index, at, (progress) => ({
        ...progress,
        inFlight: true,
      }));
    case 'participant_attempt_settled':
      return updateParticipant(state, event.documentId, event.index, at, (progress) => ({
        ...progress,
        inFlight: false,
      }));
    case 'participant_outcome_unknown':
      return updateParticipant(state, event.documentId, event.index, at, (progress) => ({
        ...progress,
        inFlight: false,
        unknown: true,
      }));
    case 'participant_added':
      return updateParticipant(state, event.documentId, event.index, at, (progress) => ({
        ...progress,
        inFlight: false,
        done: event.alreadyThere === true ? 'already_there' : 'added',
      }));
    case 'request_prepared':
      return updateSend(state, event.documentId, at, (send) => ({
        ...send,
        prepared: { revision: event.revision, sha256: event.sha256, at },
        error: undefined,
      }));
    case 'item_failed':
      return updateSend(state, event.documentId, at, (send) => ({ ...send, error: event.error }));
    case 'item_retried':
      return updateSend(state, event.documentId, at, (send) => ({ ...send, error: undefined, queued: true }));
    case 'status_read':
      return updateDocument(state, event.documentId, at, (document) => ({
        ...document,
        tracking: event.status,
      }));
    case 'request_gone':
      return updateDocument(state, event.documentId, at, (document) => ({ ...document, gone: true }));
    case 'request_found':
      return updateDocument(state, event.documentId, at, (document) => ({ ...document, gone: false }));
    default:
      // A journal written by a newer version, or damaged in a way its checksum missed.
      throw new UnknownBatchEventError((event as { readonly type?: unknown }).type);
  }
}

/** An event this version does not know: the batch is reported as damaged, never half-read. */
export class UnknownBatchEventError extends Error {
  constructor(type: unknown) {
    super(`an event of unknown type ${JSON.stringify(type)}`);
    this.name = 'UnknownBatchEventError';
  }
}

type StoredParticipantProgress = ParticipantProgress | 'attempted' | 'added' | 'already_there';

/**
 * Brings a batch state written by an earlier version (a snapshot) to today's shape. Earlier
 * versions kept participant progress as a word and no attempt facts with the creation key: an
 * outstanding key or marker is read as "an attempt may be on its way", as it was then.
 */
export function upgradeBatchState(state: BatchState): BatchState {
  return {
    ...state,
    documents: state.documents.map((document) => {
      const send = document.send as SendRecord & {
        readonly create?: Partial<CreationKey> & Omit<CreationKey, 'firstAttemptAt' | 'inFlight' | 'unknown'>;
        readonly participants: Readonly<Record<number, StoredParticipantProgress>>;
      };
      const participants = Object.fromEntries(
        Object.entries(send.participants).map(([index, progress]) => [
          index,
          typeof progress === 'string'
            ? {
                inFlight: progress === 'attempted',
                unknown: false,
                done: progress === 'attempted' ? undefined : progress,
              }
            : progress,
        ]),
      );
      const create = send.create && {
        ...send.create,
        firstAttemptAt: send.create.firstAttemptAt ?? document.updatedAt,
        inFlight: send.create.inFlight ?? true,
        unknown: send.create.unknown ?? false,
      };
      return {
        ...document,
        send: {
          ...send,
          create,
          participants,
          check: send.check,
          upload: send.upload && { ...send.upload, expiresAt: send.upload.expiresAt ?? undefined },
          // Snapshots of earlier versions did not keep it; their journals' links are folded anew.
          linkedPreparedAt: send.linkedPreparedAt ?? undefined,
        },
      };
    }),
  };
}
