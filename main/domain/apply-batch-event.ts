/**
 * Folds a batch's journal into its state (batch-state.ts), one event at a time: the only place
 * an event changes what the app knows of a batch. Pure: the same entries always give the same
 * state.
 */
import type { RecordedBatchEvent } from './batch-events';
import type { BatchState, CreationKey, DocumentState, ParticipantProgress, SendRecord } from './batch-state';

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
