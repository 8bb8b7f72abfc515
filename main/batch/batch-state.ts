import type {
  BatchDefaults,
  DocumentDraft,
  ItemError,
  SendPhase,
  TrackedStatus,
} from '../../shared/domain/batch';
import type { CreateSigningRequestBody } from '../../shared/service/wire';
import type { JournalEntry } from '../store/journal';
import type { BatchEvent } from './batch-events';

export interface UploadRecord {
  readonly uploadId: string;
  readonly filename: string;
  readonly sha256: string;
  readonly sizeBytes: number;
  readonly expiresAt: number;
}

/** What sending has achieved for one document so far; only events change it. */
export interface SendRecord {
  readonly queued: boolean;
  readonly upload: UploadRecord | undefined;
  readonly create:
    | {
        readonly idempotencyKey: string;
        readonly uploadId: string;
        readonly body: CreateSigningRequestBody;
      }
    | undefined;
  readonly requestId: string | undefined;
  /**
   * Per extra participant index: attempted (outcome unknown), added, or already there (the
   * service reported it present after an attempt whose answer was lost).
   */
  readonly participants: Readonly<Record<number, ParticipantProgress>>;
  readonly prepared:
    | { readonly revision: number | undefined; readonly sha256: string | undefined; readonly at: string }
    | undefined;
  readonly error: ItemError | undefined;
}

export type ParticipantProgress = 'attempted' | 'added' | 'already_there';

/** True once the service holds the participant. */
export function participantDone(progress: ParticipantProgress | undefined): boolean {
  return progress === 'added' || progress === 'already_there';
}

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
};

/** The send phase of a document, derived from what its journal records. */
export function phaseOf(document: DocumentState): SendPhase {
  const { send } = document;
  if (send.prepared) return 'prepared';
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

/** True once sending has reached the service, after which a document's content is locked. */
export function isLocked(document: DocumentState): boolean {
  return document.send.create !== undefined || document.send.requestId !== undefined;
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
export function applyBatchEvent(state: BatchState, entry: JournalEntry<BatchEvent>): BatchState {
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
    case 'connection_bound':
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
        },
      }));
    case 'upload_discarded':
      return updateSend(state, event.documentId, at, (send) => ({ ...send, upload: undefined }));
    case 'create_attempted':
      return updateSend(state, event.documentId, at, (send) => ({
        ...send,
        create: { idempotencyKey: event.idempotencyKey, uploadId: event.uploadId, body: event.body },
      }));
    case 'create_abandoned':
      return updateSend(state, event.documentId, at, (send) => ({
        ...send,
        create: undefined,
        upload: event.keepUpload === true ? send.upload : undefined,
      }));
    case 'request_created':
      return updateSend(state, event.documentId, at, (send) => ({ ...send, requestId: event.requestId }));
    case 'participant_attempted':
      return updateSend(state, event.documentId, at, (send) => ({
        ...send,
        participants: { ...send.participants, [event.index]: send.participants[event.index] ?? 'attempted' },
      }));
    case 'participant_added':
      return updateSend(state, event.documentId, at, (send) => ({
        ...send,
        participants: {
          ...send.participants,
          [event.index]: event.alreadyThere === true ? 'already_there' : 'added',
        },
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
