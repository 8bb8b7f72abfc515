/**
 * The batch domain: what staff prepare offline (batches, documents, recipients) and what the
 * app learns while sending and tracking. Schemas, because batches cross the disk and IPC
 * boundaries; types come from them.
 */
import { z } from 'zod';
import type { ServiceErrorCode } from '../service/error-codes';
import { localeSchema, participantSchema } from '../service/wire';

/** Signing options shared by a batch's documents unless a document overrides them (spec §4.3). */
export const signingOptionsSchema = z.object({
  transactionType: z.string().trim().min(1).optional(),
  enforceOrder: z.boolean().optional(),
  ownerMustSign: z.boolean().optional(),
  ceremonyMode: z.string().trim().min(1).optional(),
  meetingProvider: z.string().trim().min(1).optional(),
  evidenceLevel: z.string().trim().min(1).optional(),
  locale: localeSchema.optional(),
});
export type SigningOptions = z.infer<typeof signingOptionsSchema>;

export const batchDefaultsSchema = signingOptionsSchema.extend({
  /** Recipients every document of the batch gets, in addition to its own. */
  defaultRecipients: z.array(participantSchema).default([]),
});
export type BatchDefaults = z.infer<typeof batchDefaultsSchema>;

/** A PDF accepted into the app's data folder, identified by its content. */
export const storedPdfSchema = z.object({
  /** The name the user picked, as shown to the service in `X-Filename`. */
  originalName: z.string().min(1),
  /** The name the service will store (spec §4.2), predicted locally. */
  storedFilename: z.string().min(1),
  sizeBytes: z.number().int().positive(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type StoredPdf = z.infer<typeof storedPdfSchema>;

/**
 * A document as the person prepared it, before any send: its PDF (the app's copy), recipients
 * and options. Made from a manifest's `ManifestDocument` (main/manifest) on import, or from a PDF
 * added by hand; the journal records it (`document_added`, `document_edited`) and folds it into
 * a `DocumentState` (main/domain/batch-state.ts), whose `draft` it stays.
 */
export const documentDraftSchema = z.object({
  id: z.string().min(1),
  externalReference: z.string().trim().min(1),
  pdf: storedPdfSchema,
  /** Sent with the creation call. */
  recipients: z.array(participantSchema),
  /** Added one by one after creation (spec §4.5). */
  extraParticipants: z.array(participantSchema).default([]),
  options: signingOptionsSchema.default({}),
});
export type DocumentDraft = z.infer<typeof documentDraftSchema>;

/**
 * Where one document can be in sending, in order: the one list the type, the IPC schema
 * (shared/ipc/views.ts) and the engine's progress counts (main/engine/send-events.ts) read.
 */
export const SEND_PHASES = [
  'draft',
  'queued',
  'uploading',
  'creating',
  'adding_participants',
  'preparing',
  'prepared',
  'needs_check',
  'failed',
] as const;

/** Where one document is in sending. Derived from the journal; never set by hand. */
export type SendPhase = (typeof SEND_PHASES)[number];

/**
 * Why a document needs the user's check before anything more is sent for it: the app cannot
 * know whether the service already holds a signing request for it.
 * - `key_refused`: a creation attempt's outcome was unknown, and the service later refused it.
 * - `new_request_after_unknown`: after an unknown outcome the service answered with a request
 *   that is not a replay, so it may hold an earlier one too.
 * - `created_without_id`: the service accepted a creation but neither its answer nor a replay
 *   of the key said the id.
 * - `held_elsewhere`: another document of this data folder holds (or may hold) a request for the
 *   same reference at the same service: this one was not sent, so as not to send it twice.
 * - `held_at_service`: the service already holds a request for this very contract, made from
 *   another data folder or desk (it replayed, or refused, the key derived from the contract).
 */
export const checkReasonSchema = z.enum([
  'key_refused',
  'new_request_after_unknown',
  'created_without_id',
  'held_elsewhere',
  'held_at_service',
]);
export type CheckReason = z.infer<typeof checkReasonSchema>;

export interface ItemError {
  readonly code: ServiceErrorCode;
  /** In English, as stored; a view words it anew in the person's language (errorMessageIn). */
  readonly message: string;
  readonly retryable: boolean;
  readonly at: string;
  /** The service's own words, verbatim (absent in batches stored before it was kept). */
  readonly serviceMessage?: string;
}

/**
 * The service's view of a request, as last read by the poller (written when it changes, so
 * `readAt` is when this very status was first read). Where it stands — completed, ended, under
 * way, or in a status this app does not know — is derived from these fields by one rule
 * (`stageOf`, shared/service/status.ts), so statuses stored by earlier versions read the same.
 */
export interface TrackedStatus {
  readonly status: string;
  readonly documentStatus: string | undefined;
  readonly evidenceReady: boolean;
  readonly preparedAt: string | undefined;
  readonly openedAt: string | undefined;
  readonly finalizedAt: string | undefined;
  readonly readAt: string;
  /** Nothing more will happen to it (completed or ended), by the rule when it was read. */
  readonly final: boolean;
}
